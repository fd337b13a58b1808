// See fd_guard.h.
#include "process/fd_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "process/thread_state.h"
#include "process/source_table.h"

namespace hpcrun {

namespace {

constinit std::atomic<uint64_t> g_bits[kMaxGuardedFd / 64];
constinit std::atomic<int> g_highest{-1};  // highest descriptor ever marked: bounds the scans

bool in_range(int fd) { return fd >= 0 && fd < kMaxGuardedFd; }

// The lowest marked descriptor in [from, highest], or -1.
int next_owned(int from) {
  int hi = g_highest.load(std::memory_order_acquire);
  for (int fd = from < 0 ? 0 : from; fd <= hi; ++fd) {
    uint64_t word = g_bits[fd / 64].load(std::memory_order_acquire) >> (fd % 64);
    if (word == 0) {
      fd = (fd / 64) * 64 + 63;  // the rest of this word is clear
      continue;
    }
    return fd + __builtin_ctzll(word);
  }
  return -1;
}

long raw_close_range(unsigned first, unsigned last, unsigned flags) {
  return syscall(SYS_close_range, first, last, flags);
}

}  // namespace

int fd_guard_close_range(unsigned first, unsigned last, unsigned flags) {
  unsigned cur = first;
  for (int owned = next_owned(int(first)); owned >= 0 && unsigned(owned) <= last;
       owned = next_owned(owned + 1)) {
    if (unsigned(owned) > cur && raw_close_range(cur, unsigned(owned) - 1, flags) != 0) return -1;
    cur = unsigned(owned) + 1;
    if (cur == 0) return 0;  // wrapped past UINT_MAX
  }
  if (cur <= last && raw_close_range(cur, last, flags) != 0) return -1;
  return 0;
}

void fd_guard_make_room(int fd) {
  if (!fd_guard_owns(fd)) return;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 1000);
  if (moved < 0) return;
  fd_guard_add(moved);
  uint32_t budget = threads_count() + 1;
  for (ThreadState* t = threads_head(); t && budget > 0; t = t->next, --budget) {
    bool found = false;
    constexpr int kMaxFds = 8;  // every source's, the timer's first (source_table.h: thread_fds)
    int* slots[kMaxFds];
    const int n = sources_thread_fds(t, slots, kMaxFds);
    for (int i = 0; i < n; ++i) {
      int* slot = slots[i];
      int expected = fd;
      found = found || __atomic_compare_exchange_n(slot, &expected, moved, false,
                                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
    if (found) break;
  }
  fd_guard_remove(fd);
}

void fd_guard_add(int fd) {
  if (!in_range(fd)) return;
  g_bits[fd / 64].fetch_or(uint64_t(1) << (fd % 64), std::memory_order_acq_rel);
  int hi = g_highest.load(std::memory_order_relaxed);
  while (fd > hi && !g_highest.compare_exchange_weak(hi, fd, std::memory_order_acq_rel)) {
  }
}

void fd_guard_remove(int fd) {
  if (!in_range(fd)) return;
  g_bits[fd / 64].fetch_and(~(uint64_t(1) << (fd % 64)), std::memory_order_acq_rel);
}

bool fd_guard_owns(int fd) {
  return in_range(fd) && (g_bits[fd / 64].load(std::memory_order_acquire) >> (fd % 64)) & 1;
}

void fd_guard_close(int fd) {
  fd_guard_remove(fd);
  syscall(SYS_close, fd);
}

}  // namespace hpcrun
