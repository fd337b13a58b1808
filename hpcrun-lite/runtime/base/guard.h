// The runtime's re-entry guard.
//
// Rules:
//  - Every entry point that runs runtime code on behalf of the program (the malloc-family
//    wrappers when they track a block, thread start and exit, dlopen, the profile writer) sets
//    t_in_runtime for its duration with RuntimeGuard.
//  - While it is set, allocation wrappers pass straight through to the real allocator without
//    tracking: memory that our own code (libunwind, the ELF reader, the writer) allocates is
//    never a variable of the program, and no wrapper re-enters a lock it already holds.
//  - A free() that a signal handler of the program calls while its thread is inside the runtime
//    is deferred to the end of the outermost guard (deferred_free.h).
//  - The sampling signal handler checks it first: a sample that lands inside the runtime is
//    counted as "busy" and recorded as code time at the interrupted instruction only (no data
//    address, no unwinding), because the data structures it would read may be mid-update on
//    this very thread (libunwind's locks, the address map's writer lock, a half-built node).
// Only entry points use the guard; internal functions assume it is held.
#pragma once

#include "base/deferred_free.h"

namespace hpcrun {

extern __thread int t_in_runtime __attribute__((tls_model("initial-exec")));

class RuntimeGuard {
 public:
  RuntimeGuard() : entered_(t_in_runtime == 0) {
    if (entered_) {
      t_in_runtime = 1;
      __atomic_signal_fence(__ATOMIC_SEQ_CST);
    }
  }
  ~RuntimeGuard() {
    if (entered_) {
      __atomic_signal_fence(__ATOMIC_SEQ_CST);
      t_in_runtime = 0;
      __atomic_signal_fence(__ATOMIC_SEQ_CST);
      if (__builtin_expect(t_deferred_frees, 0)) flush_deferred_frees();
    }
  }
  // False when the caller was already inside the runtime.
  bool entered() const { return entered_; }
  RuntimeGuard(const RuntimeGuard&) = delete;
  RuntimeGuard& operator=(const RuntimeGuard&) = delete;

 private:
  bool entered_;
};

}  // namespace hpcrun
