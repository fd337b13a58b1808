// See watch_table.h. Everything but watch_table_for_each is async-signal-safe: relaxed atomics on
// a static array, bounded probing, no errno.
#include "sources/watch/watch_table.h"

#include <atomic>

#include "base/mix.h"
#include "base/used_slots.h"

namespace hpcrun {
namespace {

constexpr uint32_t kSlots = 1u << 12;  // 2.3 MiB of zero pages, touched only where used
constexpr uint32_t kMaxProbes = 64;

struct Slot {
  std::atomic<uint64_t> key;  // 0 = empty; see pack()
  std::atomic<uint64_t> sharing_armed, reuse_armed, false_traps, true_traps, no_reuse;
  std::atomic<uint64_t> thread_mask;
  std::atomic<uint64_t> lines[kWpMaxLines];  // line number + 1, 0 = empty
  std::atomic<uint64_t> words[kWpLineWords];
  std::atomic<uint64_t> reuse[kWpReuseBins];
};

Slot g_slots[kSlots];
UsedSlots<kSlots> g_used;  // the claimed slots, for the walks at exit and after fork
std::atomic<uint64_t> g_lost{0};

// root in the top two bits (never 0), a in the next 30, b + 1 in the low 32 (so that a static's
// symbol -1 packs as 0).
uint64_t pack(const WpVarKey& k) {
  return (uint64_t(k.root & 3) << 62) | (uint64_t(k.a & 0x3fffffffu) << 32) | uint32_t(k.b + 1);
}
WpVarKey unpack(uint64_t v) {
  WpVarKey k;
  k.root = uint8_t(v >> 62);
  k.a = uint32_t(v >> 32) & 0x3fffffffu;
  k.b = uint64_t(int64_t(uint32_t(v)) - 1);
  return k;
}

Slot* slot(int32_t var) { return var >= 0 && uint32_t(var) < kSlots ? &g_slots[var] : nullptr; }

}  // namespace

int32_t wp_var(const WpVarKey& key) {
  const uint64_t want = pack(key);
  if (key.root == 0) return -1;
  for (uint32_t i = 0, h = uint32_t(mix_bits(want)); i < kMaxProbes; ++i) {
    uint32_t at = (h + i) & (kSlots - 1);
    uint64_t k = g_slots[at].key.load(std::memory_order_relaxed);
    if (k == 0 && g_slots[at].key.compare_exchange_strong(k, want, std::memory_order_relaxed)) {
      g_used.add(at);
      return int32_t(at);
    }
    if (k == want) return int32_t(at);
  }
  g_lost.fetch_add(1, std::memory_order_relaxed);
  return -1;
}

void wp_count_armed(int32_t var, bool sharing) {
  if (Slot* s = slot(var)) (sharing ? s->sharing_armed : s->reuse_armed).fetch_add(1, std::memory_order_relaxed);
}

void wp_count_sharing(int32_t var, uint64_t trap_word, WpShare kind, uint32_t thread_index) {
  Slot* s = slot(var);
  if (!s) return;
  (kind == WpShare::True ? s->true_traps : s->false_traps)
      .fetch_add(1, std::memory_order_relaxed);
  s->thread_mask.fetch_or(1ull << (thread_index & 63), std::memory_order_relaxed);
  s->words[(trap_word % kWpLineBytes) / 8].fetch_add(1, std::memory_order_relaxed);
  const uint64_t line = trap_word / kWpLineBytes + 1;
  for (auto& l : s->lines) {  // a small set: the first kWpMaxLines distinct lines
    uint64_t cur = l.load(std::memory_order_relaxed);
    if (cur == line) return;
    if (cur == 0) {
      if (l.compare_exchange_strong(cur, line, std::memory_order_relaxed) || cur == line) return;
    }
  }
}

void wp_count_reuse(int32_t var, uint64_t ns) {
  if (Slot* s = slot(var)) s->reuse[wp_reuse_bin(ns)].fetch_add(1, std::memory_order_relaxed);
}

void wp_count_no_reuse(int32_t var) {
  if (Slot* s = slot(var)) s->no_reuse.fetch_add(1, std::memory_order_relaxed);
}

int wp_record_metrics(const WpRecord& r, hpcl::Metric* out) {
  int n = 0;
  auto put = [&](uint16_t id, uint64_t v) {
    if (v) out[n++] = hpcl::Metric{id, v};
  };
  put(hpcl::kMetricWpFalse, r.false_traps);
  put(hpcl::kMetricWpTrue, r.true_traps);
  put(hpcl::kMetricWpThreads, r.threads);
  put(hpcl::kMetricWpLines, r.lines);
  put(hpcl::kMetricWpSharingArmed, r.sharing_armed);
  put(hpcl::kMetricWpReuseArmed, r.reuse_armed);
  put(hpcl::kMetricWpNoReuse, r.no_reuse);
  for (uint32_t w = 0; w < kWpLineWords; ++w) put(uint16_t(hpcl::kMetricWpWordBase + w), r.words[w]);
  for (uint32_t k = 0; k < kWpReuseBins; ++k) put(uint16_t(hpcl::kMetricWpReuseBase + k), r.reuse[k]);
  return n;
}

void watch_table_for_each(void (*fn)(const WpRecord&, void*), void* ctx) {
  g_used.for_each([&](uint32_t at) {
    const Slot& s = g_slots[at];
    uint64_t key = s.key.load(std::memory_order_acquire);
    if (key == 0) return;
    WpRecord r{};
    r.key = unpack(key);
    r.sharing_armed = s.sharing_armed.load(std::memory_order_relaxed);
    r.reuse_armed = s.reuse_armed.load(std::memory_order_relaxed);
    r.false_traps = s.false_traps.load(std::memory_order_relaxed);
    r.true_traps = s.true_traps.load(std::memory_order_relaxed);
    r.no_reuse = s.no_reuse.load(std::memory_order_relaxed);
    r.threads = uint64_t(__builtin_popcountll(s.thread_mask.load(std::memory_order_relaxed)));
    for (auto& l : s.lines) r.lines += l.load(std::memory_order_relaxed) != 0;
    for (uint32_t w = 0; w < kWpLineWords; ++w) r.words[w] = s.words[w].load(std::memory_order_relaxed);
    for (uint32_t k = 0; k < kWpReuseBins; ++k) r.reuse[k] = s.reuse[k].load(std::memory_order_relaxed);
    fn(r, ctx);
  });
}

uint64_t watch_table_lost() { return g_lost.load(std::memory_order_relaxed); }

void watch_table_reset() {
  g_used.for_each([](uint32_t at) {
    Slot& s = g_slots[at];
    s.key.store(0, std::memory_order_relaxed);
    s.sharing_armed.store(0, std::memory_order_relaxed);
    s.reuse_armed.store(0, std::memory_order_relaxed);
    s.false_traps.store(0, std::memory_order_relaxed);
    s.true_traps.store(0, std::memory_order_relaxed);
    s.no_reuse.store(0, std::memory_order_relaxed);
    s.thread_mask.store(0, std::memory_order_relaxed);
    for (auto& l : s.lines) l.store(0, std::memory_order_relaxed);
    for (auto& w : s.words) w.store(0, std::memory_order_relaxed);
    for (auto& b : s.reuse) b.store(0, std::memory_order_relaxed);
  });
  g_used.clear();  // the keys are free again
  g_lost.store(0, std::memory_order_relaxed);
}

}  // namespace hpcrun
