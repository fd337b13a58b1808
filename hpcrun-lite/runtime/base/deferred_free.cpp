// See deferred_free.h.
#include "base/deferred_free.h"

#include <signal.h>
#include <stdlib.h>

#include <atomic>

#include "base/real_fns.h"

namespace hpcrun {

__thread int t_deferred_frees __attribute__((tls_model("initial-exec"))) = 0;
// The guard's flag (guard.h), beside the frees it defers: code of the core library reads it too
// (unwind.cpp).
__thread int t_in_runtime __attribute__((tls_model("initial-exec"))) = 0;

namespace {

constexpr int kMaxDeferred = 256;
__thread void* t_blocks[kMaxDeferred] __attribute__((tls_model("initial-exec")));

}  // namespace

bool defer_free(void* p) {
  int n = t_deferred_frees;
  if (n == kMaxDeferred) return false;
  // The slot first, the count after: a flush that this push interrupted never sees a half-made
  // entry (and the flush itself runs with signals blocked).
  t_blocks[n] = p;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_deferred_frees = n + 1;
  return true;
}

void flush_deferred_frees() {
  // All of it with every signal blocked. A handler that defers another free meanwhile would race
  // with the list being emptied; and the program's handlers that free() must not interrupt the
  // real free() called here: the program did not call it, so its handler may rightly assume no
  // allocator call is in progress (a handler's free() inside glibc's free() corrupts the heap).
  ensure_real_fns();
  sigset_t all, saved;
  sigfillset(&all);
  real.pthread_sigmask(SIG_SETMASK, &all, &saved);
  while (int n = t_deferred_frees) {
    void* p = t_blocks[n - 1];
    t_deferred_frees = n - 1;
    free(p);
  }
  real.pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

}  // namespace hpcrun
