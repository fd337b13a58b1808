// The per-PC decision cache (issue 11): bounded, with eviction, so a code larger than the table
// keeps caching its newest PCs; and a range of PCs (a dlclose'd library) can be invalidated.
#include <gtest/gtest.h>

#include "decode/access_decode.h"

using hpcrun::Choice;
using hpcrun::PcDecision;

namespace {
PcDecision prev(uint8_t len) {
  PcDecision d;
  d.choice = Choice::UsePrevious;
  d.prev_len = len;
  d.rule = hpcrun::Rule::Previous;
  return d;
}
}  // namespace

TEST(DecodeCache, ALargeCodeKeepsCachingItsNewestPcs) {
  // 256K instruction starts of a large code: four times the table.
  constexpr uint64_t kBase = 0x555500000000ull, kPcs = 1 << 18;
  for (uint64_t i = 0; i < kPcs; ++i) hpcrun::decode_cache_put(kBase + i * 4, prev(uint8_t(1 + i % 7)));
  int hits = 0, right = 0;
  for (uint64_t i = kPcs - 1000; i < kPcs; ++i) {
    PcDecision d;
    if (hpcrun::decode_cache_get(kBase + i * 4, &d)) {
      ++hits;
      right += d.choice == Choice::UsePrevious && d.prev_len == 1 + i % 7;
    }
  }
  EXPECT_GE(hits, 950) << "the newest decisions must be cached";
  EXPECT_EQ(right, hits);
  EXPECT_GT(hpcrun::decode_stats().evictions, 0u);
}

// A library whose code never had a decision cached (most MPI components opened and closed at
// start-up) is forgotten without a scan of the table; one with a cached PC is scanned.
TEST(DecodeCache, InvalidatingNeverDecodedCodeSkipsTheScan) {
  constexpr uint64_t kDecoded = 0x7e5600000000ull, kNever = 0x7e9a00000000ull;
  hpcrun::decode_cache_put(kDecoded + 0x40, prev(3));
  const uint64_t before = hpcrun::decode_stats().invalidate_scans;
  hpcrun::decode_cache_invalidate(kNever, kNever + (4 << 20));
  EXPECT_EQ(hpcrun::decode_stats().invalidate_scans, before);
  hpcrun::decode_cache_invalidate(kDecoded, kDecoded + 0x1000);
  EXPECT_EQ(hpcrun::decode_stats().invalidate_scans, before + 1);
  PcDecision d;
  EXPECT_FALSE(hpcrun::decode_cache_get(kDecoded + 0x40, &d));
}

// A scan reads only the groups of slots a decision was ever written to, not the whole table (whose
// untouched pages it would fault in).
TEST(DecodeCache, AScanReadsOnlyTheSlotsEverWritten) {
  constexpr uint64_t kLib = 0x7e7700000000ull;
  const hpcrun::DecodeStats before = hpcrun::decode_stats();
  hpcrun::decode_cache_put(kLib + 0x40, prev(3));
  hpcrun::decode_cache_invalidate(kLib, kLib + 0x1000);
  const hpcrun::DecodeStats after = hpcrun::decode_stats();
  ASSERT_EQ(after.invalidate_scans, before.invalidate_scans + 1);
  // This test's process wrote at most a few groups before (ctest runs each test on its own).
  EXPECT_LE(after.invalidate_slots - before.invalidate_slots, 4u * 32u);
  EXPECT_GE(after.invalidate_slots - before.invalidate_slots, 32u);
  PcDecision d;
  EXPECT_FALSE(hpcrun::decode_cache_get(kLib + 0x40, &d));
}

TEST(DecodeCache, InvalidatingARangeForgetsOnlyItsPcs) {
  constexpr uint64_t kLib = 0x7f1200000000ull, kOther = 0x7f3400000000ull;
  for (uint64_t i = 0; i < 2000; ++i) {
    hpcrun::decode_cache_put(kLib + i * 3, prev(3));
    hpcrun::decode_cache_put(kOther + i * 3, prev(5));
  }
  hpcrun::decode_cache_invalidate(kLib, kLib + 2000 * 3);
  int lib = 0, other = 0;
  for (uint64_t i = 0; i < 2000; ++i) {
    PcDecision d;
    lib += hpcrun::decode_cache_get(kLib + i * 3, &d);
    other += hpcrun::decode_cache_get(kOther + i * 3, &d) && d.prev_len == 5;
  }
  EXPECT_EQ(lib, 0);
  EXPECT_GE(other, 1990);  // a few may have been evicted by their neighbours
  // A new library at the same address gets its own decisions.
  hpcrun::decode_cache_put(kLib + 30, prev(2));
  PcDecision d;
  ASSERT_TRUE(hpcrun::decode_cache_get(kLib + 30, &d));
  EXPECT_EQ(d.prev_len, 2);
}
