// The region maps (memory/regions.h): a carve cuts what it covers and keeps both ends of a range
// that straddles it; an address is the innermost range's (a named range, then a heap block, then
// a mapping); readers looking up a named range that no writer touches always find it while other
// names are carved and inserted around it (also run under ThreadSanitizer, tsan.*).
#include "memory/regions.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

using hpcrun::BlockInfo;
using hpcrun::HeapMap;

namespace {

constexpr uint64_t kBase = 0x7f0000000000ull;

bool at(const HeapMap& m, uint64_t a, uint32_t* site) {
  BlockInfo b;
  if (!m.lookup(a, &b)) return false;
  *site = b.site;
  return true;
}

TEST(Regions, CarveKeepsTheEndsOutside) {
  auto m = std::make_unique<HeapMap>();
  ASSERT_TRUE(hpcrun::insert_carved(*m, kBase, kBase + 0x30000, 1));
  hpcrun::carve(*m, kBase + 0x10000, kBase + 0x20000);
  uint32_t s = 0;
  EXPECT_TRUE(at(*m, kBase, &s));
  EXPECT_EQ(s, 1u);
  EXPECT_TRUE(at(*m, kBase + 0xffff, &s));
  EXPECT_FALSE(at(*m, kBase + 0x10000, &s));
  EXPECT_FALSE(at(*m, kBase + 0x1ffff, &s));
  EXPECT_TRUE(at(*m, kBase + 0x20000, &s));
  EXPECT_TRUE(at(*m, kBase + 0x2ffff, &s));
  EXPECT_EQ(m->size(), 2u);
  // A name over the middle of two ranges cuts both; the new one holds what it covers.
  ASSERT_TRUE(hpcrun::insert_carved(*m, kBase + 0x8000, kBase + 0x28000, 2));
  EXPECT_TRUE(at(*m, kBase + 0x7fff, &s));
  EXPECT_EQ(s, 1u);
  EXPECT_TRUE(at(*m, kBase + 0x8000, &s));
  EXPECT_EQ(s, 2u);
  EXPECT_TRUE(at(*m, kBase + 0x27fff, &s));
  EXPECT_EQ(s, 2u);
  EXPECT_TRUE(at(*m, kBase + 0x28000, &s));
  EXPECT_EQ(s, 1u);
  // Small pieces go to the map's small-block index and still answer.
  hpcrun::carve(*m, kBase + 0x100, kBase + 0x7f00);
  EXPECT_TRUE(at(*m, kBase + 0xff, &s));
  EXPECT_FALSE(at(*m, kBase + 0x100, &s));
  EXPECT_TRUE(at(*m, kBase + 0x7f00, &s));
  EXPECT_EQ(s, 1u);
}

// The global maps: a name wins over the heap block it lies in, a heap block over the mapping.
TEST(Regions, TheInnermostRangeWins) {
  HeapMap heap;
  const uint64_t map_lo = kBase + 0x1000000;
  ASSERT_TRUE(hpcrun::insert_carved(hpcrun::g_maps, map_lo, map_lo + 0x100000, 7));
  ASSERT_TRUE(heap.insert(map_lo + 0x10000, 0x10000, 8, 1));
  ASSERT_TRUE(hpcrun::insert_carved(hpcrun::g_named, map_lo + 0x14000, map_lo + 0x18000, 9));
  BlockInfo none, b;
  ASSERT_TRUE(hpcrun::find_variable_block(heap, none, map_lo + 0x15000, &b));
  EXPECT_EQ(b.site, 9u);
  ASSERT_TRUE(hpcrun::find_variable_block(heap, none, map_lo + 0x11000, &b));
  EXPECT_EQ(b.site, 8u);
  ASSERT_TRUE(hpcrun::find_variable_block(heap, none, map_lo + 0x30000, &b));
  EXPECT_EQ(b.site, 7u);
  EXPECT_FALSE(hpcrun::find_variable_block(heap, none, map_lo + 0x200000, &b));
  EXPECT_FALSE(hpcrun::in_allocator_arena(map_lo + 0x200000));
  ASSERT_TRUE(hpcrun::insert_carved(hpcrun::g_arenas, map_lo + 0x200000, map_lo + 0x300000, 0));
  EXPECT_TRUE(hpcrun::in_allocator_arena(map_lo + 0x200000));
  for (HeapMap* m : {&hpcrun::g_maps, &hpcrun::g_named, &hpcrun::g_arenas})
    hpcrun::carve(*m, map_lo, map_lo + 0x300000);
  EXPECT_EQ(hpcrun::g_named.size() + hpcrun::g_maps.size() + hpcrun::g_arenas.size(), 0u);
}

TEST(Regions, LookupsFindAStableRangeWhileOthersAreCarved) {
  auto m = std::make_unique<HeapMap>();
  const uint64_t stable = kBase + 0x4000000;
  ASSERT_TRUE(hpcrun::insert_carved(*m, stable, stable + 0x4000, 5));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> misses{0};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      uint32_t s = 0;
      if (!at(*m, stable + 0x100, &s) || s != 5) misses.fetch_add(1);
    }
  });
  for (int i = 0; i < 20000; ++i) {
    uint64_t lo = kBase + uint64_t(i % 64) * 0x10000;
    hpcrun::insert_carved(*m, lo, lo + 0x8000 + (i % 3) * 0x1000, uint32_t(10 + i % 7));
    hpcrun::carve(*m, lo + 0x2000, lo + 0x3000);
  }
  stop = true;
  reader.join();
  EXPECT_EQ(misses.load(), 0u);
}

}  // namespace
