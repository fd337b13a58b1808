// The address map of tracked heap blocks: which variable (allocation site) owns an address, and
// with which weight (1/p: the block was tracked with probability p and stands for 1/p blocks).
//
// Readers are signal handlers on any thread: they must not block, allocate or take a lock the
// interrupted code may hold. Writers are the allocation wrappers of tracked blocks only; frees of
// untracked blocks never lock. Since every block size may be tracked, the map is built for
// millions of small blocks:
//
//  - A counting filter (one 8-bit counter per bucket of block starts) tells free() in one load
//    whether the pointer can be tracked at all. It is exact for a pointer the program received
//    from malloc: the increment happens before the pointer is returned, so any thread that later
//    frees it sees a non-zero count. Buckets are consecutive 16-byte granules (4M of them, so the
//    pattern repeats every 64 MiB), not a hash, so neighbouring frees touch the same cache lines;
//    a counter that saturates stays saturated (always "maybe"), which is safe.
//  - Small blocks (up to 4 KiB) are in a granule index: for 256-byte granules (blocks up to 256
//    bytes) and 4 KiB granules (up to 4 KiB), a radix table gives the list of blocks that start
//    in each granule, sorted by start, highest first. A block no larger than its level's granule
//    can only cover its own granule and the next, so a lookup reads the list of addr's granule
//    up to the first block that starts at or below addr, and the first block of the granule
//    before (lists hold at most 8 or 16 blocks with glibc's 32-byte minimum chunk) instead of
//    searching the whole map.
//  - Larger blocks are in a skip list ordered by start address. In front of it, a third radix
//    level of 64 KiB granules names, for each granule, the skip-list node of the lowest block
//    that overlaps it: a lookup starts there and walks the bottom level forward (at most 16
//    blocks of more than 4 KiB can start in one granule) instead of descending the whole list.
//    Blocks spanning more than 1 GiB are not entered there (too many granules); while any such
//    block exists, a lookup the index cannot answer searches the skip list.
//  - Nodes of both live in pools that are never unmapped, linked by 32-bit indices. Writers
//    serialise on a spinlock. Each node has a version, odd while the node is free or being
//    written: a reader searches without locking, then reads the node's record between two equal
//    even versions, so it never returns a torn or recycled record. A node that is unlinked keeps
//    its own link, so a reader standing on it continues along its old list. Because nodes stay
//    mapped and every search is bounded in steps, a reader that races with a writer can follow
//    stale links but never fault or loop.
//  - Per-node versions alone cannot tell a reader that the node it stepped to was freed and
//    recycled into another list between its reading the link and reading the node: it would then
//    follow the new list and miss a block that was live the whole time. So writers bump a map-wide
//    recycle epoch before they reuse a freed node or overwrite a freed node's link (seqlock
//    order), and a lookup that found nothing retries when the epoch moved meanwhile. A hit needs
//    no retry: its record was read between two equal even versions, so the block was live.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "base/spinlock.h"

namespace hpcrun {

struct BlockInfo {
  uint64_t start = 0;
  uint64_t size = 0;
  uint32_t site = 0;
  uint32_t weight = 1;  // 1/p: 1 = tracked for certain; k = tracked one in k
  uint32_t ref = 0;     // lookup only: the node, for add_hit
};

class HeapMap {
 public:
  static constexpr int kMaxLevel = 12;
  static constexpr uint32_t kNil = 0;  // node 0 is the head sentinel / "no node"
  // glibc puts a 16-byte chunk header (prev_size, size) just before each block; free() reads it.
  static constexpr uint64_t kChunkHeader = 16;
  static constexpr uint64_t kSmallMax = 4096;  // larger blocks go to the skip list

  HeapMap() = default;
  HeapMap(const HeapMap&) = delete;
  HeapMap& operator=(const HeapMap&) = delete;

  // Writers (never from a signal handler).
  // Inserts [start, start+size) for `site`. An existing block with the same start is replaced
  // (a block freed behind our back, e.g. by a munmap, must not shadow a new one).
  bool insert(uint64_t start, uint64_t size, uint32_t site, uint32_t weight = 1);
  // Removes the block starting exactly at `start`; returns it in *out when found.
  bool remove(uint64_t start, BlockInfo* out);
  // Removes every block whose start lies in [lo, hi) (munmap of a range); returns how many.
  size_t remove_range(uint64_t lo, uint64_t hi);

