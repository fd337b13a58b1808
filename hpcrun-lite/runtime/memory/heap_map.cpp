// See heap_map.h for the concurrency design. This file holds what both kinds of block share:
// the shards and their node pools, the free() filter, the radix table of granule heads, and the
// public operations that pick a shard and a kind. heap_map_small.cpp and heap_map_large.cpp hold
// the two structures.
#include "memory/heap_map.h"

#include "base/raw_sys.h"

namespace hpcrun {

void (*HeapMap::step_hook)(uint32_t) = nullptr;

// Writers of different shards can share a counter (every region maps onto the whole filter):
// compare-and-swap, and a counter that saturates stays saturated.
void HeapMap::filter_add(uint64_t start) {
  auto& c = filter_[bucket(start)];
  uint8_t v = c.load(std::memory_order_relaxed);
  while (v != kFilterSaturated && !c.compare_exchange_weak(v, uint8_t(v + 1), std::memory_order_relaxed)) {
  }
}

void HeapMap::filter_sub(uint64_t start) {
  auto& c = filter_[bucket(start)];
  uint8_t v = c.load(std::memory_order_relaxed);
  while (v != kFilterSaturated && v != 0 &&
         !c.compare_exchange_weak(v, uint8_t(v - 1), std::memory_order_relaxed)) {
  }
}

bool HeapMap::draw_chunk(Pool& pool, bool small) {
  std::atomic<uint32_t>& drawn = small ? small_chunks_drawn_ : chunks_drawn_;
  const uint32_t max = small ? uint32_t(kMaxSmallChunks) : uint32_t(kMaxChunks);
  uint32_t c = drawn.load(std::memory_order_relaxed);
  do {
    if (c >= max) return false;
  } while (!drawn.compare_exchange_weak(c, c + 1, std::memory_order_relaxed));
  const int bits = small ? kSmallChunkBits : kChunkBits;
  void* mem = raw_mmap((small ? sizeof(SmallNode) : sizeof(Node)) << bits);
  if (!mem) return false;  // that chunk's indices stay unused
  if (small)
    small_chunks_[c].store(static_cast<SmallNode*>(mem), std::memory_order_release);
  else
    chunks_[c].store(static_cast<Node*>(mem), std::memory_order_release);
  pool.next = c << bits;
  pool.end = pool.next + (1u << bits);
  if (pool.next == kNil) ++pool.next;  // index 0 means "no node"
  return true;
}

uint32_t HeapMap::alloc_node(Shard& s) {
  Pool& p = s.large_pool;
  if (p.free != kNil) {
    bump_recycle_epoch(s);
    uint32_t i = p.free;
    p.free = node(i)->next[0].load(std::memory_order_relaxed);
    return i;
  }
  if (p.next == p.end && !draw_chunk(p, false)) return kNil;
  const uint32_t i = p.next++;
  p.front.reach(node(i & ~((1u << kChunkBits) - 1)), node(i) + 1, sizeof(Node) << kChunkBits);
  return i;
}

void HeapMap::free_node(Shard& s, uint32_t i) {
  bump_recycle_epoch(s);  // next[0] is about to join the free list
  node(i)->version.fetch_add(1, std::memory_order_release);  // odd: readers reject it
  node(i)->next[0].store(s.large_pool.free, std::memory_order_relaxed);
  s.large_pool.free = i;
}

uint32_t HeapMap::alloc_small(Shard& s) {
  Pool& p = s.small_pool;
  if (p.free != kNil) {
    bump_recycle_epoch(s);
    uint32_t i = p.free;
    SmallNode* n = small_node(i);
    if (!n) return kNil;
    p.free = n->site;
    return i;
  }
  if (p.next == p.end && !draw_chunk(p, true)) return kNil;
  const uint32_t i = p.next++;
  p.front.reach(small_node(i & ~((1u << kSmallChunkBits) - 1)), small_node(i) + 1,
                sizeof(SmallNode) << kSmallChunkBits);
  return i;
}

// The node keeps its `next`: a reader standing on it goes on along its old list.
void HeapMap::free_small(Shard& s, uint32_t i) {
  SmallNode* n = small_node(i);
  if (!n) return;
  n->version.fetch_add(1, std::memory_order_release);  // odd: readers reject it
  __atomic_store_n(&n->site, s.small_pool.free, __ATOMIC_RELAXED);  // lookups read it, atomically
  s.small_pool.free = i;
}

int HeapMap::random_level(Shard& s) {
  // xorshift64; each extra level with probability 1/4.
  if (s.rng == 0) s.rng = 0x2545F4914F6CDD1Dull;
  s.rng ^= s.rng << 13;
  s.rng ^= s.rng >> 7;
  s.rng ^= s.rng << 17;
  uint64_t r = s.rng;
  int level = 1;
  while (level < kMaxLevel && (r & 3) == 0) {
    ++level;
    r >>= 2;
  }
  return level;
}

namespace {
// Maps `bytes` and installs them in `slot` unless another writer got there first; returns what
// the slot holds then (nullptr when mapping failed).
template <typename T>
T* install_mapping(std::atomic<T*>& slot, size_t bytes, size_t* installed) {
  T* cur = slot.load(std::memory_order_acquire);
  if (cur) return cur;
  // Mostly untouched: only the pages of granules that hold blocks are ever faulted in.
  void* mem = raw_mmap(bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
  if (!mem) return nullptr;
  if (slot.compare_exchange_strong(cur, static_cast<T*>(mem), std::memory_order_acq_rel)) {
    if (installed) *installed = bytes;
    return static_cast<T*>(mem);
  }
  raw_munmap(mem, bytes);
  return cur;
}
}  // namespace

std::atomic<uint32_t>* HeapMap::granule_head(int level, uint64_t g, bool create) {
  const int shift = kLevelShift[level];
  uint64_t top_index = g >> (kLeafSpanBits - shift);
  if (top_index >= uint64_t(kTopEntries)) return nullptr;
  auto* top = top_[level].load(std::memory_order_acquire);
  if (!top) {
    if (!create) return nullptr;
    top = install_mapping(top_[level], sizeof(void*) * kTopEntries, nullptr);
    if (!top) return nullptr;
  }
  std::atomic<uint32_t>* leaf = top[top_index].load(std::memory_order_acquire);
  if (!leaf) {
    if (!create) return nullptr;
    size_t installed = 0;
    leaf = install_mapping(top[top_index], sizeof(uint32_t) << (kLeafSpanBits - shift), &installed);
    if (!leaf) return nullptr;
    leaf_bytes_.fetch_add(installed, std::memory_order_relaxed);
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

bool HeapMap::insert(uint64_t start, uint64_t size, uint32_t site, uint32_t weight) {
  // The filter is exact about absence: most inserts skip the search for an old block.
  if (maybe_tracked(start)) remove(start, nullptr);
  if (limit_ && this->size() >= limit_) return false;
  bool ok;
  if (size <= kSmallMax) {
    Shard& s = shard_of(start);
    s.lock.lock();
    ok = insert_small(s, start, size, site, weight);
    s.lock.unlock();
  } else {
    // A block within one region goes to its shard's list and the granule index (whose leaf,
    // 1 GiB of granules, holds the whole region); one that crosses a boundary, or whose leaf
    // cannot be mapped, to the cross list.
    const uint64_t last = start + size - 1;
    const bool indexed = last > start && (start >> kRegionShift) == (last >> kRegionShift) &&
                         granule_head(kLargeLevel, start >> kLevelShift[kLargeLevel], true);
    Shard& s = indexed ? shard_of(start) : cross_;
    s.lock.lock();
    ok = insert_large(s, start, size, site, weight, indexed);
    s.lock.unlock();
  }
  if (ok) {
    filter_add(start);
    if (!ever_used_.load(std::memory_order_relaxed)) ever_used_.store(true, std::memory_order_relaxed);
  }
  return ok;
}

bool HeapMap::remove(uint64_t start, BlockInfo* out) {
  Shard& s = shard_of(start);
  bool found = false;
  // A block the caller may remove was inserted before it could know the pointer, so its
  // shard's counts, read without the lock, include it.
  if (s.small_count.load(std::memory_order_relaxed) || s.large_count.load(std::memory_order_relaxed)) {
    s.lock.lock();
    found = remove_small(s, start, out) || remove_large(s, start, out, true);
    s.lock.unlock();
  }
  if (!found && cross_.large_count.load(std::memory_order_relaxed)) {
    cross_.lock.lock();
    found = remove_large(cross_, start, out, false);
    cross_.lock.unlock();
  }
  if (found) filter_sub(start);
  return found;
}

size_t HeapMap::remove_range(uint64_t lo, uint64_t hi) {
  if (hi <= lo) return 0;
  size_t removed = 0;
  // Region by region: each region's blocks are its shard's (the shard also holds other regions'
  // blocks, which the bounds leave alone).
  for (uint64_t r = lo >> kRegionShift; r <= (hi - 1) >> kRegionShift; ++r) {
    Shard& s = shards_[r & (kShards - 1)];
    if (!s.small_count.load(std::memory_order_relaxed) && !s.large_count.load(std::memory_order_relaxed))
      continue;
    const uint64_t rlo = r << kRegionShift > lo ? r << kRegionShift : lo;
    const uint64_t rend = (r + 1) << kRegionShift;
    const uint64_t rhi = rend < hi && rend != 0 ? rend : hi;
    s.lock.lock();
    removed += remove_small_range(s, rlo, rhi);
    removed += remove_large_range(s, rlo, rhi, true);
    s.lock.unlock();
  }
  if (cross_.large_count.load(std::memory_order_relaxed)) {
    cross_.lock.lock();
    removed += remove_large_range(cross_, lo, hi, false);
    cross_.lock.unlock();
  }
  return removed;
}

bool HeapMap::lookup(uint64_t addr, BlockInfo* out) const {
  // A miss counts only if no node of the shards it read was recycled meanwhile (see the header
  // comment): the address's shard, the shard of the 4 KiB before it (a small block there can
  // reach addr), and the cross list's.
  const Shard& a = shard_of(addr);
  const Shard& b = shard_of(addr >= 4096 ? addr - 4096 : 0);
  for (int attempt = 0; attempt < 64; ++attempt) {
    const uint64_t ea = a.epoch.load(std::memory_order_acquire);
    const uint64_t eb = b.epoch.load(std::memory_order_acquire);
    const uint64_t ec = cross_.epoch.load(std::memory_order_acquire);
    if (lookup_once(addr, out)) return true;
    std::atomic_thread_fence(std::memory_order_acquire);
    if (a.epoch.load(std::memory_order_relaxed) == ea && b.epoch.load(std::memory_order_relaxed) == eb &&
        cross_.epoch.load(std::memory_order_relaxed) == ec)
      return false;
  }
  races_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

bool HeapMap::lookup_once(uint64_t addr, BlockInfo* out) const {
  // Small levels first: with millions of small blocks they answer most heap samples, and for an
  // address inside a large block they cost four loads of empty heads.
  if (shard_of(addr).small_count.load(std::memory_order_relaxed) > 0 ||
      shard_of(addr >= 4096 ? addr - 4096 : 0).small_count.load(std::memory_order_relaxed) > 0)
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

size_t HeapMap::size() const {
  size_t n = cross_.large_count.load(std::memory_order_relaxed);
  for (const Shard& s : shards_)
    n += s.small_count.load(std::memory_order_relaxed) + s.large_count.load(std::memory_order_relaxed);
  return n;
}

void HeapMap::lock() {
  for (Shard& s : shards_) s.lock.lock();
  cross_.lock.lock();
}

void HeapMap::unlock() {
  cross_.lock.unlock();
  for (Shard& s : shards_) s.lock.unlock();
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
