// The address map's small blocks (up to 4 KiB): per-granule lists, sorted by start, highest
// first (see heap_map.h). Writers hold the lock of the block's shard; a granule lies in one
// 64 MiB region, so each list is written under one lock.
#include "memory/heap_map.h"

namespace hpcrun {

bool HeapMap::insert_small(Shard& s, uint64_t start, uint64_t size, uint32_t site, uint32_t weight) {
  int level = size <= (uint64_t(1) << kLevelShift[0]) ? 0 : 1;
  std::atomic<uint32_t>* head = granule_head(level, start >> kLevelShift[level], true);
  if (!head) return false;
  uint32_t idx = alloc_small(s);
  SmallNode* n = idx == kNil ? nullptr : small_node(idx);
  if (!n) return false;
  // A never-used node has version 0 and a recycled one an odd version; either way make it odd
  // while its record is written, even once it is complete.
  if ((n->version.load(std::memory_order_relaxed) & 1) == 0)
    n->version.fetch_add(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  __atomic_store_n(&n->start, start, __ATOMIC_RELAXED);
  __atomic_store_n(&n->size, uint32_t(size), __ATOMIC_RELAXED);
  __atomic_store_n(&n->site, site, __ATOMIC_RELAXED);
  __atomic_store_n(&n->weight, weight, __ATOMIC_RELAXED);
  n->hits.store(0, std::memory_order_relaxed);
  // Lists are sorted by start, highest first: a lookup stops at the first block that starts at
  // or below its address, and reads only the first block of the granule before.
  std::atomic<uint32_t>* link = head;
  uint32_t x = link->load(std::memory_order_relaxed);
  for (SmallNode* xn; x != kNil && (xn = small_node(x)) != nullptr && xn->start > start;
       x = xn->next.load(std::memory_order_relaxed))
    link = &xn->next;
  n->next.store(x, std::memory_order_relaxed);
  n->version.fetch_add(1, std::memory_order_release);
  link->store(idx, std::memory_order_release);  // publishes the complete node
  // One writer per shard: no read-modify-write needed.
  s.small_count.store(s.small_count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return true;
}

bool HeapMap::remove_small(Shard& s, uint64_t start, BlockInfo* out) {
  for (int level = 0; level < kSmallLevels; ++level) {
    std::atomic<uint32_t>* link = granule_head(level, start >> kLevelShift[level], false);
    if (!link) continue;
    for (uint32_t x = link->load(std::memory_order_relaxed); x != kNil;) {
      SmallNode* n = small_node(x);
      if (!n) break;  // cannot happen for a linked node; keeps the compiler's null analysis quiet
      uint32_t next = n->next.load(std::memory_order_relaxed);
      if (n->start == start) {
        if (out) *out = BlockInfo{n->start, n->size, n->site, n->weight, 0};
        link->store(next, std::memory_order_release);
        free_small(s, x);
        s.small_count.store(s.small_count.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
        return true;
      }
      link = &n->next;
      x = next;
    }
  }
  return false;
}

// [lo, hi) lies within one region, so every granule visited is the shard's.
size_t HeapMap::remove_small_range(Shard& s, uint64_t lo, uint64_t hi) {
  size_t removed = 0;
  for (int level = 0; level < kSmallLevels && s.small_count.load(std::memory_order_relaxed) > 0; ++level) {
    const int shift = kLevelShift[level];
    const uint64_t per_leaf = uint64_t(1) << (kLeafSpanBits - shift);
    for (uint64_t g = lo >> shift; g <= (hi - 1) >> shift;) {
      std::atomic<uint32_t>* link = granule_head(level, g, false);
      if (!link) {  // absent leaves are skipped whole
        g = (g / per_leaf + 1) * per_leaf;
        continue;
      }
      for (uint32_t x = link->load(std::memory_order_relaxed); x != kNil;) {
        SmallNode* n = small_node(x);
        if (!n) break;
        uint32_t next = n->next.load(std::memory_order_relaxed);
        if (n->start >= lo && n->start < hi) {
          link->store(next, std::memory_order_release);
          filter_sub(n->start);
          free_small(s, x);
          s.small_count.store(s.small_count.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
          ++removed;
        } else {
          link = &n->next;
        }
        x = next;
      }
      ++g;
    }
  }
  return removed;
}

bool HeapMap::lookup_small(int level, uint64_t addr, BlockInfo* out) const {
  const uint64_t g = addr >> kLevelShift[level];
  // The block can start in addr's granule or, if it is no larger than a granule, the one before.
  // Lists are sorted by start, highest first: in addr's granule the first block starting at or
  // below addr is the only candidate; in the granule before, its first block is.
  for (uint64_t back = 0; back < 2 && back <= g; ++back) {
    const std::atomic<uint32_t>* head = granule_head(level, g - back);
    if (!head) continue;
    uint32_t x = head->load(std::memory_order_acquire);
    // A list holds at most 16 blocks; more steps mean stale links through recycled nodes.
    for (int steps = 0; x != kNil && steps < 64; ++steps) {
      if (step_hook) step_hook(x | kSmallRef);
      const SmallNode* n = small_node(x);
      if (!n) break;
      uint32_t v1 = n->version.load(std::memory_order_acquire);
      BlockInfo b{__atomic_load_n(&n->start, __ATOMIC_RELAXED),
                  __atomic_load_n(&n->size, __ATOMIC_RELAXED),
                  __atomic_load_n(&n->site, __ATOMIC_RELAXED),
                  __atomic_load_n(&n->weight, __ATOMIC_RELAXED), x | kSmallRef};
      uint32_t next = n->next.load(std::memory_order_acquire);
      std::atomic_thread_fence(std::memory_order_acquire);
      bool valid = (v1 & 1) == 0 && n->version.load(std::memory_order_relaxed) == v1;
      if (valid && b.start <= addr) {
        if (addr - b.start < b.size) {
          if (out) *out = b;
          return true;
        }
        break;  // blocks do not overlap: no other block of this granule holds addr
      }
      x = next;
    }
  }
  return false;
}

}  // namespace hpcrun