  // One relaxed load: false means `start` is certainly not a tracked block start.
  bool maybe_tracked(uint64_t start) const {
    return filter_[bucket(start)].load(std::memory_order_relaxed) != 0;
  }
  static constexpr uint8_t kFilterSaturated = 0xff;

  // Reader, async-signal-safe: the block containing addr. Returns false when no tracked block
  // contains it, or when concurrent writers kept recycling the node it found (counted in races()).
  bool lookup(uint64_t addr, BlockInfo* out) const;
  // Reader, async-signal-safe: the tracked block whose chunk header holds addr, i.e. addr lies
  // in [start - kChunkHeader, start). The allocator's reads and writes there (free() reading the
  // size field) are traffic caused by that block.
  bool lookup_header(uint64_t addr, BlockInfo* out) const {
    if (addr > UINT64_MAX - kChunkHeader) return false;
    BlockInfo b;
    if (!lookup(addr + kChunkHeader, &b) || b.start <= addr) return false;
    if (out) *out = b;
    return true;
  }
  // Reader, async-signal-safe: counts one more sample in the block found by lookup (b.ref) and
  // returns how many it had before. A recycled node makes the count approximate, never unsafe.
  uint32_t add_hit(uint32_t ref) const;

  // Tests only: called by lookups after each step to a node (to recycle it deterministically).
  static void (*step_hook)(uint32_t node);

  size_t size() const { return count_.load(std::memory_order_relaxed); }
  // Tests only (HPCRUN_LITE_TEST_MAP_BLOCKS): inserts fail beyond this many blocks, 0 = none.
  void set_limit(size_t blocks) { limit_ = blocks; }
  uint64_t races() const { return races_.load(std::memory_order_relaxed); }
  // Bytes of address space the map holds (pools, index leaves, filter); leaves are mostly
  // untouched, so resident memory is less.
  size_t footprint() const;

  // Fork support: held across fork() so the child never inherits a half-written map.
  void lock() { lock_.lock(); }
  void unlock() { lock_.unlock(); }

 private:
  struct Node {  // skip-list node (large blocks)
    std::atomic<uint32_t> version;
    uint32_t level;
    uint64_t start;
    uint64_t size;
    uint32_t site;
    uint32_t weight;
    mutable std::atomic<uint32_t> hits;
    std::atomic<uint32_t> next[kMaxLevel];
  };
  struct SmallNode {  // granule-index node (small blocks), 32 bytes
    std::atomic<uint32_t> version;
    std::atomic<uint32_t> next;  // next block of the same granule; kept when unlinked
    uint64_t start;
    uint32_t size;
    uint32_t site;    // while free: the next free node
    uint32_t weight;
    mutable std::atomic<uint32_t> hits;
  };
  static constexpr int kChunkBits = 14;  // 16384 skip-list nodes per chunk
  static constexpr int kMaxChunks = 4096;
  static constexpr int kSmallChunkBits = 16;  // 65536 small nodes (2 MiB) per chunk
  static constexpr int kMaxSmallChunks = 2048;  // up to 128M small blocks
  static constexpr uint32_t kSmallRef = 0x80000000u;  // ref bit: a small node
  static constexpr int kFilterBits = 22;  // 4M buckets of 8-bit counters: 4 MiB
  // Granule levels: granule shift; leaves of the radix table cover 1 GiB of addresses.
  static constexpr int kSmallLevels = 2;
  static constexpr int kLargeLevel = 2;  // the skip list's index
  static constexpr int kLevels = 3;
  static constexpr int kLevelShift[kLevels] = {8, 12, 16};
  static constexpr uint64_t kMaxIndexedGranules = 1 << 14;  // 1 GiB of 64 KiB granules
  static constexpr int kLeafSpanBits = 30;
  static constexpr int kTopEntries = 1 << (47 - kLeafSpanBits);  // user space is 47 bits

