// The address map's large blocks (more than 4 KiB): one skip list per shard, in front of which
// the granule index of 64 KiB granules names the lowest block overlapping each granule, and the
// cross list of blocks that span a region boundary, which has no index (see heap_map.h).
// Writers hold the list's lock. A list's head sentinel is a node of its own pool, made at its
// first block (index 0 means "no node").
#include "memory/heap_map.h"

namespace hpcrun {

uint32_t HeapMap::find_preds(uint32_t head, uint64_t start, uint32_t update[kMaxLevel]) const {
  uint32_t x = head;
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

// The granules a block of a shard's list covers (all in its region, whose leaf exists).
void HeapMap::index_large(uint32_t idx) {
  Node* n = node(idx);
  const uint64_t g0 = n->start >> kLevelShift[kLargeLevel];
  const uint64_t g1 = (n->start + n->size - 1) >> kLevelShift[kLargeLevel];
  for (uint64_t g = g0; g <= g1; ++g) {
    std::atomic<uint32_t>* e = granule_head(kLargeLevel, g, false);
    if (!e) continue;  // cannot happen: insert() checked the region's leaf
    uint32_t cur = e->load(std::memory_order_relaxed);
    if (cur == kNil || node(cur)->start > n->start) e->store(idx, std::memory_order_release);
  }
}

// Before the node leaves the list: its granules go to its successor where that overlaps them.
void HeapMap::unindex_large(uint32_t idx) {
  Node* n = node(idx);
  const uint64_t g0 = n->start >> kLevelShift[kLargeLevel];
  const uint64_t g1 = (n->start + n->size - 1) >> kLevelShift[kLargeLevel];
  uint32_t succ = n->next[0].load(std::memory_order_relaxed);
  for (uint64_t g = g0; g <= g1; ++g) {
    std::atomic<uint32_t>* e = granule_head(kLargeLevel, g, false);
    if (!e || e->load(std::memory_order_relaxed) != idx) continue;
    bool overlaps = succ != kNil && node(succ)->start >> kLevelShift[kLargeLevel] <= g;
    e->store(overlaps ? succ : kNil, std::memory_order_release);
  }
}

void HeapMap::unlink(Shard& s, uint32_t idx, const uint32_t update[kMaxLevel], bool indexed) {
  Node* n = node(idx);
  if (indexed) unindex_large(idx);
  for (uint32_t l = 0; l < n->level; ++l) {
    Node* p = node(update[l]);
    if (p->next[l].load(std::memory_order_relaxed) == idx)
      p->next[l].store(n->next[l].load(std::memory_order_relaxed), std::memory_order_release);
  }
  s.large_count.store(s.large_count.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  free_node(s, idx);
}

bool HeapMap::insert_large(Shard& s, uint64_t start, uint64_t size, uint32_t site, uint32_t weight,
                           bool indexed) {
  uint32_t head = s.head.load(std::memory_order_relaxed);
  if (head == kNil) {
    // The pool has freed nothing yet, so this node is fresh from the mapping: all links nil.
    head = alloc_node(s);
    if (head == kNil) return false;
    s.head.store(head, std::memory_order_release);
  }
  uint32_t update[kMaxLevel];
  find_preds(head, start, update);
  uint32_t idx = alloc_node(s);
  if (idx == kNil) return false;
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
  n->level = uint32_t(random_level(s));
  for (uint32_t l = 0; l < n->level; ++l)
    n->next[l].store(node(update[l])->next[l].load(std::memory_order_relaxed), std::memory_order_relaxed);
  // Publish bottom-up so a reader that sees the node at level l also sees it below.
  for (uint32_t l = 0; l < n->level; ++l) node(update[l])->next[l].store(idx, std::memory_order_release);
  if (indexed) index_large(idx);
  s.large_count.store(s.large_count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  return true;
}

bool HeapMap::remove_large(Shard& s, uint64_t start, BlockInfo* out, bool indexed) {
  const uint32_t head = s.head.load(std::memory_order_relaxed);
  if (head == kNil) return false;
  uint32_t update[kMaxLevel];
  uint32_t cand = find_preds(head, start, update);
  if (cand == kNil || node(cand)->start != start) return false;
  Node* n = node(cand);
  if (out) *out = BlockInfo{n->start, n->size, n->site, n->weight, 0};
  unlink(s, cand, update, indexed);
  return true;
}

size_t HeapMap::remove_large_range(Shard& s, uint64_t lo, uint64_t hi, bool indexed) {
  const uint32_t head = s.head.load(std::memory_order_relaxed);
  if (head == kNil) return 0;
  size_t removed = 0;
  for (;;) {
    uint32_t update[kMaxLevel];
    uint32_t cand = find_preds(head, lo, update);
    if (cand == kNil || node(cand)->start >= hi) break;
    filter_sub(node(cand)->start);
    unlink(s, cand, update, indexed);
    ++removed;
  }
  return removed;
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
  // A block within one region is in that region's shard and in the granule index.
  const Shard& s = shard_of(addr);
  if (s.large_count.load(std::memory_order_relaxed) > 0) {
    const std::atomic<uint32_t>* e = granule_head(kLargeLevel, addr >> kLevelShift[kLargeLevel]);
    int found = e ? walk_large(e->load(std::memory_order_acquire), addr, out) : 0;
    if (found == 1) return true;
    if (found == -1 && search_large(s.head.load(std::memory_order_acquire), addr, out)) return true;
  }
  if (cross_.large_count.load(std::memory_order_relaxed) == 0) return false;
  return search_large(cross_.head.load(std::memory_order_acquire), addr, out);
}

bool HeapMap::search_large(uint32_t head, uint64_t addr, BlockInfo* out) const {
  if (head == kNil) return false;
  for (int attempt = 0; attempt < 16; ++attempt) {
    // The last node with start <= addr. Steps are bounded: a reader that follows stale links
    // through recycled nodes gives up and retries instead of looping.
    uint32_t x = head;
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
    if (x == head) return false;
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

}  // namespace hpcrun
