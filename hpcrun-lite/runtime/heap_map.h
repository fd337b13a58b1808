// The address map of tracked heap blocks: which variable (allocation site) owns an address.
//
// Readers are signal handlers on any thread: they must not block, allocate or take a lock the
// interrupted code may hold. Writers are the allocation wrappers of tracked blocks only (blocks
// of at least --min-bytes, and the sampled small ones); untracked frees never lock.
//
//  - A counting filter (one atomic counter per bucket of block starts) tells free() in one load
//    whether the pointer can be tracked at all. It is exact for a pointer the program received
//    from malloc: the increment happens before the pointer is returned, so any thread that later
//    frees it sees a non-zero count. Buckets are consecutive 16-byte granules, not a hash, so
//    neighbouring frees touch the same cache lines; a counter that saturates stays saturated
//    (always "maybe"), which is safe.
//  - The blocks themselves are in a skip list ordered by start address, linked by 32-bit indices
//    into a pool of nodes that is never unmapped. Writers serialise on a spinlock. Each node has a
//    version, odd while the node is free or being written: a reader searches without locking,
//    then reads the found node's (start, size, site) between two equal even versions, so it never
//    returns a torn or recycled record. Validating the one node, not the whole map, keeps
//    lookups succeeding while other threads malloc and free. Because nodes stay mapped and a
//    search is bounded in steps, a reader that races with a writer can follow stale links (and
//    at worst miss a block that was being inserted) but never fault or loop forever.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "spinlock.h"

namespace hpcrun {

struct BlockInfo {
  uint64_t start = 0;
  uint64_t size = 0;
  uint32_t site = 0;
};

class HeapMap {
 public:
  static constexpr int kMaxLevel = 12;
  static constexpr uint32_t kNil = 0;  // node 0 is the head sentinel

  HeapMap() = default;
  HeapMap(const HeapMap&) = delete;
  HeapMap& operator=(const HeapMap&) = delete;

  // Writers (never from a signal handler).
  // Inserts [start, start+size) for `site`. An existing block with the same start is replaced
  // (a block freed behind our back, e.g. by a munmap, must not shadow a new one).
  bool insert(uint64_t start, uint64_t size, uint32_t site);
  // Removes the block starting exactly at `start`; returns it in *out when found.
  bool remove(uint64_t start, BlockInfo* out);
  // Removes every block whose start lies in [lo, hi) (munmap of a range); returns how many.
  size_t remove_range(uint64_t lo, uint64_t hi);

  // One relaxed load: false means `start` is certainly not a tracked block start.
  bool maybe_tracked(uint64_t start) const {
    return filter_[bucket(start)].load(std::memory_order_relaxed) != 0;
  }
  static constexpr uint16_t kFilterSaturated = 0xffff;

  // Reader, async-signal-safe: the block containing addr. Returns false when no tracked block
  // contains it, or when concurrent writers kept recycling the node it found (counted in races()).
  bool lookup(uint64_t addr, BlockInfo* out) const;

  size_t size() const { return count_.load(std::memory_order_relaxed); }
  uint64_t races() const { return races_.load(std::memory_order_relaxed); }
  // Bytes of memory the map itself holds (pool chunks and filter).
  size_t footprint() const;

  // Fork support: held across fork() so the child never inherits a half-written map.
  void lock() { lock_.lock(); }
  void unlock() { lock_.unlock(); }

 private:
  struct Node {
    std::atomic<uint32_t> version;
    uint64_t start;
    uint64_t size;
    uint32_t site;
    uint32_t level;
    std::atomic<uint32_t> next[kMaxLevel];
  };
  static constexpr int kChunkBits = 14;  // 16384 nodes per chunk
  static constexpr int kMaxChunks = 4096;
  static constexpr int kFilterBits = 18;  // 256K buckets of 16-bit counters: 512 KiB

  static size_t bucket(uint64_t start) { return size_t(start >> 4) & ((1u << kFilterBits) - 1); }
  void filter_add(uint64_t start);
  void filter_sub(uint64_t start);
  Node* node(uint32_t i) const {
    Node* c = chunks_[i >> kChunkBits].load(std::memory_order_acquire);
    return c ? &c[i & ((1u << kChunkBits) - 1)] : nullptr;
  }
  bool ensure_chunk(uint32_t c);
  uint32_t alloc_node();
  void free_node(uint32_t i);
  int random_level();
  // Fills update[] with the last node before `start` on each level; returns the candidate.
  uint32_t find_preds(uint64_t start, uint32_t update[kMaxLevel]) const;
  void unlink(uint32_t idx, const uint32_t update[kMaxLevel]);

  std::atomic<Node*> chunks_[kMaxChunks] = {};
  std::atomic<uint16_t> filter_[1u << kFilterBits] = {};
  SpinLock lock_;
  std::atomic<size_t> count_{0};
  mutable std::atomic<uint64_t> races_{0};
  uint32_t pool_next_ = 1;   // next never-used index (0 is the head)
  uint32_t free_list_ = 0;   // recycled nodes, linked through next[0]
  uint64_t rng_ = 0x2545F4914F6CDD1Dull;
  int top_level_ = 1;
};

}  // namespace hpcrun
