// Pages made present by one system call instead of a page fault each. The runtime's tables that
// fill front to back (site records and their packed frames, tree nodes, the address map's node
// pools) took a page fault per 4 KiB as they grew; on a paravirtualized VM each costs several
// microseconds, and a 1-rank LAMMPS start-up under the tool took ~1,300 more than natively
// (perf stat -e page-faults, AMD EPYC 2-vCPU VM, 2 Dec). madvise(MADV_POPULATE_WRITE) (Linux
// 5.14) makes a stripe of them present at once, a little ahead of the fill. On an older kernel
// the call fails once and is not tried again: the pages then fault in as before.
// Async-signal-safe (a raw system call and relaxed atomics): tree nodes grow inside the handler.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hpcrun {

// How far ahead of the fill a front is populated.
inline constexpr size_t kPopulateStripe = 64 * 1024;

// Makes the whole pages inside [p, p + n) present and writable; false when the kernel cannot.
bool populate_write(void* p, size_t n);

// The populated front of a region filled from its start: before the fill writes up to `end`,
// reach() populates from where it stopped to a stripe past `end` (within [lo, hi)). A fill that
// moves to another region (a new chunk) starts over at its `lo`. Not thread-safe: one writer per
// front (the table's lock or its thread).
class PopulatedFront {
 public:
  void reach(uintptr_t lo, uintptr_t end, uintptr_t hi);
  template <class T>
  void reach(const T* lo, const void* end, size_t region_bytes) {
    const auto l = reinterpret_cast<uintptr_t>(lo);
    reach(l, reinterpret_cast<uintptr_t>(end), l + region_bytes);
  }

 private:
  uintptr_t lo_ = 0, done_ = 0;
};

}  // namespace hpcrun
