// The slots a fixed, statically allocated table has claimed, in the order they were claimed, so
// that a walk of the table (the writer at exit, a forked child's reset) touches the claimed
// slots' pages only. The offset histograms and the watchpoint results are tables of zero pages
// (2.4 and 2.3 MiB) of which a run uses a few slots: walking every slot cost each process about
// 1,200 page faults at exit, and a forked child as many again (perf record -e page-faults on
// LAMMPS `run 0`: 19% of the process's faults).
// add() is async-signal-safe (two relaxed/release atomics, no allocation): it is called by the
// handler that won the slot. A walk while a slot is being claimed may miss that slot.
#pragma once

#include <atomic>
#include <cstdint>

namespace hpcrun {

template <uint32_t N>
class UsedSlots {
 public:
  // Records that `slot` (< N) was claimed; each slot at most once until clear().
  void add(uint32_t slot) {
    const uint32_t i = count_.fetch_add(1, std::memory_order_relaxed);
    if (i < N) slots_[i].store(slot + 1, std::memory_order_release);
  }
  // Calls fn(slot) for each slot recorded.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    const uint32_t n = count_.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n && i < N; ++i)
      if (uint32_t v = slots_[i].load(std::memory_order_acquire)) fn(v - 1);
  }
  // Forgets every slot (the table's own slots are the caller's to clear, first).
  void clear() {
    const uint32_t n = count_.load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < n && i < N; ++i) slots_[i].store(0, std::memory_order_relaxed);
    count_.store(0, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint32_t> count_{0};
  std::atomic<uint32_t> slots_[N] = {};
};

}  // namespace hpcrun
