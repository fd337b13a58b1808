// See numa.h.
#include "sources/numa/numa.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/raw_sys.h"
#include "trees/cct.h"

namespace hpcrun {

namespace {

int16_t g_cpu_node[kMaxNumaCpus];
bool g_map_known = false;
int g_nodes = 0;
bool g_one_node = false;  // every placement is local: nothing to look up
std::atomic<bool> g_enabled{false};
std::atomic<uint64_t> g_local{0}, g_remote{0}, g_unresolved{0};
MovePagesHook g_hook = nullptr;

// "0-3,8,10-11" -> the CPUs' entries set to `node`.
void parse_cpulist(const char* s, int node) {
  while (*s) {
    char* end;
    long lo = strtol(s, &end, 10);
    if (end == s) break;
    long hi = lo;
    s = end;
    if (*s == '-') {
      hi = strtol(s + 1, &end, 10);
      s = end;
    }
    for (long c = lo; c <= hi && c < kMaxNumaCpus; ++c)
      if (c >= 0) g_cpu_node[c] = int16_t(node);
    if (*s == ',') ++s;
    else break;
  }
}

}  // namespace

int numa_init(const char* root) {
  for (int i = 0; i < kMaxNumaCpus; ++i) g_cpu_node[i] = -1;
  char dir[512];
  snprintf(dir, sizeof dir, "%s/sys/devices/system/node", root);
  DIR* d = opendir(dir);
  int nodes = 0;
  if (d) {
    while (dirent* ent = readdir(d)) {
      int node;
      char tail;
      if (sscanf(ent->d_name, "node%d%c", &node, &tail) != 1 || node < 0) continue;
      char path[1024];
      snprintf(path, sizeof path, "%s/%s/cpulist", dir, ent->d_name);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char buf[4096];
      ssize_t n = read(fd, buf, sizeof buf - 1);
      close(fd);
      if (n <= 0) continue;
      buf[n] = 0;
      parse_cpulist(buf, node);
      ++nodes;
    }
    closedir(d);
  }
  // No sysfs node directory (a kernel without NUMA): one node, every CPU on it.
  if (nodes == 0)
    for (int i = 0; i < kMaxNumaCpus; ++i) g_cpu_node[i] = 0;
  g_map_known = true;
  g_nodes = nodes;
  g_one_node = nodes <= 1;
  return nodes;
}

int numa_node_count() { return g_nodes; }

int numa_cpu_node(uint32_t cpu) {
  return g_map_known && cpu < uint32_t(kMaxNumaCpus) ? g_cpu_node[cpu] : -1;
}

void numa_set_cpu_node(uint32_t cpu, int node) {
  g_one_node = false;
  if (!g_map_known) {
    for (int i = 0; i < kMaxNumaCpus; ++i) g_cpu_node[i] = -1;
    g_map_known = true;
  }
  if (cpu < uint32_t(kMaxNumaCpus)) g_cpu_node[cpu] = int16_t(node);
}

bool numa_enabled() { return g_enabled.load(std::memory_order_relaxed); }
void numa_enable(bool on) { g_enabled.store(on, std::memory_order_relaxed); }

NumaCounts numa_counts() {
  NumaCounts c;
  c.local = g_local.load(std::memory_order_relaxed);
  c.remote = g_remote.load(std::memory_order_relaxed);
  c.unresolved = g_unresolved.load(std::memory_order_relaxed);
  return c;
}

void set_move_pages_hook(MovePagesHook hook) { g_hook = hook; }

int numa_probe() {
  // A page of our own that is surely present: the probe's own stack.
  volatile int here = 0;
  void* page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(&here) & ~uintptr_t(4095));
  int status = -1;
  long rc = g_hook ? g_hook(1, &page, &status) : raw_syscall(SYS_move_pages, 0, 1ul, &page, nullptr, &status, 0);
  return rc < 0 ? int(-rc) : 0;
}

void NumaLog::add(Cct& c, uint32_t node, uint64_t addr, uint32_t cpu) {
  if (g_one_node) {
    // The sampled instruction is about to touch the page, on the only node there is.
    (void)addr;
    (void)cpu;
    MemCounts* m = c.mem(node);
    if (m) ++m->numa_local;
    (m ? g_local : g_unresolved).fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (n_ >= kCapacity) flush(c);
  e_[n_] = Entry{node, cpu};
  page_[n_] = addr & ~uint64_t(4095);
  ++n_;
}

bool NumaLog::holds(uint64_t lo, uint64_t hi) const {
  // Pages: one that starts before the block may hold its first bytes.
  const uint64_t first = lo & ~uint64_t(4095);
  for (uint32_t i = 0; i < n_; ++i)
    if (page_[i] >= first && page_[i] < hi) return true;
  return false;
}

void NumaLog::flush(Cct& c) {
  if (n_ == 0) return;
  int status[kCapacity];
  const uint32_t n = n_;
  n_ = 0;  // first: a failed lookup must not be retried forever
  // Raw: the flush runs inside the program's free() and malloc(), whose errno is the program's.
  long rc = g_hook ? g_hook(n, reinterpret_cast<void**>(page_), status)
                   : raw_syscall(SYS_move_pages, 0, (unsigned long)n, page_, nullptr, status, 0);
  // A kernel without NUMA (ENOSYS) or a seccomp filter installed since start-up (EPERM): no
  // later lookup would do better, and each would cost a system call in the program's free().
  if (rc == -ENOSYS || rc == -EPERM) g_enabled.store(false, std::memory_order_relaxed);
  uint64_t local = 0, remote = 0, unresolved = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const int cpu_node = numa_cpu_node(e_[i].cpu);
    if (rc != 0 || status[i] < 0 || cpu_node < 0) {
      ++unresolved;
      continue;
    }
    MemCounts* m = c.mem(e_[i].node);
    if (!m) {
      ++unresolved;
      continue;
    }
    if (status[i] == cpu_node) {
      ++m->numa_local;
      ++local;
    } else {
      ++m->numa_remote;
      ++remote;
    }
  }
  if (local) g_local.fetch_add(local, std::memory_order_relaxed);
  if (remote) g_remote.fetch_add(remote, std::memory_order_relaxed);
  if (unresolved) g_unresolved.fetch_add(unresolved, std::memory_order_relaxed);
}

}  // namespace hpcrun
