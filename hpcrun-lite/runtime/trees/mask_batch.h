// One block of every signal for a whole unwind, instead of one per step.
//
// libunwind (Debian's 1.6.2, whose per-thread caches still take the global lock) blocks every
// signal around each look into its caches: two sigprocmask calls per step of a frame it has not
// traced before. Capturing the allocation paths of LAMMPS's start-up made 36,000 of them per
// process, about 3 ms of its CPU (strace -c and perf, `bench/startup_cost.sh`). Inside a batch
// (one unw_backtrace, unwind.cpp) the first of those calls blocks every signal for real and the
// others are answered without a system call: the mask stays full until the batch ends, then goes
// back to what it was. What libunwind protects is unchanged (every signal is blocked while it
// holds its lock); the signals are only kept blocked between its steps too, for the
// microseconds of the unwind.
//
// Async-signal-safe. A batch that a handler opens inside another (a sample interrupting an
// unwind between its steps) keeps its own state and gives the outer one back at its end.
//
// A batch opened inside the runtime (t_in_runtime set: an allocation being tracked, a sample
// being recorded) blocks nothing at all: every handler of the runtime that unwinds checks
// t_in_runtime first and records without unwinding (sampler.cpp, papi_source.cpp), and the
// program's handlers cannot reach this libunwind (loaded RTLD_LOCAL, unwind.h), so nothing can
// take libunwind's lock again on this thread. Its blocks and restores are all answered without
// the kernel: two system calls fewer for every tracked allocation and every sample, which a
// paravirtualized VM bills at several microseconds each.
#pragma once

#include <signal.h>

namespace hpcrun {

class MaskBatch {
 public:
  // `inside_runtime`: the caller is inside the runtime (see above); nothing is blocked.
  explicit MaskBatch(bool inside_runtime = false);
  ~MaskBatch();
  MaskBatch(const MaskBatch&) = delete;
  MaskBatch& operator=(const MaskBatch&) = delete;

 private:
  int outer_active_, outer_blocked_, outer_quiet_;
  sigset_t outer_saved_;
};

// From the sigprocmask/pthread_sigmask wrappers: inside a batch, answers the call without the
// kernel when it is libunwind's block of everything (after the batch's first) or its restore of
// the mask that block reported; *rc is then the call's result. False: make the call.
bool mask_batch_take(int (*real_fn)(int, const sigset_t*, sigset_t*), int how,
                     const sigset_t* set, sigset_t* old, int* rc);

}  // namespace hpcrun
