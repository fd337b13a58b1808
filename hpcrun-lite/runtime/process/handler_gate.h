// Who may write a thread's calling-context tree, and when the writer may read it.
//
// Several handlers of one thread write its tree: the sampling signal's (soft samples, the
// hardware sources' record drains, the page-fault rings' drains) and PAPI's overflow handler,
// which runs in a signal of PAPI's own and can interrupt the others or be interrupted by them.
// The tree is not reentrant, so only the outermost handler on a thread may touch it; and at the
// end the writer must not read a tree a handler is still extending. One flag per thread
// (ThreadState::in_handler) and one "stopped" flag per source settle both:
//
//   handler: in_handler.exchange(1), then stopped.load()   (both sequentially consistent)
//   writer:  stopped.store(true),    then in_handler.load() until 0, bounded
//
// Either the writer sees the handler inside and waits for it, or the handler sees the writer has
// begun and leaves the tree alone. A handler that finds in_handler already 1 interrupted
// another handler of its thread: it is nested and must not touch the tree; it leaves the flag to
// the outer one. The release store at the end orders the handler's writes to the tree before the
// writer's reads (tests/unit/runtime/process/handler_gate_test.cpp, also under ThreadSanitizer).
#pragma once

#include <atomic>
#include <cstdint>

namespace hpcrun {

class HandlerGate {
 public:
  // Async-signal-safe.
  HandlerGate(std::atomic<int>& in_handler, const std::atomic<bool>& stopped)
      : flag_(in_handler),
        nested_(in_handler.exchange(1, std::memory_order_seq_cst) != 0),
        live_(!stopped.load(std::memory_order_seq_cst)) {}
  ~HandlerGate() {
    if (!nested_) flag_.store(0, std::memory_order_release);
  }
  HandlerGate(const HandlerGate&) = delete;
  HandlerGate& operator=(const HandlerGate&) = delete;

  bool nested() const { return nested_; }  // another handler of this thread is inside
  bool live() const { return live_; }      // the writer has not begun
  bool owns_tree() const { return live_ && !nested_; }

 private:
  std::atomic<int>& flag_;
  const bool nested_;
  const bool live_;
};

// The thread's own side, outside any handler (its end, a flush of its logs): blocks `signo` (the
// sampling signal) and every signal given to blocked_with_sampling (the timer's SIGTRAP) so that
// their handlers cannot interrupt, and holds the gate, for the scope. Signals not blocked here
// (PAPI's) find the gate taken and leave the tree alone.
class BlockedSignal {
 public:
  explicit BlockedSignal(int signo);  // signo <= 0: blocks nothing
  ~BlockedSignal();
  BlockedSignal(const BlockedSignal&) = delete;
  BlockedSignal& operator=(const BlockedSignal&) = delete;

 private:
  uint64_t old_ = 0;
  bool blocked_ = false;
};

class ThreadSideGate {
 public:
  ThreadSideGate(std::atomic<int>& in_handler, const std::atomic<bool>& stopped, int signo)
      : block_(signo), gate_(in_handler, stopped) {}
  bool owns_tree() const { return gate_.owns_tree(); }

 private:
  BlockedSignal block_;  // first in, last out: the gate is released before the signal returns
  HandlerGate gate_;
};

// The writer's side, after it set the source's stopped flag: waits until no handler of the thread
// is inside, yielding, until `deadline_ns` (monotonic_ns; a handler takes tens of
// microseconds, but its thread may be descheduled on a loaded machine). False when the time ran
// out. Never call it for the calling thread's own flag: the writer may run in a signal that
// interrupted that thread's handler.
bool wait_handler_quiet(const std::atomic<int>& in_handler, uint64_t deadline_ns);

// Makes every BlockedSignal from now on also block `signo`: a signal whose handler writes the
// trees (signals_own_sampling registers each sampling signal: the timer's SIGTRAP too,
// timer_signal.h). At start-up, before any thread samples.
void blocked_with_sampling(int signo);

// How long the writer waits for the handlers of all threads together.
inline constexpr uint64_t kHandlerQuietMaxNs = 200 * 1000000ull;

}  // namespace hpcrun
