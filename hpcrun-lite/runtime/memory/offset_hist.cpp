// See offset_hist.h. Everything reachable from offsets_count() is async-signal-safe: no
// allocation, no lock, only relaxed atomics on a static array, and errno is never touched.
#include "memory/offset_hist.h"

#include <atomic>

#include "base/mix.h"
#include "base/used_slots.h"

namespace hpcrun {
namespace {

constexpr uint32_t kSlots = 1u << 14;  // 2.4 MiB of zero pages, touched only where used
constexpr uint32_t kMaxProbes = 64;

// Key 0 = empty. Heap: 1 in the top two bits, the site id below. Static: 2 in the top two bits,
// the module in bits 32..61 and the symbol index + 1 in the low 32 bits.
constexpr uint64_t kHeapTag = 1ull << 62, kStaticTag = 2ull << 62, kTagMask = 3ull << 62;

struct Slot {
  std::atomic<uint64_t> key;
  std::atomic<uint64_t> min_inverted;  // ~min, so that zero means "none" and both are a max
  std::atomic<uint64_t> max;
  std::atomic<uint32_t> bins[kOffsetBinCount];
};

Slot g_slots[kSlots];
UsedSlots<kSlots> g_used;  // the claimed slots, for the walks at exit and after fork
std::atomic<uint64_t> g_lost{0};

Slot* claim(uint64_t key) {
  for (uint32_t i = 0, h = uint32_t(mix_bits(key)); i < kMaxProbes; ++i) {
    const uint32_t at = (h + i) & (kSlots - 1);
    Slot& s = g_slots[at];
    uint64_t k = s.key.load(std::memory_order_relaxed);
    if (k == 0 && s.key.compare_exchange_strong(k, key, std::memory_order_relaxed)) {
      g_used.add(at);
      return &s;
    }
    if (k == key) return &s;  // ours already, or another thread just claimed it for us
  }
  return nullptr;
}

void atomic_max(std::atomic<uint64_t>& a, uint64_t v) {
  uint64_t cur = a.load(std::memory_order_relaxed);
  while (cur < v && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

// The extent of the static variable `hit` and the offset of `ea` in it; false when `ea` is not
// inside it as seen from this thread (another thread's TLS, a module's dynamic TLS block).
bool static_extent(uint64_t ea, uint64_t tp, const StaticHit& hit, uint64_t* offset, uint64_t* size) {
  *offset = 0;
  *size = 0;
  const ModuleEntry* m = module_get(hit.module);
  if (m == nullptr) return false;
  // modules_find_static() looks at a module's TLS block before its segments, so does this.
  const uint64_t tls_block = tp - m->tls_offset;
  const bool tls = m->has_static_tls && tp && ea - tls_block < m->tls_size;
  uint64_t start;
  if (hit.symbol >= 0 && uint64_t(hit.symbol) < m->symbols.count) {
    const DataSymbol& s = m->symbols.syms[hit.symbol];
    start = (tls ? tls_block : m->bias) + s.value;
    *size = s.size;
  } else if (tls) {
    start = tls_block;
    *size = m->tls_size;
  } else {  // the writer gives such a variable the module's extent as its size
    start = m->lo;
    *size = m->hi - m->lo;
  }
  if (ea < start || (*size > 0 && ea - start >= *size)) return false;
  *offset = ea - start;
  return true;
}

}  // namespace

void offsets_count(uint64_t ea, uint64_t tp, const BlockInfo* heap, const StaticHit* stat) {
  uint64_t key, offset, size;
  if (heap != nullptr) {
    key = kHeapTag | heap->site;
    offset = ea - heap->start;
    size = heap->size;
  } else if (stat != nullptr) {
    key = kStaticTag | (uint64_t(stat->module) << 32) | uint32_t(stat->symbol + 1);
    if (!static_extent(ea, tp, *stat, &offset, &size)) {
      g_lost.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  } else {
    return;
  }
  Slot* s = claim(key);
  if (s == nullptr) {
    g_lost.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  s->bins[offset_bin(offset, size)].fetch_add(1, std::memory_order_relaxed);
  atomic_max(s->min_inverted, ~offset);
  atomic_max(s->max, offset);
}

void offsets_for_each(void (*fn)(const OffsetRecord&, void*), void* ctx) {
  g_used.for_each([&](uint32_t at) {
    const Slot& s = g_slots[at];
    uint64_t key = s.key.load(std::memory_order_acquire);
    if (key == 0) return;
    OffsetRecord r{};
    uint64_t total = 0;
    for (uint32_t b = 0; b < kOffsetBinCount; ++b)
      total += r.bins[b] = s.bins[b].load(std::memory_order_relaxed);
    if (total == 0) return;
    r.is_static = (key & kTagMask) == kStaticTag;
    r.site = uint32_t(key);
    r.module = uint32_t((key & ~kTagMask) >> 32);
    r.symbol = int64_t(uint32_t(key)) - 1;
    r.min = ~s.min_inverted.load(std::memory_order_relaxed);
    r.max = s.max.load(std::memory_order_relaxed);
    fn(r, ctx);
  });
}

uint64_t offsets_lost() { return g_lost.load(std::memory_order_relaxed); }

void offsets_reset() {
  // The keys stay claimed (and listed): a forked child counts its samples in the same slots.
  g_used.for_each([](uint32_t at) {
    Slot& s = g_slots[at];
    for (auto& b : s.bins) b.store(0, std::memory_order_relaxed);
    s.min_inverted.store(0, std::memory_order_relaxed);
    s.max.store(0, std::memory_order_relaxed);
  });
  g_lost.store(0, std::memory_order_relaxed);
}

}  // namespace hpcrun
