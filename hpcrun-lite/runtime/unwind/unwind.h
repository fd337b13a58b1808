// Call paths for allocations and samples, through libunwind's unw_backtrace (the fast path that
// caches unwind info; about 160 ns in a malloc wrapper, 0.4-2.5 us in a signal handler, against
// ~10 us for an unw_step loop, measured on the project's 2-vCPU x86-64 VMs with about 15 frames).
//
// libunwind is loaded with dlopen(RTLD_LOCAL) instead of being linked: libunwind.so also defines
// _Unwind_RaiseException and friends, and as a dependency of a preloaded library those would
// come first in the global lookup order and replace libgcc's unwinder for the program's own C++
// exceptions. Loaded locally, only we can see it.
#pragma once

#include <cstdint>

namespace hpcrun {

inline constexpr int kMaxSampleFrames = 64;

// Loads libunwind and records our own code range. Not signal-safe; called once at start.
bool unwind_init();
// Call once on each thread before its first sample, outside any signal handler: libunwind
// creates its per-thread cache lazily, and parts of that first call are not async-signal-safe.
// When the rest is (unwind.cpp), this only prepares what is not, and the cache is created by
// the thread's first unwind, so threads that are never sampled do not pay for it.
void unwind_thread_init();

// Call path of the caller (an allocation, a thread creation): call sites (return address - 1),
// innermost first, with every frame of this library removed. Returns the number of frames.
int capture_alloc_path(uint64_t* out, int max);

// Access path of an interrupted context, from inside the signal handler: the call sites of the
// frames that called the interrupted function (return address - 1), innermost first. The
// interrupted instruction itself is not included. Returns 0 when the unwind did not pass through
// the signal frame to `interrupted_pc`.
int capture_sample_path(uint64_t interrupted_pc, uint64_t* out, int max);

// Call path of the caller without the runtime's frames and without frames in the `nskip` ranges
// [lo, hi) of `skip` (libraries between the program and the runtime, such as PAPI delivering a
// software-defined event's overflow): call sites, innermost first. Async-signal-safe as
// capture_sample_path.
struct CodeRange {
  uint64_t lo = 0, hi = 0;
  bool contains(uint64_t a) const { return a - lo < hi - lo; }
};
int capture_path_outside(const CodeRange* skip, int nskip, uint64_t* out, int max);

// The frame of the interrupted context `uc` (a ucontext_t from the kernel) whose storage holds
// the stack address `addr`: its pc (`leaf_pc` for the interrupted frame itself, the call site
// = return address - 1 for a caller) and its canonical frame address (CFA: the stack pointer
// before the call that entered it, so its storage lies below). A frame's CFA is the stack
// pointer of its caller after one unw_step, so the walk stops at the first frame whose CFA lies
// above `addr`. False when `addr` is below the interrupted frame's red zone or the walk is cut
// before reaching it (no unwind information, kMaxSampleFrames frames, a fork under way).
// Async-signal-safe as capture_sample_path; costs one unw_step per frame walked (~0.7 us).
// `owner->lo` is the lowest address of the frame's storage (its callee's CFA, or the red zone's
// bottom for the interrupted frame) and `owner->ret` the return address into its caller, which
// the call left at cfa - 8 and which stays there while the frame lives.
struct FrameOwner {
  uint64_t pc = 0, cfa = 0, lo = 0, ret = 0;
};
bool find_stack_owner(const void* uc, uint64_t leaf_pc, uint64_t addr, FrameOwner* owner);

// The runtime's own code, and that of the libraries only it runs (libunwind, Zydis).
bool address_in_runtime(uint64_t addr);

// The call site (return address - 1) through which the program entered this library: found by
// the frame-pointer chain of the calling thread, followed only through frames of this library
// (built with frame pointers; a foreign frame's saved pointer is never read). 0 when the chain
// leaves no such site within a few frames. Costs a few loads, not an unwind.
uint64_t runtime_call_site();

// fork: a child inherits libunwind's mutex locked if another thread held it at the fork, and
// pthread_atfork cannot reach it. Before the fork, new unwinds are refused (they return no
// frames) and those under way finish (bounded wait: unwinding never waits for the loader, see
// phdr_snapshot.h); after it, both processes unwind again.
void unwind_before_fork();
void unwind_after_fork(bool child);

}  // namespace hpcrun