  static size_t bucket(uint64_t start) { return size_t(start >> 4) & ((1u << kFilterBits) - 1); }
  void filter_add(uint64_t start);
  void filter_sub(uint64_t start);
  Node* node(uint32_t i) const {
    Node* c = chunks_[i >> kChunkBits].load(std::memory_order_acquire);
    return c ? &c[i & ((1u << kChunkBits) - 1)] : nullptr;
  }
  SmallNode* small_node(uint32_t i) const {
    if ((i >> kSmallChunkBits) >= uint32_t(kMaxSmallChunks)) return nullptr;
    SmallNode* c = small_chunks_[i >> kSmallChunkBits].load(std::memory_order_acquire);
    return c ? &c[i & ((1u << kSmallChunkBits) - 1)] : nullptr;
  }
  bool ensure_chunk(uint32_t c);
  uint32_t alloc_node();
  void free_node(uint32_t i);
  uint32_t alloc_small();
  void free_small(uint32_t i);
  int random_level();
  // Fills update[] with the last node before `start` on each level; returns the candidate.
  uint32_t find_preds(uint64_t start, uint32_t update[kMaxLevel]) const;
  void unlink(uint32_t idx, const uint32_t update[kMaxLevel]);
  // The list head of granule g of a level; nullptr when its leaf does not exist (and `create`
  // is false or mapping failed).
  std::atomic<uint32_t>* granule_head(int level, uint64_t g, bool create);
  const std::atomic<uint32_t>* granule_head(int level, uint64_t g) const;
  bool insert_small(uint64_t start, uint64_t size, uint32_t site, uint32_t weight);
  bool remove_small(uint64_t start, BlockInfo* out);
  bool remove_large(uint64_t start, BlockInfo* out);
  bool remove_locked(uint64_t start, BlockInfo* out);
  void bump_recycle_epoch() {
    recycle_epoch_.store(recycle_epoch_.load(std::memory_order_relaxed) + 1,
                         std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);  // before the node's new contents
  }
  bool lookup_once(uint64_t addr, BlockInfo* out) const;
  bool lookup_small(int level, uint64_t addr, BlockInfo* out) const;
  bool lookup_large(uint64_t addr, BlockInfo* out) const;
  bool search_large(uint64_t addr, BlockInfo* out) const;
  // 1: the block holding addr found from node x (the granule's entry); 0: certainly none;
  // -1: concurrent writers got in the way (the caller searches the skip list).
  int walk_large(uint32_t x, uint64_t addr, BlockInfo* out) const;
  static bool large_granules(uint64_t start, uint64_t size, uint64_t* g0, uint64_t* g1);
  void index_large(uint32_t idx);
  void unindex_large(uint32_t idx);

  std::atomic<Node*> chunks_[kMaxChunks] = {};
  std::atomic<SmallNode*> small_chunks_[kMaxSmallChunks] = {};
  // Per level: kTopEntries pointers to leaves of 2^(30-shift) list heads; mapped when needed.
  std::atomic<std::atomic<std::atomic<uint32_t>*>*> top_[kLevels] = {};
  std::atomic<uint8_t> filter_[1u << kFilterBits] = {};
  SpinLock lock_;
  std::atomic<size_t> count_{0};
  std::atomic<size_t> small_count_{0};
  std::atomic<size_t> huge_count_{0};  // large blocks not in the granule index
  std::atomic<size_t> leaf_bytes_{0};  // mapped radix leaves (mostly untouched)
  mutable std::atomic<uint64_t> races_{0};
  std::atomic<uint64_t> recycle_epoch_{0};  // see the header comment
  uint32_t pool_next_ = 1;   // next never-used skip-list index (0 is the head)
  uint32_t free_list_ = 0;   // recycled skip-list nodes, linked through next[0]
  uint32_t small_next_ = 1;  // next never-used small index (0 is "none")
  uint32_t small_free_ = 0;  // recycled small nodes, linked through `site`
  uint64_t rng_ = 0x2545F4914F6CDD1Dull;
  int top_level_ = 1;
  size_t limit_ = 0;
};

// Async-signal-safe: the tracked block a sampled data address belongs to: its bytes, its chunk
// header, or (`freeing`, start 0 for none) the block the sampled thread is handing to free()
// right now, which is no longer in the map. out->ref is 0 for `freeing` (no per-block count).
inline bool find_heap_block(const HeapMap& map, const BlockInfo& freeing, uint64_t ea, BlockInfo* out) {
  if (map.lookup(ea, out) || map.lookup_header(ea, out)) return true;
  if (freeing.start != 0 &&
      ea + HeapMap::kChunkHeader - freeing.start < freeing.size + HeapMap::kChunkHeader) {
    *out = freeing;
    out->ref = 0;
    return true;
  }
  return false;
}

}  // namespace hpcrun
