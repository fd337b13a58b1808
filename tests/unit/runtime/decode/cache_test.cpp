// The per-PC decision cache (issue 11): bounded, with eviction, so a code larger than the table
// keeps caching its newest PCs; and a range of PCs (a dlclose'd library) can be invalidated.
#include <gtest/gtest.h>

#include "sources/soft/access_decode.h"

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
