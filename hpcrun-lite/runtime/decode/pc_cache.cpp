// The decoder's per-PC cache of decisions (see pc_cache.h): a fixed table of atomic words,
// written and read from signal handlers without locks.
#include "decode/pc_cache.h"

#include <atomic>

namespace hpcrun {
namespace {

// PC cache: 64K slots of three atomic words, key, value and the access recipe (pc_decision.h).
//   key    = pc << 16 | rule << 8 | (choice + 1) << 1 | ready; 0 = empty.
//   value  = offset or prev_len (16 bits) | nfixes << 16 | fix0 reg << 20 | fix0 delta << 24 |
//            fix1 reg << 40 | fix1 delta << 44.
//   recipe = valid | at_pc << 1 | kind << 2 | size << 4 | is_write << 12 | base << 13 |
//            base width << 18 | index << 20 | index width << 25 | scale << 27 | addr32 << 29 |
//            fs << 30 | disp << 32.
// A writer claims a slot by a CAS of the key from what it saw (0 = empty, or a ready entry it
// evicts) to pc << 16 (not ready), stores the value and the recipe, then publishes the key with
// the ready bit (release). A reader that finds the pc not yet ready treats it as a miss (and
// decides again itself); a reader re-reads the key after the value and the recipe and takes them
// only if the key did not change, so an entry evicted or invalidated under it is a miss, never a
// mixed decision. No
// one waits for anyone: a handler that interrupts a writer between claim and publish only
// decides once more (and the slot stays claimed, unready, until an eviction takes it over).
// Open addressing within a window of kProbe slots from the hash. The table is bounded: when the
// window is full, a put evicts one ready entry of it, chosen round robin from a global cursor
// (random replacement: no per-entry age to maintain from handlers). Entries of an unmapped
// library are cleared (decode_cache_invalidate), so a lookup reads the whole window rather than
// stopping at the first empty slot.

constexpr unsigned kCacheBits = 16;
constexpr uint64_t kCacheSlots = uint64_t{1} << kCacheBits;
// A window of a whole group: lines of code share groups by hash, and with a window of 16 slots
// two or three dense lines in one group evicted each other at a quarter of the table's size
// (decode.DecodeConcurrency: 185 evictions for 15,464 pcs; 11-22 with 32).
constexpr unsigned kProbe = 32;

struct alignas(32) CacheSlot {
  std::atomic<uint64_t> key;
  std::atomic<uint64_t> value;
  std::atomic<uint64_t> recipe;
};
CacheSlot g_cache[kCacheSlots];
std::atomic<uint64_t> g_inserts{0}, g_full{0}, g_invalidate_scans{0}, g_invalidate_slots{0};

// Which groups of kGroupSlots slots were ever written (bits never cleared): an invalidation
// reads only those, and a lookup in none of them reads nothing. Reading the whole 2 MiB table
// took the page faults of every page no decision had touched, on every dlclose of a library with
// a cached PC (or a hashed region's false positive): 19 ms of an MPI + NumPy program's start-up
// over 2 ranks, most of what its dlclose calls cost (perf record on bench/python_cost.sh's
// workload).
constexpr unsigned kGroupSlots = 32;
constexpr uint64_t kGroups = kCacheSlots / kGroupSlots;
std::atomic<uint64_t> g_used_groups[kGroups / 64];

bool group_used(uint64_t slot) {
  const uint64_t g = (slot & (kCacheSlots - 1)) / kGroupSlots;
  return (g_used_groups[g / 64].load(std::memory_order_relaxed) >> (g % 64)) & 1;
}

void note_group(uint64_t slot) {
  const uint64_t g = slot / kGroupSlots, mask = uint64_t{1} << (g % 64);
  if ((g_used_groups[g / 64].load(std::memory_order_relaxed) & mask) == 0)
    g_used_groups[g / 64].fetch_or(mask, std::memory_order_seq_cst);
}

// Which 1 MiB regions of code ever had a decision cached, hashed into 4096 bits (a set bit may
// stand for several regions; bits are never cleared). An unloaded library none of whose code was
// ever sampled, as most of the components an MPI library opens and closes at start-up, then
// costs a few bit tests instead of a scan of the whole table (0.9% of a LAMMPS run's samples went
// to those scans when the table was half its size).
constexpr unsigned kRegionShift = 20;
constexpr uint64_t kRegionBits = 4096;  // region_bit_of keeps 12 bits
std::atomic<uint64_t> g_regions[kRegionBits / 64];

uint64_t region_bit_of(uint64_t region) { return (region * 0x9E3779B97F4A7C15ull) >> 52; }  // 12 bits
uint64_t region_bit(uint64_t pc) { return region_bit_of(pc >> kRegionShift); }

void note_region(uint64_t pc) {
  const uint64_t b = region_bit(pc), mask = uint64_t{1} << (b % 64);
  if ((g_regions[b / 64].load(std::memory_order_relaxed) & mask) == 0)
    g_regions[b / 64].fetch_or(mask, std::memory_order_seq_cst);
}

bool any_region_cached(uint64_t lo, uint64_t hi) {
  if (hi <= lo) return false;
  const uint64_t first = lo >> kRegionShift, last = (hi - 1) >> kRegionShift;
  if (last - first >= kRegionBits) return true;  // a range this large covers every bit
  for (uint64_t r = first; r <= last; ++r) {
    const uint64_t b = region_bit_of(r);
    if (g_regions[b / 64].load(std::memory_order_seq_cst) & (uint64_t{1} << (b % 64))) return true;
  }
  return false;
}

static_assert(std::atomic<uint64_t>::is_always_lock_free);

// Neighbouring instructions go to neighbouring slots: each 64-byte line of code has a group of 32
// slots (1 KiB), found by hashing the line, and an instruction's slot in it is its offset in the
// line halved (instructions two or more bytes apart never share one). A miss caches the decisions
// of every instruction within a window around the sampled one (access_decode.cpp), about 100 of
// them: hashed one by one they touched about 100 pages of the 2 MiB table, two page faults each
// (770 faults per process in LAMMPS's start-up, perf record -e page-faults); by line, a few pages.
constexpr unsigned kLineBits = 6, kGroupBits = 5;
static_assert(kGroupBits + 1 == kLineBits, "a line's offsets halved fill its group");
uint64_t cache_hash(uint64_t pc) {
  const uint64_t line = pc >> kLineBits;
  const uint64_t group = (line * 0x9E3779B97F4A7C15ull) >> (64 - (kCacheBits - kGroupBits));
  return group << kGroupBits | (pc & ((uint64_t{1} << kLineBits) - 1)) >> 1;
}

uint64_t pack_key(uint64_t pc, PcDecision d) {
  return (pc << 16) | (uint64_t{static_cast<uint8_t>(d.rule)} << 8) | ((static_cast<uint64_t>(d.choice) + 1) << 1) | 1;
}

uint64_t pack_value(PcDecision d) {
  const uint16_t off = d.choice == Choice::UsePrevious ? d.prev_len : static_cast<uint16_t>(d.offset);
  uint64_t v = off | (uint64_t{d.nfixes} << 16);
  for (unsigned i = 0; i < 2; ++i) {
    v |= uint64_t{d.fixes[i].reg & 0xfu} << (20 + 20 * i);
    v |= uint64_t{static_cast<uint16_t>(d.fixes[i].delta)} << (24 + 20 * i);
  }
  return v;
}

uint64_t pack_recipe(const AccessRecipe& r) {
  if (!r.valid) return 0;
  return 1 | uint64_t{r.at_pc} << 1 | uint64_t{r.kind & 3u} << 2 | uint64_t{r.size} << 4 |
         uint64_t{r.is_write} << 12 | uint64_t{r.base & 31u} << 13 | uint64_t{r.base_width & 3u} << 18 |
         uint64_t{r.index & 31u} << 20 | uint64_t{r.index_width & 3u} << 25 |
         uint64_t{r.scale_log2 & 3u} << 27 | uint64_t{r.addr32} << 29 | uint64_t{r.fs} << 30 |
         uint64_t{static_cast<uint32_t>(r.disp)} << 32;
}

AccessRecipe unpack_recipe(uint64_t v) {
  AccessRecipe r;
  if ((v & 1) == 0) return r;
  r.valid = true;
  r.at_pc = (v >> 1) & 1;
  r.kind = static_cast<uint8_t>((v >> 2) & 3);
  r.size = static_cast<uint8_t>((v >> 4) & 0xff);
  r.is_write = (v >> 12) & 1;
  r.base = static_cast<uint8_t>((v >> 13) & 31);
  r.base_width = static_cast<uint8_t>((v >> 18) & 3);
  r.index = static_cast<uint8_t>((v >> 20) & 31);
  r.index_width = static_cast<uint8_t>((v >> 25) & 3);
  r.scale_log2 = static_cast<uint8_t>((v >> 27) & 3);
  r.addr32 = (v >> 29) & 1;
  r.fs = (v >> 30) & 1;
  r.disp = static_cast<int32_t>(static_cast<uint32_t>(v >> 32));
  return r;
}

PcDecision unpack(uint64_t key, uint64_t v) {
  PcDecision d;
  d.choice = static_cast<Choice>(((key >> 1) & 0x7f) - 1);
  d.rule = static_cast<Rule>((key >> 8) & 0xff);
  if (d.choice == Choice::UsePrevious) d.prev_len = static_cast<uint8_t>(v & 0xff);
  if (d.choice == Choice::UseOther) d.offset = static_cast<int16_t>(v & 0xffff);
  d.nfixes = static_cast<uint8_t>((v >> 16) & 0x3);
  for (unsigned i = 0; i < 2; ++i) {
    d.fixes[i].reg = static_cast<uint8_t>((v >> (20 + 20 * i)) & 0xf);
    d.fixes[i].delta = static_cast<int16_t>((v >> (24 + 20 * i)) & 0xffff);
  }
  return d;
}

bool cache_lookup(uint64_t pc, PcDecision* d) {
  const uint64_t h = cache_hash(pc);
  // A window in groups no decision was ever written to is a miss, found without reading the
  // table: a read of an untouched page of it is a page fault (the zero page mapped, then
  // replaced at the insert that follows), 283 of a NumPy import's start-up.
  if (!group_used(h) && !group_used(h + kProbe - 1)) return false;
  for (unsigned i = 0; i < kProbe; ++i) {
    const CacheSlot& slot = g_cache[(h + i) & (kCacheSlots - 1)];
    const uint64_t k = slot.key.load(std::memory_order_acquire);
    if ((k >> 16) != pc || k == 0) continue;
    if ((k & 1) == 0) return false;  // being written: decide again
    const uint64_t v = slot.value.load(std::memory_order_relaxed);
    const uint64_t r = slot.recipe.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (slot.key.load(std::memory_order_relaxed) != k) return false;  // evicted under us
    *d = unpack(k, v);
    d->access = unpack_recipe(r);
    return true;
  }
  return false;
}

std::atomic<uint32_t> g_evict_cursor{0};
std::atomic<uint64_t> g_evictions{0};

void cache_insert(uint64_t pc, PcDecision d) {
  if (pc == 0 || (pc >> 48) != 0) return;  // not representable (never happens in user space)
  note_region(pc);  // before any slot holds it: an invalidation that skips saw no slot of it
  const uint64_t h = cache_hash(pc);
  for (unsigned i = 0; i < kProbe; ++i) {
    const uint64_t k = g_cache[(h + i) & (kCacheSlots - 1)].key.load(std::memory_order_relaxed);
    if ((k >> 16) == pc && k != 0) return;  // another thread inserted the same pc (same decision)
  }
  // Two threads that missed the same pc at once can both get past this scan and claim two slots:
  // the same decision twice, one slot spent. Rare and harmless; a lock would not be signal-safe.
  auto claim = [&](CacheSlot& slot, uint64_t seen) {
    // Before the claim, as note_region: an invalidation that skips the group saw no slot of it.
    note_group(uint64_t(&slot - g_cache));
    if (!slot.key.compare_exchange_strong(seen, pc << 16, std::memory_order_relaxed)) return false;
    // The claim must be visible before the new value: a reader re-checks the key after the value.
    std::atomic_thread_fence(std::memory_order_release);
    slot.value.store(pack_value(d), std::memory_order_relaxed);
    slot.recipe.store(pack_recipe(d.access), std::memory_order_relaxed);
    // Publish only if nobody invalidated the claim meanwhile (a dlclose of this code).
    uint64_t claimed = pc << 16;
    if (slot.key.compare_exchange_strong(claimed, pack_key(pc, d), std::memory_order_release,
                                         std::memory_order_relaxed))
      g_inserts.fetch_add(1, std::memory_order_relaxed);
    return true;
  };
  for (unsigned i = 0; i < kProbe; ++i)
    if (claim(g_cache[(h + i) & (kCacheSlots - 1)], 0)) return;
  // Window full: evict one ready entry, trying each slot once from the cursor's position.
  const uint32_t first = g_evict_cursor.fetch_add(1, std::memory_order_relaxed);
  for (unsigned i = 0; i < kProbe; ++i) {
    CacheSlot& slot = g_cache[(h + (first + i) % kProbe) & (kCacheSlots - 1)];
    const uint64_t k = slot.key.load(std::memory_order_relaxed);
    if (k == 0 || (k & 1) == 0) continue;  // emptied or claimed meanwhile: leave it to its writer
    if (claim(slot, k)) {
      g_evictions.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  g_full.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

bool decode_cache_get(uint64_t pc, PcDecision* d) { return cache_lookup(pc, d); }

void decode_cache_put(uint64_t pc, const PcDecision& d) { cache_insert(pc, d); }

void decode_cache_invalidate(uint64_t lo, uint64_t hi) {
  if (!any_region_cached(lo, hi)) return;
  g_invalidate_scans.fetch_add(1, std::memory_order_relaxed);
  uint64_t read = 0;
  for (uint64_t w = 0; w < kGroups / 64; ++w) {
    for (uint64_t bits = g_used_groups[w].load(std::memory_order_seq_cst); bits; bits &= bits - 1) {
      const uint64_t first = (w * 64 + uint64_t(__builtin_ctzll(bits))) * kGroupSlots;
      for (uint64_t i = first; i < first + kGroupSlots; ++i) {
        CacheSlot& slot = g_cache[i];
        uint64_t k = slot.key.load(std::memory_order_relaxed);
        // A claimed (unready) slot is cleared too: its writer's publishing CAS then fails.
        if (k != 0 && (k >> 16) >= lo && (k >> 16) < hi)
          slot.key.compare_exchange_strong(k, 0, std::memory_order_relaxed);
      }
      read += kGroupSlots;
    }
  }
  g_invalidate_slots.fetch_add(read, std::memory_order_relaxed);
}

PcCacheCounts pc_cache_counts() {
  return PcCacheCounts{g_inserts.load(std::memory_order_relaxed), g_full.load(std::memory_order_relaxed),
                       g_evictions.load(std::memory_order_relaxed),
                       g_invalidate_scans.load(std::memory_order_relaxed),
                       g_invalidate_slots.load(std::memory_order_relaxed)};
}

}  // namespace hpcrun
