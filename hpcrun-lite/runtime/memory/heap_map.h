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
//    frees it sees a non-zero count. Buckets are consecutive 32-byte granules (2M of them, so the
//    pattern repeats every 64 MiB), not a hash, so neighbouring frees touch the same cache lines;
//    a counter that saturates stays saturated (always "maybe"), which is safe. 32 bytes is
//    glibc's smallest chunk, so two of its blocks never share a bucket, and a page of the filter
//    covers 128 KiB of heap: with 16-byte granules its first writes were 226 of the page faults a
//    NumPy + mpi4py start-up adds (perf record -e page-faults, 2 Dec).
//  - Small blocks (up to 4 KiB) are in a granule index: for 256-byte granules (blocks up to 256
//    bytes) and 4 KiB granules (up to 4 KiB), a radix table gives the list of blocks that start
//    in each granule, sorted by start, highest first. A block no larger than its level's granule
//    can only cover its own granule and the next, so a lookup reads the list of addr's granule
//    up to the first block that starts at or below addr, and the first block of the granule
//    before (lists hold at most 8 or 16 blocks with glibc's 32-byte minimum chunk) instead of
//    searching the whole map.
//  - Larger blocks are in skip lists ordered by start address. In front of them, a third radix
//    level of 64 KiB granules names, for each granule, the skip-list node of the lowest block
//    that overlaps it: a lookup starts there and walks the bottom level forward (at most 16
//    blocks of more than 4 KiB can start in one granule) instead of descending the whole list.
//  - Writers serialise per shard: a block belongs to the shard of the 64 MiB region its start
//    lies in (64 shards, the region number modulo 64), whose spinlock covers the small lists and
//    the skip list of its blocks. glibc gives each thread's arena 64 MiB-aligned heaps of at most
//    64 MiB, so threads that allocate at once mostly take different locks and write different
//    cache lines (one lock for the whole map cost alloc_heavy's two threads ~50 ms of 1.05 s in
//    lock hand-overs). A small block starts in one region and can end in the next, which a lookup
//    covers by reading the granule before; a large block that crosses a region boundary is in
//    the one list that has no granule index (the "cross" list, with its own lock), searched when
//    not empty. The free() filter is shared, so its counters change by compare-and-swap: every
//    region maps onto the whole filter, so blocks of different shards can share a counter.
//  - Nodes of both live in pools that are never unmapped, linked by 32-bit indices; each shard
//    draws whole chunks of nodes, so a node is only ever linked into its own shard's lists. Each
//    node has a version, odd while the node is free or being
//    written: a reader searches without locking, then reads the node's record between two equal
//    even versions, so it never returns a torn or recycled record. A node that is unlinked keeps
//    its own link, so a reader standing on it continues along its old list. Because nodes stay
//    mapped and every search is bounded in steps, a reader that races with a writer can follow
//    stale links but never fault or loop.
//  - Per-node versions alone cannot tell a reader that the node it stepped to was freed and
//    recycled into another list between its reading the link and reading the node: it would then
//    follow the new list and miss a block that was live the whole time. So writers bump their
//    shard's recycle epoch before they reuse a freed node or overwrite a freed node's link
//    (seqlock order), and a lookup that found nothing retries when the epoch of a shard it read
//    (the address's, the one of the 4 KiB before it, the cross list's) moved meanwhile. A hit
//    needs no retry: its record was read between two equal even versions, so the block was live.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "base/populate.h"
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

  size_t size() const;  // sums the shards: not for a hot path
  // False while no block was ever inserted: one load, for callers that skip an unused map.
  bool ever_used() const { return ever_used_.load(std::memory_order_relaxed); }
  // Tests only (HPCRUN_LITE_TEST_MAP_BLOCKS): inserts fail beyond this many blocks, 0 = none.
  void set_limit(size_t blocks) { limit_ = blocks; }
  uint64_t races() const { return races_.load(std::memory_order_relaxed); }
  // Bytes of address space the map holds (pools, index leaves, filter); leaves are mostly
  // untouched, so resident memory is less.
  size_t footprint() const;

  // Fork support: held across fork() so the child never inherits a half-written map.
  void lock();
  void unlock();

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
  // Nodes a shard draws from the map's chunks, a whole chunk at a time.
  struct Pool {
    uint32_t next = 0;    // the next never-used index of the chunk drawn last
    uint32_t end = 0;     // one past that chunk's last index
    uint32_t free = kNil; // recycled nodes (small: linked through `site`; large: next[0])
    PopulatedFront front; // of the chunk drawn last
  };
  // The blocks of one lock (see the header comment). What its writers change sits in its own
  // cache lines, away from the other shards' and from what readers load on every lookup.
  struct alignas(64) Shard {
    SpinLock lock;
    std::atomic<uint32_t> head{kNil};  // the skip list's head sentinel, made at its first block
    std::atomic<uint64_t> epoch{0};    // recycle epoch (see the header comment)
    std::atomic<uint32_t> small_count{0};
    std::atomic<uint32_t> large_count{0};
    Pool small_pool, large_pool;
    uint64_t rng = 0;  // seeded at its first use: an all-zero map sits in .bss, not the file
  };
  static constexpr int kRegionShift = 26;  // 64 MiB: glibc's largest arena heap, and its alignment
  static constexpr int kShards = 64;
  static constexpr int kChunkBits = 14;  // 16384 skip-list nodes per chunk
  static constexpr int kMaxChunks = 4096;
  static constexpr int kSmallChunkBits = 16;  // 65536 small nodes (2 MiB) per chunk
  static constexpr int kMaxSmallChunks = 2048;  // up to 128M small blocks
  static constexpr uint32_t kSmallRef = 0x80000000u;  // ref bit: a small node
  static constexpr int kFilterBits = 21;  // 2M buckets of 8-bit counters: 2 MiB
  static constexpr int kFilterGranuleBits = 5;  // kFilterBits + 5 = kRegionShift: 1:1 per region
  // Granule levels: granule shift; leaves of the radix table cover 1 GiB of addresses.
  static constexpr int kSmallLevels = 2;
  static constexpr int kLargeLevel = 2;  // the skip lists' index
  static constexpr int kLevels = 3;
  static constexpr int kLevelShift[kLevels] = {8, 12, 16};
  static constexpr int kLeafSpanBits = 30;
  static constexpr int kTopEntries = 1 << (47 - kLeafSpanBits);  // user space is 47 bits

  // The filter covers a region 1:1 (32-byte granules of 64 MiB), and each region's 64 KiB units
  // are permuted by an XOR with a number drawn from the region: glibc's arenas all start at the
  // start of their regions, and without the permutation two threads' blocks at the same offsets
  // of their arenas would share counters and cache lines.
  static_assert(kFilterBits + kFilterGranuleBits == kRegionShift, "the filter maps a region 1:1");
  static size_t bucket(uint64_t start) {
    const uint64_t scramble = ((start >> kRegionShift) * 0x9E3779B97F4A7C15ull) >> 54;  // 10 bits
    return size_t((start >> kFilterGranuleBits) ^ (scramble << (16 - kFilterGranuleBits))) &
           ((1u << kFilterBits) - 1);
  }
  Shard& shard_of(uint64_t addr) { return shards_[(addr >> kRegionShift) & (kShards - 1)]; }
  const Shard& shard_of(uint64_t addr) const {
    return shards_[(addr >> kRegionShift) & (kShards - 1)];
  }
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
  // A new chunk for the pool (small or large nodes); false when none is left or mapping failed.
  bool draw_chunk(Pool& pool, bool small);
  uint32_t alloc_node(Shard& s);
  void free_node(Shard& s, uint32_t i);
  uint32_t alloc_small(Shard& s);
  void free_small(Shard& s, uint32_t i);
  static int random_level(Shard& s);
  static void bump_recycle_epoch(Shard& s) {
    s.epoch.store(s.epoch.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);  // before the node's new contents
  }
  // The list head of granule g of a level; nullptr when its leaf does not exist (and `create`
  // is false or mapping failed). Leaves are made by whichever writer needs one first (any shard).
  std::atomic<uint32_t>* granule_head(int level, uint64_t g, bool create);
  const std::atomic<uint32_t>* granule_head(int level, uint64_t g) const;

  // Small blocks (heap_map_small.cpp); writers hold the shard's lock.
  bool insert_small(Shard& s, uint64_t start, uint64_t size, uint32_t site, uint32_t weight);
  bool remove_small(Shard& s, uint64_t start, BlockInfo* out);
  size_t remove_small_range(Shard& s, uint64_t lo, uint64_t hi);
  bool lookup_small(int level, uint64_t addr, BlockInfo* out) const;

  // Large blocks (heap_map_large.cpp); writers hold the list's lock. `indexed`: the list is a
  // shard's, whose blocks are in the granule index; the cross list's are not.
  bool insert_large(Shard& s, uint64_t start, uint64_t size, uint32_t site, uint32_t weight,
                    bool indexed);
  bool remove_large(Shard& s, uint64_t start, BlockInfo* out, bool indexed);
  size_t remove_large_range(Shard& s, uint64_t lo, uint64_t hi, bool indexed);
  // Fills update[] with the last node before `start` on each level; returns the candidate.
  uint32_t find_preds(uint32_t head, uint64_t start, uint32_t update[kMaxLevel]) const;
  void unlink(Shard& s, uint32_t idx, const uint32_t update[kMaxLevel], bool indexed);
  void index_large(uint32_t idx);
  void unindex_large(uint32_t idx);
  bool lookup_large(uint64_t addr, BlockInfo* out) const;
  bool search_large(uint32_t head, uint64_t addr, BlockInfo* out) const;
  // 1: the block holding addr found from node x (the granule's entry); 0: certainly none;
  // -1: concurrent writers got in the way (the caller searches the skip list).
  int walk_large(uint32_t x, uint64_t addr, BlockInfo* out) const;

  bool lookup_once(uint64_t addr, BlockInfo* out) const;

  std::atomic<Node*> chunks_[kMaxChunks] = {};
  std::atomic<SmallNode*> small_chunks_[kMaxSmallChunks] = {};
  std::atomic<uint32_t> chunks_drawn_{0};
  std::atomic<uint32_t> small_chunks_drawn_{0};
  // Per level: kTopEntries pointers to leaves of 2^(30-shift) list heads; mapped when needed.
  std::atomic<std::atomic<std::atomic<uint32_t>*>*> top_[kLevels] = {};
  std::atomic<size_t> leaf_bytes_{0};  // mapped radix leaves (mostly untouched)
  mutable std::atomic<uint64_t> races_{0};
  size_t limit_ = 0;
  std::atomic<bool> ever_used_{false};  // written once, read by every munmap
  std::atomic<uint8_t> filter_[1u << kFilterBits] = {};
  Shard shards_[kShards];
  // Large blocks that cross a region boundary: not in the granule index. Its alignment also
  // keeps a global placed after the map (the runtime's configuration, read by every operator
  // new) off the lines writers change.
  Shard cross_;
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
