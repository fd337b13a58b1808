// See heap_map.h for the concurrency design.
#include "memory/heap_map.h"

#include "base/raw_sys.h"

namespace hpcrun {

void (*HeapMap::step_hook)(uint32_t) = nullptr;

// Writers hold the lock, so plain read-modify-write of a counter is enough; readers only load.
void HeapMap::filter_add(uint64_t start) {
  auto& c = filter_[bucket(start)];
  uint8_t v = c.load(std::memory_order_relaxed);
  if (v != kFilterSaturated) c.store(uint8_t(v + 1), std::memory_order_relaxed);
}

void HeapMap::filter_sub(uint64_t start) {
  auto& c = filter_[bucket(start)];
  uint8_t v = c.load(std::memory_order_relaxed);
  if (v != kFilterSaturated && v != 0) c.store(uint8_t(v - 1), std::memory_order_relaxed);
}

bool HeapMap::ensure_chunk(uint32_t c) {
  if (chunks_[c].load(std::memory_order_relaxed)) return true;
  void* mem = raw_mmap(sizeof(Node) << kChunkBits);
  if (!mem) return false;
  chunks_[c].store(static_cast<Node*>(mem), std::memory_order_release);
  return true;
}

uint32_t HeapMap::alloc_node() {
  if (free_list_ != kNil) {
    bump_recycle_epoch();
    uint32_t i = free_list_;
    free_list_ = node(i)->next[0].load(std::memory_order_relaxed);
    return i;
  }
  uint32_t i = pool_next_;
  uint32_t c = i >> kChunkBits;
  if (c >= uint32_t(kMaxChunks) || !ensure_chunk(c)) return kNil;
  ++pool_next_;
  return i;
}

void HeapMap::free_node(uint32_t i) {
  bump_recycle_epoch();  // next[0] is about to join the free list
  node(i)->version.fetch_add(1, std::memory_order_release);  // odd: readers reject it
  node(i)->next[0].store(free_list_, std::memory_order_relaxed);
  free_list_ = i;
}

uint32_t HeapMap::alloc_small() {
  if (small_free_ != kNil) {
    bump_recycle_epoch();
    uint32_t i = small_free_;
    SmallNode* n = small_node(i);
    if (!n) return kNil;
    small_free_ = n->site;
    return i;
  }
  uint32_t i = small_next_;
  uint32_t c = i >> kSmallChunkBits;
  if (c >= uint32_t(kMaxSmallChunks)) return kNil;
  if (!small_chunks_[c].load(std::memory_order_relaxed)) {
    void* mem = raw_mmap(sizeof(SmallNode) << kSmallChunkBits);
    if (!mem) return kNil;
    small_chunks_[c].store(static_cast<SmallNode*>(mem), std::memory_order_release);
  }
  ++small_next_;
  return i;
}

// The node keeps its `next`: a reader standing on it goes on along its old list.
void HeapMap::free_small(uint32_t i) {
  SmallNode* n = small_node(i);
  if (!n) return;
  n->version.fetch_add(1, std::memory_order_release);  // odd: readers reject it
  __atomic_store_n(&n->site, small_free_, __ATOMIC_RELAXED);  // lookups read it, atomically
  small_free_ = i;
}

int HeapMap::random_level() {
  // xorshift64; each extra level with probability 1/4.
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  uint64_t r = rng_;
  int level = 1;
  while (level < kMaxLevel && (r & 3) == 0) {
    ++level;
    r >>= 2;
  }
  return level;
}

uint32_t HeapMap::find_preds(uint64_t start, uint32_t update[kMaxLevel]) const {
  uint32_t x = kNil;
  for (int l = kMaxLevel - 1; l >= 0; --l) {
    for (;;) {
      uint32_t n = node(x)->next[l].load(std::memory_order_relaxed);
      if (n == kNil || node(n)->start >= start) break;
      x = n;
    }
    update[l] = x;
  }
  return node(x)->next[0].load(std::memory_order_relaxed);
}

// The 64 KiB granules [g0, g1] a large block covers; false when they are too many to index.
bool HeapMap::large_granules(uint64_t start, uint64_t size, uint64_t* g0, uint64_t* g1) {
  *g0 = start >> kLevelShift[kLargeLevel];
  *g1 = (start + (size ? size - 1 : 0)) >> kLevelShift[kLargeLevel];
  return *g1 - *g0 < kMaxIndexedGranules;
}

// Writers hold the lock. The granules a block covers, unless it covers too many.
void HeapMap::index_large(uint32_t idx) {
  Node* n = node(idx);
  uint64_t g0, g1;
  if (!large_granules(n->start, n->size, &g0, &g1)) {
    huge_count_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  for (uint64_t g = g0; g <= g1; ++g) {
    std::atomic<uint32_t>* e = granule_head(kLargeLevel, g, true);
    if (!e) {  // no memory for the index: lookups must search the list
      huge_count_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    uint32_t cur = e->load(std::memory_order_relaxed);
    if (cur == kNil || node(cur)->start > n->start) e->store(idx, std::memory_order_release);
  }
}

// Before the node leaves the list: its granules go to its successor where that overlaps them.
void HeapMap::unindex_large(uint32_t idx) {
  Node* n = node(idx);
  uint64_t g0, g1;
  if (!large_granules(n->start, n->size, &g0, &g1)) {
    huge_count_.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  uint32_t succ = n->next[0].load(std::memory_order_relaxed);
  for (uint64_t g = g0; g <= g1; ++g) {
    std::atomic<uint32_t>* e = granule_head(kLargeLevel, g, false);
    if (!e || e->load(std::memory_order_relaxed) != idx) continue;
    bool overlaps = succ != kNil && node(succ)->start >> kLevelShift[kLargeLevel] <= g;
    e->store(overlaps ? succ : kNil, std::memory_order_release);
  }
}

void HeapMap::unlink(uint32_t idx, const uint32_t update[kMaxLevel]) {
  Node* n = node(idx);
  unindex_large(idx);
  for (uint32_t l = 0; l < n->level; ++l) {
    Node* p = node(update[l]);
    if (p->next[l].load(std::memory_order_relaxed) == idx)
      p->next[l].store(n->next[l].load(std::memory_order_relaxed), std::memory_order_release);
  }
  filter_sub(n->start);
  count_.fetch_sub(1, std::memory_order_relaxed);
  free_node(idx);
}

std::atomic<uint32_t>* HeapMap::granule_head(int level, uint64_t g, bool create) {
  const int shift = kLevelShift[level];
  uint64_t top_index = g >> (kLeafSpanBits - shift);
  if (top_index >= uint64_t(kTopEntries)) return nullptr;
  auto* top = top_[level].load(std::memory_order_acquire);
  if (!top) {
    if (!create) return nullptr;
    top = static_cast<std::atomic<std::atomic<uint32_t>*>*>(
        raw_mmap(sizeof(void*) * kTopEntries, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE));
    if (!top) return nullptr;
    top_[level].store(top, std::memory_order_release);
  }
  std::atomic<uint32_t>* leaf = top[top_index].load(std::memory_order_acquire);
  if (!leaf) {
    if (!create) return nullptr;
    // Mostly untouched: only the pages of granules that hold blocks are ever faulted in.
    leaf = static_cast<std::atomic<uint32_t>*>(
        raw_mmap(sizeof(uint32_t) << (kLeafSpanBits - shift), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE));
    if (!leaf) return nullptr;
    top[top_index].store(leaf, std::memory_order_release);
    leaf_bytes_.fetch_add(sizeof(uint32_t) << (kLeafSpanBits - shift), std::memory_order_relaxed);
  }
  return &leaf[g & ((uint64_t(1) << (kLeafSpanBits - shift)) - 1)];
}

const std::atomic<uint32_t>* HeapMap::granule_head(int level, uint64_t g) const {
  const int shift = kLevelShift[level];
  uint64_t top_index = g >> (kLeafSpanBits - shift);
  if (top_index >= uint64_t(kTopEntries)) return nullptr;
  auto* top = top_[level].load(std::memory_order_acquire);
  if (!top) return nullptr;
  const std::atomic<uint32_t>* leaf = top[top_index].load(std::memory_order_acquire);
  if (!leaf) return nullptr;
  return &leaf[g & ((uint64_t(1) << (kLeafSpanBits - shift)) - 1)];
}

bool HeapMap::insert_small(uint64_t start, uint64_t size, uint32_t site, uint32_t weight) {
  int level = size <= (uint64_t(1) << kLevelShift[0]) ? 0 : 1;
  std::atomic<uint32_t>* head = granule_head(level, start >> kLevelShift[level], true);
  if (!head) return false;
  uint32_t idx = alloc_small();
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
  small_count_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool HeapMap::remove_small(uint64_t start, BlockInfo* out) {
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
        free_small(x);
        small_count_.fetch_sub(1, std::memory_order_relaxed);
        return true;
      }
      link = &n->next;
      x = next;
    }
  }
  return false;
}

bool HeapMap::remove_large(uint64_t start, BlockInfo* out) {
  if (!chunks_[0].load(std::memory_order_relaxed)) return false;
  uint32_t update[kMaxLevel];
  uint32_t cand = find_preds(start, update);
  if (cand == kNil || node(cand)->start != start) return false;
  Node* n = node(cand);
  if (out) *out = BlockInfo{n->start, n->size, n->site, n->weight, 0};
  unlink(cand, update);
  return true;
}

bool HeapMap::remove_locked(uint64_t start, BlockInfo* out) {
  if (remove_small(start, out)) {
    filter_sub(start);
    count_.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }
  return remove_large(start, out);  // unlink() keeps the filter and count
}

bool HeapMap::insert(uint64_t start, uint64_t size, uint32_t site, uint32_t weight) {
  lock_.lock();
  // The filter is exact about absence: most inserts skip the search for an old block.
  if (maybe_tracked(start)) remove_locked(start, nullptr);
  bool ok;
  if (limit_ && count_.load(std::memory_order_relaxed) >= limit_) {
    ok = false;
  } else if (size <= kSmallMax) {
    ok = insert_small(start, size, site, weight);
  } else if (!ensure_chunk(0)) {
    // Chunk 0 holds the head sentinel, node 0: start 0 and all links nil, as mapped.
    ok = false;
  } else {
    uint32_t update[kMaxLevel];
    find_preds(start, update);
    uint32_t idx = alloc_node();
    ok = idx != kNil;
    if (ok) {
      Node* n = node(idx);
      if ((n->version.load(std::memory_order_relaxed) & 1) == 0)
        n->version.fetch_add(1, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_release);
      __atomic_store_n(&n->start, start, __ATOMIC_RELAXED);
      __atomic_store_n(&n->size, size, __ATOMIC_RELAXED);
      __atomic_store_n(&n->site, site, __ATOMIC_RELAXED);
      __atomic_store_n(&n->weight, weight, __ATOMIC_RELAXED);
      n->hits.store(0, std::memory_order_relaxed);
      n->version.fetch_add(1, std::memory_order_release);
      n->level = uint32_t(random_level());
      for (uint32_t l = 0; l < n->level; ++l)
        n->next[l].store(node(update[l])->next[l].load(std::memory_order_relaxed),
                         std::memory_order_relaxed);
      // Publish bottom-up so a reader that sees the node at level l also sees it below.
      for (uint32_t l = 0; l < n->level; ++l)
        node(update[l])->next[l].store(idx, std::memory_order_release);
      index_large(idx);
    }
  }
  if (ok) {
    filter_add(start);
    count_.fetch_add(1, std::memory_order_relaxed);
  }
  lock_.unlock();
  return ok;
}

bool HeapMap::remove(uint64_t start, BlockInfo* out) {
  lock_.lock();
  bool found = remove_locked(start, out);
  lock_.unlock();
  return found;
}

size_t HeapMap::remove_range(uint64_t lo, uint64_t hi) {
  if (hi <= lo) return 0;
  size_t removed = 0;
  lock_.lock();
  // Small blocks: the granules of the range, leaf by leaf (absent leaves are skipped whole).
  for (int level = 0; level < kSmallLevels && small_count_.load(std::memory_order_relaxed) > 0;
       ++level) {
    const int shift = kLevelShift[level];
    const uint64_t per_leaf = uint64_t(1) << (kLeafSpanBits - shift);
    for (uint64_t g = lo >> shift; g <= (hi - 1) >> shift;) {
      std::atomic<uint32_t>* link = granule_head(level, g, false);
      if (!link) {
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
          free_small(x);
          small_count_.fetch_sub(1, std::memory_order_relaxed);
          count_.fetch_sub(1, std::memory_order_relaxed);
          ++removed;
        } else {
          link = &n->next;
        }
        x = next;
      }
      ++g;
    }
  }
  if (chunks_[0].load(std::memory_order_relaxed)) {
    for (;;) {
      uint32_t update[kMaxLevel];
      uint32_t cand = find_preds(lo, update);
      if (cand == kNil || node(cand)->start >= hi) break;
      unlink(cand, update);
      ++removed;
    }
  }
  lock_.unlock();
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

int HeapMap::walk_large(uint32_t x, uint64_t addr, BlockInfo* out) const {
  BlockInfo best;
  bool have = false;
  // At most 16 blocks of more than 4 KiB start in one 64 KiB granule; more steps mean links
  // through recycled nodes.
  for (int steps = 0; x != kNil; ++steps) {
    if (step_hook) step_hook(x);
    const Node* n = node(x);
    if (!n || steps >= 64) return -1;
    uint32_t v1 = n->version.load(std::memory_order_acquire);
    BlockInfo b{__atomic_load_n(&n->start, __ATOMIC_RELAXED),
                __atomic_load_n(&n->size, __ATOMIC_RELAXED),
                __atomic_load_n(&n->site, __ATOMIC_RELAXED),
                __atomic_load_n(&n->weight, __ATOMIC_RELAXED), x};
    uint32_t next = n->next[0].load(std::memory_order_acquire);
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((v1 & 1) || n->version.load(std::memory_order_relaxed) != v1) return -1;
    if (b.start > addr) break;
    best = b;
    have = true;
    x = next;
  }
  if (!have || addr - best.start >= best.size) return 0;
  if (out) *out = best;
  return 1;
}

bool HeapMap::lookup_large(uint64_t addr, BlockInfo* out) const {
  if (!chunks_[0].load(std::memory_order_acquire)) return false;
  const std::atomic<uint32_t>* e = granule_head(kLargeLevel, addr >> kLevelShift[kLargeLevel]);
  int found = e ? walk_large(e->load(std::memory_order_acquire), addr, out) : 0;
  if (found == 1) return true;
  if (found == 0 && huge_count_.load(std::memory_order_relaxed) == 0) return false;
  return search_large(addr, out);
}

bool HeapMap::search_large(uint64_t addr, BlockInfo* out) const {
  for (int attempt = 0; attempt < 16; ++attempt) {
    // The last node with start <= addr. Steps are bounded: a reader that follows stale links
    // through recycled nodes gives up and retries instead of looping.
    uint32_t x = kNil;
    int steps = 0;
    bool bounded = true;
    for (int l = kMaxLevel - 1; l >= 0 && bounded; --l) {
      for (;;) {
        const Node* xn = node(x);
        if (!xn) { bounded = false; break; }
        uint32_t n = xn->next[l].load(std::memory_order_acquire);
        if (n == kNil) break;
        const Node* nn = node(n);
        if (!nn || __atomic_load_n(&nn->start, __ATOMIC_RELAXED) > addr) break;
        x = n;
        if (++steps > 4096) { bounded = false; break; }
      }
    }
    if (!bounded) continue;
    if (x == kNil) return false;
    const Node* xn = node(x);
    uint32_t v1 = xn->version.load(std::memory_order_acquire);
    if (v1 & 1) continue;  // freed or being rewritten under us
    BlockInfo found{__atomic_load_n(&xn->start, __ATOMIC_RELAXED),
                    __atomic_load_n(&xn->size, __ATOMIC_RELAXED),
                    __atomic_load_n(&xn->site, __ATOMIC_RELAXED),
                    __atomic_load_n(&xn->weight, __ATOMIC_RELAXED), x};
    std::atomic_thread_fence(std::memory_order_acquire);
    if (xn->version.load(std::memory_order_relaxed) != v1) continue;
    if (addr - found.start >= found.size) return false;
    if (out) *out = found;
    return true;
  }
  races_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

bool HeapMap::lookup(uint64_t addr, BlockInfo* out) const {
  // A miss counts only if no node was recycled while we searched (see the header comment).
  for (int attempt = 0; attempt < 64; ++attempt) {
    uint64_t epoch = recycle_epoch_.load(std::memory_order_acquire);
    if (lookup_once(addr, out)) return true;
    std::atomic_thread_fence(std::memory_order_acquire);
    if (recycle_epoch_.load(std::memory_order_relaxed) == epoch) return false;
  }
  races_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

bool HeapMap::lookup_once(uint64_t addr, BlockInfo* out) const {
  // Small levels first: with millions of small blocks they answer most heap samples, and for an
  // address inside a large block they cost four loads of empty heads.
  if (small_count_.load(std::memory_order_relaxed) > 0)
    for (int level = 0; level < kSmallLevels; ++level)
      if (lookup_small(level, addr, out)) return true;
  return lookup_large(addr, out);
}

uint32_t HeapMap::add_hit(uint32_t ref) const {
  if (ref & kSmallRef) {
    const SmallNode* n = small_node(ref & ~kSmallRef);
    return n ? n->hits.fetch_add(1, std::memory_order_relaxed) : 0;
  }
  const Node* n = node(ref);
  return n ? n->hits.fetch_add(1, std::memory_order_relaxed) : 0;
}

size_t HeapMap::footprint() const {
  size_t chunks = 0, small = 0;
  for (int c = 0; c < kMaxChunks; ++c)
    if (chunks_[c].load(std::memory_order_relaxed)) ++chunks;
  for (int c = 0; c < kMaxSmallChunks; ++c)
    if (small_chunks_[c].load(std::memory_order_relaxed)) ++small;
  return chunks * (sizeof(Node) << kChunkBits) + small * (sizeof(SmallNode) << kSmallChunkBits) +
         sizeof filter_ + leaf_bytes_.load(std::memory_order_relaxed);
}

}  // namespace hpcrun
