// The runtime's one lock: a test-and-test-and-set spinlock that pauses briefly and then yields,
// because a holder may be preempted on a machine with fewer cores than threads. Never taken in a
// signal handler. Constant-initialised, so it works in globals before any constructor runs, and
// it needs no allocation or system object (a fork child can simply reset it).
#pragma once

#include <sched.h>

#include <atomic>

namespace hpcrun {

class SpinLock {
 public:
  constexpr SpinLock() = default;
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

  void lock() {
    for (int spins = 0;; ++spins) {
      if (state_.load(std::memory_order_relaxed) == 0 && try_lock()) return;
      if (spins < 64) {
        __builtin_ia32_pause();
      } else {
        spins = 0;
        sched_yield();
      }
    }
  }
  bool try_lock() {
    int expected = 0;
    return state_.compare_exchange_strong(expected, 1, std::memory_order_acquire);
  }
  void unlock() { state_.store(0, std::memory_order_release); }

 private:
  std::atomic<int> state_{0};
};

}  // namespace hpcrun
