// Where the malloc heap is, so that a sampled address in it that no tracked block covers can be
// reported as [untracked heap] rather than [unknown data]. Kept cheaply and read signal-safely:
//  - the main arena's brk heap: from the start of the [heap] mapping (read once at start-up)
//    to the current break (sbrk(0) only reads glibc's cached break);
//  - glibc's other arenas (threads' arenas) live in heaps of HEAP_MAX_SIZE (64 MiB on 64-bit),
//    aligned to 64 MiB. Each pointer malloc returns is checked against the calling thread's last
//    seen 64 MiB region (one TLS compare on the fast path); a new region whose chunk header says
//    NON_MAIN_ARENA is entered in a small fixed table, append-only and read without locks.
// glibc specific (chunk header layout); with another allocator the table stays empty or holds
// regions of that allocator, and addresses outside them keep the [unknown data] class.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/spinlock.h"

namespace hpcrun {

class HeapExtent {
 public:
  static constexpr uint64_t kArenaHeap = uint64_t(64) << 20;  // glibc HEAP_MAX_SIZE on 64-bit
  static constexpr int kMaxArenaHeaps = 256;

  // The brk heap starts at `lo` (0: unknown, no brk range). Not signal-safe.
  void set_brk_start(uint64_t lo) { brk_lo_.store(lo, std::memory_order_release); }
  uint64_t brk_start() const { return brk_lo_.load(std::memory_order_acquire); }
  // Enters the 64 MiB heap region starting at `base`; false when the table is full. Writers
  // only (allocation wrappers); idempotent.
  bool add_arena_heap(uint64_t base);
  // Async-signal-safe: addr lies in the brk heap [brk_start, brk_end) or in a known arena heap.
  bool contains(uint64_t addr, uint64_t brk_end) const;
  int arena_heaps() const { return count_.load(std::memory_order_acquire); }
  // Fork support: held across fork() so the child never inherits a half-added entry.
  void lock() { lock_.lock(); }
  void unlock() { lock_.unlock(); }

 private:
  std::atomic<uint64_t> brk_lo_{0};
  std::atomic<uint64_t> bases_[kMaxArenaHeaps] = {};
  std::atomic<int> count_{0};
  SpinLock lock_;
};

// glibc's chunk size field (8 bytes before a block) flags: the block is in a non-main arena
// (bit 2) and is not a chunk of its own mmap (bit 1). `p` is a block malloc just returned.
inline bool glibc_block_in_arena_heap(uint64_t p) {
  if ((p & 0xfff) == 0) return false;  // a page-aligned block may start its mapping: no header read
  uint64_t size_field = *reinterpret_cast<const uint64_t*>(p - 8);
  return (size_field & 4) != 0 && (size_field & 2) == 0;
}

// The start of the [heap] mapping in /proc/self/maps, 0 if there is none. Not signal-safe.
uint64_t read_brk_heap_start();

}  // namespace hpcrun
