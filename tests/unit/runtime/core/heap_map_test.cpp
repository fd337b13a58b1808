// The address map: exact lookups, replacement, range removal, the free() filter, and lookups
// racing with a writer that inserts and removes blocks on another thread (the situation of a
// signal handler sampling while the program mallocs and frees).
#include "heap_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

using hpcrun::BlockInfo;
using hpcrun::HeapMap;

namespace {
std::unique_ptr<HeapMap> make_map() { return std::make_unique<HeapMap>(); }
}  // namespace

TEST(HeapMap, FindsTheBlockContainingAnAddress) {
  auto m = make_map();
  ASSERT_TRUE(m->insert(0x1000, 0x100, 7));
  ASSERT_TRUE(m->insert(0x3000, 0x10, 8));
  BlockInfo b;
  EXPECT_TRUE(m->lookup(0x1000, &b));
  EXPECT_EQ(b.site, 7u);
  EXPECT_TRUE(m->lookup(0x10ff, &b));
  EXPECT_EQ(b.start, 0x1000u);
  EXPECT_FALSE(m->lookup(0x1100, &b));  // one past the end
  EXPECT_FALSE(m->lookup(0xfff, &b));
  EXPECT_TRUE(m->lookup(0x300f, &b));
  EXPECT_EQ(b.site, 8u);
  EXPECT_FALSE(m->lookup(0x3010, &b));
  EXPECT_EQ(m->size(), 2u);
}

TEST(HeapMap, EmptyMapFindsNothing) {
  auto m = make_map();
  BlockInfo b;
  EXPECT_FALSE(m->lookup(0x1234, &b));
  EXPECT_FALSE(m->remove(0x1234, &b));
  EXPECT_FALSE(m->maybe_tracked(0x1234));
}

TEST(HeapMap, RemoveForgetsTheBlockAndTheFilter) {
  auto m = make_map();
  m->insert(0x5000, 64, 1);
  EXPECT_TRUE(m->maybe_tracked(0x5000));
  BlockInfo b;
  ASSERT_TRUE(m->remove(0x5000, &b));
  EXPECT_EQ(b.size, 64u);
  EXPECT_FALSE(m->lookup(0x5000, &b));
  EXPECT_FALSE(m->maybe_tracked(0x5000));
  EXPECT_EQ(m->size(), 0u);
}

TEST(HeapMap, InsertAtAKnownStartReplacesTheOldBlock) {
  auto m = make_map();
  m->insert(0x8000, 16, 1);
  m->insert(0x8000, 4096, 2);
  BlockInfo b;
  ASSERT_TRUE(m->lookup(0x8800, &b));
  EXPECT_EQ(b.site, 2u);
  EXPECT_EQ(m->size(), 1u);
}

TEST(HeapMap, RemoveRangeDropsBlocksStartingInside) {
  auto m = make_map();
  for (uint64_t i = 0; i < 10; ++i) m->insert(0x10000 + i * 0x1000, 0x800, uint32_t(i));
  EXPECT_EQ(m->remove_range(0x12000, 0x15000), 3u);
  BlockInfo b;
  EXPECT_TRUE(m->lookup(0x11000, &b));
  EXPECT_FALSE(m->lookup(0x12000, &b));
  EXPECT_FALSE(m->lookup(0x14000, &b));
  EXPECT_TRUE(m->lookup(0x15000, &b));
  EXPECT_EQ(m->size(), 7u);
}

TEST(HeapMap, ManyBlocksAgreeWithAReferenceModel) {
  auto m = make_map();
  std::mt19937_64 rng(42);
  std::vector<std::pair<uint64_t, uint64_t>> live;  // start, size; blocks never overlap
  for (int i = 0; i < 20000; ++i) {
    uint64_t start = 0x100000 + uint64_t(i) * 0x100;
    uint64_t size = 16 + rng() % 200;
    m->insert(start, size, uint32_t(i));
    live.emplace_back(start, size);
  }
  // Remove every third block.
  for (size_t i = 0; i < live.size(); i += 3) ASSERT_TRUE(m->remove(live[i].first, nullptr));
  for (size_t i = 0; i < live.size(); ++i) {
    BlockInfo b;
    bool hit = m->lookup(live[i].first + live[i].second - 1, &b);
    EXPECT_EQ(hit, i % 3 != 0) << i;
    if (hit) {
      EXPECT_EQ(b.site, uint32_t(i));
    }
  }
}

// Readers must always see either the block or nothing, never a wrong block, while a writer
// churns other blocks; and the stable blocks must always be found.
TEST(HeapMap, LookupsRaceWithConcurrentMallocAndFree) {
  auto m = make_map();
  constexpr int kStable = 256;
  for (int i = 0; i < kStable; ++i) m->insert(0x40000000 + uint64_t(i) * 0x10000, 0x8000, uint32_t(i));
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::mt19937_64 rng(1);
    std::vector<uint64_t> mine;
    while (!stop.load(std::memory_order_relaxed)) {
      // Churn blocks in the gaps between the stable ones (never overlapping them).
      uint64_t slot = rng() % kStable;
      uint64_t start = 0x40000000 + slot * 0x10000 + 0x8000 + (rng() % 64) * 16;
      if (mine.size() < 512 && rng() % 2) {
        m->insert(start, 16, 100000 + uint32_t(slot));
        mine.push_back(start);
      } else if (!mine.empty()) {
        m->remove(mine.back(), nullptr);
        mine.pop_back();
      }
    }
  });
  uint64_t found = 0, wrong = 0;
  std::mt19937_64 rng(2);
  for (int i = 0; i < 400000; ++i) {
    uint64_t slot = rng() % kStable;
    uint64_t addr = 0x40000000 + slot * 0x10000 + rng() % 0x8000;
    BlockInfo b;
    if (m->lookup(addr, &b)) {
      ++found;
      if (b.site != slot) ++wrong;
    }
  }
  stop = true;
  writer.join();
  EXPECT_EQ(wrong, 0u);
  // A lookup gives up only after 64 consecutive changes of the map; allow a tiny fraction.
  EXPECT_GE(found, 400000u - 400000u / 100);
}
