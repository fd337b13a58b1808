// See regions.h.
#include "memory/regions.h"

#include "base/spinlock.h"

namespace hpcrun {

constinit HeapMap g_maps;
constinit HeapMap g_named;
constinit HeapMap g_arenas;

namespace {

constinit SpinLock g_regions_lock;

// The caller holds the regions lock.
void carve_locked(HeapMap& map, uint64_t lo, uint64_t hi) {
  if (hi <= lo || !map.ever_used()) return;
  BlockInfo head, tail;
  // The entry straddling lo keeps [start, lo); the one straddling hi keeps [hi, end). One entry
  // may straddle both: it keeps both ends.
  bool have_head = lo > 0 && map.lookup(lo - 1, &head) && head.start + head.size > lo;
  bool have_tail = map.lookup(hi, &tail) && tail.start < hi;
  if (have_head) map.remove(head.start, nullptr);
  if (have_tail && !(have_head && tail.start == head.start)) map.remove(tail.start, nullptr);
  map.remove_range(lo, hi);
  if (have_head) map.insert(head.start, lo - head.start, head.site, head.weight);
  if (have_tail) map.insert(hi, tail.start + tail.size - hi, tail.site, tail.weight);
}

}  // namespace

void carve(HeapMap& map, uint64_t lo, uint64_t hi) {
  g_regions_lock.lock();
  carve_locked(map, lo, hi);
  g_regions_lock.unlock();
}

bool insert_carved(HeapMap& map, uint64_t lo, uint64_t hi, uint32_t site) {
  if (hi <= lo) return false;
  g_regions_lock.lock();
  carve_locked(map, lo, hi);
  bool ok = map.insert(lo, hi - lo, site, 1);
  g_regions_lock.unlock();
  return ok;
}

void regions_fork_prepare() {
  g_regions_lock.lock();
  g_named.lock();
  g_maps.lock();
  g_arenas.lock();
}

void regions_fork_parent() {
  g_arenas.unlock();
  g_maps.unlock();
  g_named.unlock();
  g_regions_lock.unlock();
}

void regions_fork_child() { regions_fork_parent(); }

bool find_variable_block(const HeapMap& heap, const BlockInfo& freeing, uint64_t ea, BlockInfo* out) {
  if (g_named.ever_used() && g_named.lookup(ea, out)) return true;
  if (find_heap_block(heap, freeing, ea, out)) return true;
  return g_maps.ever_used() && g_maps.lookup(ea, out);
}

}  // namespace hpcrun
