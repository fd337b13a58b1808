// See numa.h.
#include "trees/numa.h"

#include <sys/syscall.h>

#include <atomic>
#include <cerrno>

#include "base/raw_sys.h"
#include "trees/cct.h"

namespace hpcrun {

namespace {

std::atomic<bool> g_enabled{false};
std::atomic<uint64_t> g_local{0}, g_remote{0}, g_unresolved{0};

}  // namespace

bool numa_enabled() { return g_enabled.load(std::memory_order_relaxed); }
void numa_enable(bool on) { g_enabled.store(on, std::memory_order_relaxed); }

NumaCounts numa_counts() {
  NumaCounts c;
  c.local = g_local.load(std::memory_order_relaxed);
  c.remote = g_remote.load(std::memory_order_relaxed);
  c.unresolved = g_unresolved.load(std::memory_order_relaxed);
  return c;
}

void NumaLog::add(Cct& c, uint32_t node, uint64_t addr, uint32_t cpu) {
  if (numa_single_node()) {
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
  const MovePagesHook hook = move_pages_hook();
  long rc = hook ? hook(n, reinterpret_cast<void**>(page_), status)
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
