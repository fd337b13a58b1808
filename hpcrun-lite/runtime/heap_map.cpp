// See heap_map.h for the concurrency design.
#include "heap_map.h"

#include <sched.h>
#include "raw_sys.h"

namespace hpcrun {

void HeapMap::lock() {
  int spins = 0;
  for (;;) {
    int expected = 0;
    if (lock_.load(std::memory_order_relaxed) == 0 &&
        lock_.compare_exchange_weak(expected, 1, std::memory_order_acquire))
      return;
    if (++spins < 64) {
      __builtin_ia32_pause();
    } else {
      spins = 0;
      sched_yield();  // the holder may be preempted; don't burn its CPU
    }
  }
}

void HeapMap::unlock() { lock_.store(0, std::memory_order_release); }

uint32_t HeapMap::alloc_node() {
  if (free_list_ != kNil) {
    uint32_t i = free_list_;
    free_list_ = node(i)->next[0].load(std::memory_order_relaxed);
    return i;
  }
  uint32_t i = pool_next_;
  uint32_t c = i >> kChunkBits;
  if (c >= uint32_t(kMaxChunks)) return kNil;
  if (!chunks_[c].load(std::memory_order_relaxed)) {
    void* mem = raw_mmap(sizeof(Node) << kChunkBits);
    if (!mem) return kNil;
    chunks_[c].store(static_cast<Node*>(mem), std::memory_order_release);
  }
  ++pool_next_;
  return i;
}

void HeapMap::free_node(uint32_t i) {
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
  filter_[bucket(n->start)].fetch_sub(1, std::memory_order_relaxed);
  count_.fetch_sub(1, std::memory_order_relaxed);
  free_node(idx);
}

bool HeapMap::insert(uint64_t start, uint64_t size, uint32_t site) {
  lock();
  if (!chunks_[0].load(std::memory_order_relaxed)) {
    // Head sentinel: node 0, start 0, links all nil.
    if (alloc_node() == kNil && !chunks_[0].load(std::memory_order_relaxed)) {
      unlock();
      return false;
    }
    pool_next_ = 1;
  }
  seq_.fetch_add(1, std::memory_order_acq_rel);  // odd: writing
  uint32_t update[kMaxLevel];
  uint32_t cand = find_preds(start, update);
  if (cand != kNil && node(cand)->start == start) unlink(cand, update);
  uint32_t idx = alloc_node();
  bool ok = idx != kNil;
  if (ok) {
    Node* n = node(idx);
    n->start = start;
    n->size = size;
    n->site = site;
    n->level = uint32_t(random_level());
    for (uint32_t l = 0; l < n->level; ++l)
      n->next[l].store(node(update[l])->next[l].load(std::memory_order_relaxed),
                       std::memory_order_relaxed);
    // Publish bottom-up so a reader that sees the node at level l also sees it below.
    for (uint32_t l = 0; l < n->level; ++l)
      node(update[l])->next[l].store(idx, std::memory_order_release);
    filter_[bucket(start)].fetch_add(1, std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
  }
  seq_.fetch_add(1, std::memory_order_release);
  unlock();
  return ok;
}

bool HeapMap::remove(uint64_t start, BlockInfo* out) {
  if (!chunks_[0].load(std::memory_order_acquire)) return false;
  lock();
  seq_.fetch_add(1, std::memory_order_acq_rel);
  uint32_t update[kMaxLevel];
  uint32_t cand = find_preds(start, update);
  bool found = cand != kNil && node(cand)->start == start;
  if (found) {
    if (out) *out = BlockInfo{node(cand)->start, node(cand)->size, node(cand)->site};
    unlink(cand, update);
  }
  seq_.fetch_add(1, std::memory_order_release);
  unlock();
  return found;
}

size_t HeapMap::remove_range(uint64_t lo, uint64_t hi) {
  if (!chunks_[0].load(std::memory_order_acquire)) return 0;
  size_t removed = 0;
  lock();
  seq_.fetch_add(1, std::memory_order_acq_rel);
  for (;;) {
    uint32_t update[kMaxLevel];
    uint32_t cand = find_preds(lo, update);
    if (cand == kNil || node(cand)->start >= hi) break;
    unlink(cand, update);
    ++removed;
  }
  seq_.fetch_add(1, std::memory_order_release);
  unlock();
  return removed;
}

bool HeapMap::lookup(uint64_t addr, BlockInfo* out) const {
  if (!chunks_[0].load(std::memory_order_acquire)) return false;
  for (int attempt = 0; attempt < 64; ++attempt) {
    uint32_t s0 = seq_.load(std::memory_order_acquire);
    if (s0 & 1) {
      __builtin_ia32_pause();
      continue;
    }
    // Find the last node with start <= addr. Steps are bounded: a reader that follows stale
    // links through recycled nodes gives up and retries instead of looping.
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
        if (!nn || nn->start > addr) break;
        x = n;
        if (++steps > 4096) { bounded = false; break; }
      }
    }
    BlockInfo found{};
    bool hit = false;
    if (bounded && x != kNil) {
      const Node* xn = node(x);
      found = BlockInfo{xn->start, xn->size, xn->site};
      hit = addr - found.start < found.size;
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    if (bounded && seq_.load(std::memory_order_relaxed) == s0) {
      if (hit && out) *out = found;
      return hit;
    }
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
