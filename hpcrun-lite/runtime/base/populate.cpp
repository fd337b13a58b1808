// See populate.h.
#include "base/populate.h"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>

#include "base/raw_sys.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace hpcrun {

namespace {
constexpr uintptr_t kPage = 4096;
constinit std::atomic<bool> g_unsupported{false};
}  // namespace

bool populate_write(void* p, size_t n) {
  if (g_unsupported.load(std::memory_order_relaxed)) return false;
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + n) & ~(kPage - 1);
  if (hi <= lo) return true;
  const long r = raw_syscall(SYS_madvise, lo, hi - lo, MADV_POPULATE_WRITE);
  // EINVAL: a kernel without the advice. Other failures (ENOMEM, EFAULT) are this range's own;
  // the pages then fault in one by one, as without it.
  if (r == -EINVAL) g_unsupported.store(true, std::memory_order_relaxed);
  return r == 0;
}

void PopulatedFront::reach(uintptr_t lo, uintptr_t end, uintptr_t hi) {
  if (lo != lo_) {  // a new region: nothing of it populated yet
    lo_ = lo;
    done_ = lo & ~(kPage - 1);
  }
  if (end <= done_) return;
  uintptr_t to = ((end + kPage - 1) & ~(kPage - 1)) + kPopulateStripe;
  if (to > hi) to = hi;
  // The page the fill is inside may already be present (its start was written before the front
  // was first reached): populating a present page costs nothing more.
  if (to > done_) populate_write(reinterpret_cast<void*>(done_), to - done_);
  done_ = to;
}

}  // namespace hpcrun
