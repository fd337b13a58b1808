// See numa_topology.h.
#include "hpcrun/probe/numa_topology.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace hpcrun {

namespace {

int16_t g_cpu_node[kMaxNumaCpus];
bool g_map_known = false;
int g_nodes = 0;
bool g_one_node = false;
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

bool numa_single_node() { return g_one_node; }

void numa_set_cpu_node(uint32_t cpu, int node) {
  g_one_node = false;
  if (!g_map_known) {
    for (int i = 0; i < kMaxNumaCpus; ++i) g_cpu_node[i] = -1;
    g_map_known = true;
  }
  if (cpu < uint32_t(kMaxNumaCpus)) g_cpu_node[cpu] = int16_t(node);
}

void set_move_pages_hook(MovePagesHook hook) { g_hook = hook; }
MovePagesHook move_pages_hook() { return g_hook; }

int numa_probe() {
  // A page of our own that is surely present: the probe's own stack.
  volatile int here = 0;
  void* page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(&here) & ~uintptr_t(4095));
  int status = -1;
  if (g_hook) {
    long rc = g_hook(1, &page, &status);
    return rc < 0 ? int(-rc) : 0;
  }
  const int saved = errno;
  const long rc = syscall(SYS_move_pages, 0, 1ul, &page, nullptr, &status, 0);
  const int err = rc < 0 ? errno : 0;
  errno = saved;
  return err;
}

}  // namespace hpcrun
