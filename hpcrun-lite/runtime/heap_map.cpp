// See heap_map.h for the concurrency design.
#include "heap_map.h"

#include "raw_sys.h"

namespace hpcrun {

// Writers hold the lock, so plain read-modify-write of a counter is enough; readers only load.
void HeapMap::filter_add(uint64_t start) {
  auto& c = filter_[bucket(start)];
  uint16_t v = c.load(std::memory_order_relaxed);
  if (v != kFilterSaturated) c.store(uint16_t(v + 1), std::memory_order_relaxed);
}

void HeapMap::filter_sub(uint64_t start) {
  auto& c = filter_[bucket(start)];
  uint16_t v = c.load(std::memory_order_relaxed);
  if (v != kFilterSaturated && v != 0) c.store(uint16_t(v - 1), std::memory_order_relaxed);
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
  node(i)->version.fetch_add(1, std::memory_order_release);  // odd: readers reject it
  node(i)->next[0].store(free_list_, std::memory_order_relaxed);
  free_list_ = i;
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

void HeapMap::unlink(uint32_t idx, const uint32_t update[kMaxLevel]) {
  Node* n = node(idx);
  for (uint32_t l = 0; l < n->level; ++l) {
    Node* p = node(update[l]);
    if (p->next[l].load(std::memory_order_relaxed) == idx)
      p->next[l].store(n->next[l].load(std::memory_order_relaxed), std::memory_order_release);
  }
  filter_sub(n->start);
  count_.fetch_sub(1, std::memory_order_relaxed);
  free_node(idx);
}

bool HeapMap::insert(uint64_t start, uint64_t size, uint32_t site) {
  lock_.lock();
  // Chunk 0 holds the head sentinel, node 0: start 0 and all links nil, as mapped.
  if (!ensure_chunk(0)) {
    lock_.unlock();
    return false;
  }
  uint32_t update[kMaxLevel];
  uint32_t cand = find_preds(start, update);
  if (cand != kNil && node(cand)->start == start) unlink(cand, update);
  uint32_t idx = alloc_node();
  bool ok = idx != kNil;
  if (ok) {
    Node* n = node(idx);
    // A never-used node has version 0 and a recycled one an odd version; either way make it odd
    // while its record is written, even once it is complete.
    if ((n->version.load(std::memory_order_relaxed) & 1) == 0)
      n->version.fetch_add(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    __atomic_store_n(&n->start, start, __ATOMIC_RELAXED);
    __atomic_store_n(&n->size, size, __ATOMIC_RELAXED);
    __atomic_store_n(&n->site, site, __ATOMIC_RELAXED);
    n->version.fetch_add(1, std::memory_order_release);
    n->level = uint32_t(random_level());
    for (uint32_t l = 0; l < n->level; ++l)
      n->next[l].store(node(update[l])->next[l].load(std::memory_order_relaxed),
                       std::memory_order_relaxed);
    // Publish bottom-up so a reader that sees the node at level l also sees it below.
    for (uint32_t l = 0; l < n->level; ++l)
      node(update[l])->next[l].store(idx, std::memory_order_release);
    filter_add(start);
    count_.fetch_add(1, std::memory_order_relaxed);
  }
  lock_.unlock();
  return ok;
}

bool HeapMap::remove(uint64_t start, BlockInfo* out) {
  if (!chunks_[0].load(std::memory_order_acquire)) return false;
  lock_.lock();
  uint32_t update[kMaxLevel];
  uint32_t cand = find_preds(start, update);
  bool found = cand != kNil && node(cand)->start == start;
  if (found) {
    if (out) *out = BlockInfo{node(cand)->start, node(cand)->size, node(cand)->site};
    unlink(cand, update);
  }
  lock_.unlock();
  return found;
}

size_t HeapMap::remove_range(uint64_t lo, uint64_t hi) {
  if (!chunks_[0].load(std::memory_order_acquire)) return 0;
  size_t removed = 0;
  lock_.lock();
  for (;;) {
    uint32_t update[kMaxLevel];
    uint32_t cand = find_preds(lo, update);
    if (cand == kNil || node(cand)->start >= hi) break;
    unlink(cand, update);
    ++removed;
  }
  lock_.unlock();
  return removed;
}

bool HeapMap::lookup(uint64_t addr, BlockInfo* out) const {
  if (!chunks_[0].load(std::memory_order_acquire)) return false;
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
                    __atomic_load_n(&xn->site, __ATOMIC_RELAXED)};
    std::atomic_thread_fence(std::memory_order_acquire);
    if (xn->version.load(std::memory_order_relaxed) != v1) continue;
    if (addr - found.start >= found.size) return false;
    if (out) *out = found;
    return true;
  }
  races_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

size_t HeapMap::footprint() const {
  size_t chunks = 0;
  for (int c = 0; c < kMaxChunks; ++c)
    if (chunks_[c].load(std::memory_order_relaxed)) ++chunks;
  return chunks * (sizeof(Node) << kChunkBits) + sizeof filter_;
}

}  // namespace hpcrun
