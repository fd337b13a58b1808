// The address map: exact lookups, replacement, range removal, the free() filter, and lookups
// racing with a writer that inserts and removes blocks on another thread (the situation of a
// signal handler sampling while the program mallocs and frees).
#include "memory/heap_map.h"

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

// glibc's chunks are at least 32 bytes, so its neighbouring blocks start 32 bytes apart or more:
// the filter tells each of them apart, and the free of an untracked neighbour of a tracked block
// never takes the slow path.
TEST(HeapMap, FilterTellsApartBlocks32BytesApart) {
  auto m = make_map();
  const uint64_t a = 0x7f3000012350ull;  // user pointers are 16 mod 32 in glibc
  ASSERT_TRUE(m->insert(a, 24, 1));
  EXPECT_TRUE(m->maybe_tracked(a));
  EXPECT_FALSE(m->maybe_tracked(a - 32));
  EXPECT_FALSE(m->maybe_tracked(a + 32));
  ASSERT_TRUE(m->insert(a + 32, 24, 1));
  ASSERT_TRUE(m->remove(a, nullptr));
  EXPECT_FALSE(m->maybe_tracked(a));
  EXPECT_TRUE(m->maybe_tracked(a + 32));
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

// ---- Small blocks (granule index) ----

TEST(HeapMap, SmallBlocksAreFoundAcrossGranuleBorders) {
  auto m = make_map();
  // 48 B in the 256 B level, 1000 B and 4096 B in the 4 KiB level, 5000 B in the skip list; the
  // first three straddle a granule border of their level.
  ASSERT_TRUE(m->insert(0x100f0, 48, 1));
  ASSERT_TRUE(m->insert(0x20e00, 1000, 2));
  ASSERT_TRUE(m->insert(0x30010, 4096, 3));
  ASSERT_TRUE(m->insert(0x40000, 5000, 4));
  BlockInfo b;
  struct Probe { uint64_t addr; bool hit; uint32_t site; } probes[] = {
      {0x100f0, true, 1}, {0x10100, true, 1}, {0x1011f, true, 1}, {0x10120, false, 0},
      {0x100ef, false, 0}, {0x20e00, true, 2}, {0x21000, true, 2}, {0x211e7, true, 2},
      {0x211e8, false, 0}, {0x30010, true, 3}, {0x3100f, true, 3}, {0x31010, false, 0},
      {0x41387, true, 4}, {0x41388, false, 0}};
  for (const Probe& p : probes) {
    EXPECT_EQ(m->lookup(p.addr, &b), p.hit) << std::hex << p.addr;
    if (p.hit) {
      EXPECT_EQ(b.site, p.site) << std::hex << p.addr;
    }
  }
  EXPECT_EQ(m->size(), 4u);
  ASSERT_TRUE(m->remove(0x20e00, &b));
  EXPECT_EQ(b.size, 1000u);
  EXPECT_FALSE(m->lookup(0x21000, &b));
  EXPECT_EQ(m->size(), 3u);
}

TEST(HeapMap, KeepsEachBlocksWeight) {
  auto m = make_map();
  m->insert(0x5000, 48, 9, 16);
  m->insert(0x9000, 100000, 10);
  BlockInfo b;
  ASSERT_TRUE(m->lookup(0x5010, &b));
  EXPECT_EQ(b.weight, 16u);
  ASSERT_TRUE(m->lookup(0x9010, &b));
  EXPECT_EQ(b.weight, 1u);
  ASSERT_TRUE(m->remove(0x5000, &b));
  EXPECT_EQ(b.weight, 16u);  // what realloc re-inserts
}

TEST(HeapMap, CountsSamplesPerBlock) {
  auto m = make_map();
  m->insert(0x5000, 48, 1, 8);
  m->insert(0x9000, 100000, 2, 8);
  BlockInfo small, large;
  ASSERT_TRUE(m->lookup(0x5000, &small));
  ASSERT_TRUE(m->lookup(0x9000, &large));
  EXPECT_EQ(m->add_hit(small.ref), 0u);
  EXPECT_EQ(m->add_hit(small.ref), 1u);
  EXPECT_EQ(m->add_hit(large.ref), 0u);
  // A new block in a recycled node starts from zero.
  m->remove(0x5000, nullptr);
  m->insert(0x6000, 48, 3, 8);
  ASSERT_TRUE(m->lookup(0x6000, &small));
  EXPECT_EQ(m->add_hit(small.ref), 0u);
}

// free() of a list node reads the 16-byte chunk header in front of it: credited to the block.
TEST(HeapMap, ChunkHeaderBelongsToTheBlockAfterIt) {
  auto m = make_map();
  m->insert(0x10010, 48, 1);  // header [0x10000, 0x10010)
  m->insert(0x10050, 48, 2);  // header [0x10040, 0x10050); 0x10040 is past block 1's 48 bytes
  BlockInfo b;
  EXPECT_TRUE(m->lookup_header(0x10000, &b));
  EXPECT_EQ(b.site, 1u);
  EXPECT_TRUE(m->lookup_header(0x10008, &b));  // glibc's size field
  EXPECT_EQ(b.site, 1u);
  EXPECT_TRUE(m->lookup_header(0x10048, &b));
  EXPECT_EQ(b.site, 2u);
  EXPECT_FALSE(m->lookup_header(0x0fff8, &b));  // more than 16 bytes before
  EXPECT_FALSE(m->lookup_header(0x10010, &b));  // inside the block: lookup's business
  EXPECT_FALSE(m->lookup_header(0x10030, &b));
  EXPECT_FALSE(m->lookup_header(UINT64_MAX - 4, &b));
}

TEST(HeapMap, RemoveRangeDropsSmallBlocksToo) {
  auto m = make_map();
  for (uint64_t i = 0; i < 64; ++i) m->insert(0x7f0000000000ull + i * 64, 48, uint32_t(i));
  m->insert(0x7f0000000000ull + 0x2000, 3000, 100);
  EXPECT_EQ(m->remove_range(0x7f0000000000ull + 32 * 64, 0x7f0000000000ull + 0x3000), 33u);
  BlockInfo b;
  EXPECT_TRUE(m->lookup(0x7f0000000000ull + 31 * 64, &b));
  EXPECT_FALSE(m->lookup(0x7f0000000000ull + 32 * 64, &b));
  EXPECT_FALSE(m->lookup(0x7f0000000000ull + 0x2100, &b));
  EXPECT_EQ(m->size(), 32u);
}

// A million list nodes (48 B in 64 B chunks, interleaved with 1-3 KiB tables): every block is
// found at its first and last byte, the gaps find nothing, removal of half keeps the rest.
TEST(HeapMap, AMillionSmallBlocksAgreeWithTheirLayout) {
  auto m = make_map();
  constexpr uint64_t kBase = 0x7f3400000000ull;
  constexpr uint64_t kNodes = 1000000;
  for (uint64_t i = 0; i < kNodes; ++i) ASSERT_TRUE(m->insert(kBase + i * 64 + 16, 48, uint32_t(i % 1000)));
  const uint64_t tables = kBase + kNodes * 64;
  for (uint64_t i = 0; i < 200; ++i) m->insert(tables + i * 4096, 1024 + (i % 3) * 1024, 5000 + uint32_t(i));
  EXPECT_EQ(m->size(), kNodes + 200);
  BlockInfo b;
  for (uint64_t i = 0; i < kNodes; i += 7) {
    ASSERT_TRUE(m->lookup(kBase + i * 64 + 16, &b)) << i;
    ASSERT_EQ(b.site, uint32_t(i % 1000));
    ASSERT_TRUE(m->lookup(kBase + i * 64 + 63, &b)) << i;
    ASSERT_FALSE(m->lookup(kBase + i * 64 + 8, &b)) << i;  // a chunk header
    ASSERT_TRUE(m->lookup_header(kBase + i * 64 + 8, &b)) << i;
  }
  for (uint64_t i = 0; i < 200; ++i) {
    ASSERT_TRUE(m->lookup(tables + i * 4096 + 1023, &b));
    ASSERT_EQ(b.site, 5000 + uint32_t(i));
  }
  for (uint64_t i = 0; i < kNodes; i += 2) ASSERT_TRUE(m->remove(kBase + i * 64 + 16, nullptr));
  for (uint64_t i = 0; i < 1000; ++i) EXPECT_EQ(m->lookup(kBase + i * 64 + 20, &b), i % 2 == 1) << i;
}

// Small blocks share their granule's list with the blocks a writer inserts and removes: readers
// of the stable ones must always find them, and never report a wrong block.
TEST(HeapMap, SmallLookupsRaceWithInsertsInTheSameLists) {
  auto m = make_map();
  constexpr uint64_t kBase = 0x7f5000000000ull;
  constexpr int kStable = 4096;
  // Stable blocks at even 64-byte slots; the writer churns the odd ones, in the same granules.
  for (int i = 0; i < kStable; ++i) m->insert(kBase + uint64_t(i) * 128, 48, uint32_t(i));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> churned{0};
  std::thread writer([&] {
    std::mt19937_64 rng(7);
    std::vector<uint64_t> mine;
    while (!stop.load(std::memory_order_relaxed)) {
      if (mine.size() < 2048 && rng() % 2) {
        uint64_t slot = rng() % kStable;
        uint64_t start = kBase + slot * 128 + 64;
        m->insert(start, 48, 100000 + uint32_t(slot), 4);
        mine.push_back(start);
      } else if (!mine.empty()) {
        size_t k = rng() % mine.size();
        m->remove(mine[k], nullptr);
        mine[k] = mine.back();
        mine.pop_back();
      }
      churned.fetch_add(1, std::memory_order_relaxed);
    }
  });
  uint64_t found = 0, wrong = 0;
  std::mt19937_64 rng(3);
  constexpr int kLookups = 2000000;
  for (int i = 0; i < kLookups; ++i) {
    uint64_t slot = rng() % kStable;
    uint64_t odd = rng() % 2;
    uint64_t addr = kBase + slot * 128 + odd * 64 + rng() % 48;
    BlockInfo b;
    bool hit = m->lookup(addr, &b);
    if (!odd) {
      found += hit;
      if (hit && (b.site != slot || b.weight != 1)) ++wrong;
    } else if (hit && (b.site != 100000 + slot || b.weight != 4)) {
      ++wrong;
    }
  }
  stop = true;
  writer.join();
  EXPECT_GT(churned.load(), 1000u);
  EXPECT_EQ(wrong, 0u);
  // A reader misses a stable block only when a writer recycled the node it stood on.
  uint64_t stable_lookups = kLookups / 2;
  EXPECT_GE(found, stable_lookups - stable_lookups / 100);
}


// The sampler's heap attribution: a block's bytes, its chunk header, and the block this thread
// is freeing (already out of the map), in that order; anything else is not a heap block.
TEST(HeapMap, FindHeapBlockCoversBytesHeadersAndTheBlockBeingFreed) {
  auto m = make_map();
  m->insert(0x10010, 48, 1, 4);
  BlockInfo none;  // start 0: not freeing
  BlockInfo freeing{0x20010, 48, 2, 8, 0};
  BlockInfo b;
  EXPECT_TRUE(hpcrun::find_heap_block(*m, none, 0x10020, &b));
  EXPECT_EQ(b.site, 1u);
  EXPECT_EQ(b.weight, 4u);
  EXPECT_NE(b.ref, 0u);
  EXPECT_TRUE(hpcrun::find_heap_block(*m, none, 0x10008, &b));  // header
  EXPECT_EQ(b.site, 1u);
  EXPECT_FALSE(hpcrun::find_heap_block(*m, none, 0x20008, &b));
  EXPECT_TRUE(hpcrun::find_heap_block(*m, freeing, 0x20008, &b));  // the freed block's header
  EXPECT_EQ(b.site, 2u);
  EXPECT_EQ(b.weight, 8u);
  EXPECT_EQ(b.ref, 0u);
  EXPECT_TRUE(hpcrun::find_heap_block(*m, freeing, 0x20010, &b));   // its first bytes
  EXPECT_TRUE(hpcrun::find_heap_block(*m, freeing, 0x2003f, &b));   // its last byte
  EXPECT_FALSE(hpcrun::find_heap_block(*m, freeing, 0x20040, &b));  // past it
  EXPECT_FALSE(hpcrun::find_heap_block(*m, freeing, 0x1fff8, &b));  // before its header
}

// Large blocks through the 64 KiB granule index: several in one granule, one spanning many,
// removal handing a granule to the next block, and a block over 1 GiB that is not indexed.
TEST(HeapMap, LargeBlocksThroughTheGranuleIndex) {
  auto m = make_map();
  const uint64_t base = 0x7f0000000000ull;
  // Ten 5 KiB blocks in the first 64 KiB granule, then one of 1 MiB starting inside it.
  for (uint64_t i = 0; i < 10; ++i) m->insert(base + i * 0x1400, 0x1400, uint32_t(i));
  m->insert(base + 0xc800, 1 << 20, 10);
  BlockInfo b;
  for (uint64_t i = 0; i < 10; ++i) {
    ASSERT_TRUE(m->lookup(base + i * 0x1400 + 7, &b)) << i;
    EXPECT_EQ(b.site, uint32_t(i));
  }
  ASSERT_TRUE(m->lookup(base + 0xc800 + (1 << 20) - 1, &b));
  EXPECT_EQ(b.site, 10u);
  EXPECT_FALSE(m->lookup(base + 0xc800 + (1 << 20), &b));
  // The granule's first block goes: its entry moves to the second.
  ASSERT_TRUE(m->remove(base, nullptr));
  EXPECT_FALSE(m->lookup(base + 7, &b));
  ASSERT_TRUE(m->lookup(base + 0x1400 + 7, &b));
  EXPECT_EQ(b.site, 1u);
  // All small ones go: the granule now starts at the 1 MiB block.
  for (uint64_t i = 1; i < 10; ++i) ASSERT_TRUE(m->remove(base + i * 0x1400, nullptr));
  EXPECT_FALSE(m->lookup(base + 0x1400 + 7, &b));
  ASSERT_TRUE(m->lookup(base + 0xc800 + 100, &b));
  EXPECT_EQ(b.site, 10u);
  // A 2 GiB block (an mmap) is not indexed; lookups inside it search the list.
  const uint64_t huge = 0x7e0000000000ull;
  m->insert(huge, 2ull << 30, 20);
  ASSERT_TRUE(m->lookup(huge + (1ull << 30), &b));
  EXPECT_EQ(b.site, 20u);
  ASSERT_TRUE(m->lookup(base + 0xc800 + 100, &b));
  EXPECT_EQ(b.site, 10u);
  ASSERT_TRUE(m->remove(huge, nullptr));
  EXPECT_FALSE(m->lookup(huge + (1ull << 30), &b));
  EXPECT_EQ(m->size(), 1u);
}

// 50,000 large blocks of random sizes with random removals agree with a reference model.
TEST(HeapMap, ManyLargeBlocksAgreeWithAReferenceModel) {
  auto m = make_map();
  std::mt19937_64 rng(5);
  std::vector<std::pair<uint64_t, uint64_t>> blocks;
  uint64_t a = 0x7f2000000000ull;
  for (int i = 0; i < 50000; ++i) {
    uint64_t size = 4097 + rng() % 200000;
    blocks.emplace_back(a, size);
    m->insert(a, size, uint32_t(i));
    a += size + 16 + (rng() % 4) * 4096;
  }
  std::vector<bool> live(blocks.size(), true);
  for (size_t i = 0; i < blocks.size(); i += 1 + rng() % 3) {
    ASSERT_TRUE(m->remove(blocks[i].first, nullptr));
    live[i] = false;
  }
  BlockInfo b;
  for (size_t i = 0; i < blocks.size(); ++i) {
    uint64_t addr = blocks[i].first + rng() % blocks[i].second;
    ASSERT_EQ(m->lookup(addr, &b), bool(live[i])) << i;
    if (live[i]) {
      ASSERT_EQ(b.site, uint32_t(i));
    }
    ASSERT_FALSE(m->lookup(blocks[i].first + blocks[i].second + 8, &b)) << i;  // the gap
  }
}

// Large blocks inserted and removed in the granules of stable large blocks: readers follow the
// granule index while its entries move, and must still find every stable block, never a wrong one.
TEST(HeapMap, LargeLookupsRaceWithInsertsInTheSameGranules) {
  auto m = make_map();
  const uint64_t base = 0x7f4000000000ull;
  constexpr int kStable = 512;
  for (int i = 0; i < kStable; ++i) m->insert(base + uint64_t(i) * 0x10000 + 0x4000, 0x4000, uint32_t(i));
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::mt19937_64 rng(11);
    std::vector<uint64_t> mine;
    while (!stop.load(std::memory_order_relaxed)) {
      if (mine.size() < 1024 && rng() % 2) {
        uint64_t slot = rng() % kStable, j = rng() % 2;  // before or after the stable block
        uint64_t start = base + slot * 0x10000 + (j ? 0x9000 : 0x1000);
        m->insert(start, 0x2000, 100000 + uint32_t(slot));
        mine.push_back(start);
      } else if (!mine.empty()) {
        size_t k = rng() % mine.size();
        m->remove(mine[k], nullptr);
        mine[k] = mine.back();
        mine.pop_back();
      }
    }
  });
  uint64_t found = 0, wrong = 0;
  std::mt19937_64 rng(13);
  constexpr int kLookups = 1000000;
  for (int i = 0; i < kLookups; ++i) {
    uint64_t slot = rng() % kStable;
    BlockInfo b;
    if (m->lookup(base + slot * 0x10000 + 0x4000 + rng() % 0x4000, &b)) {
      ++found;
      if (b.site != slot) ++wrong;
    }
  }
  stop = true;
  writer.join();
  EXPECT_EQ(wrong, 0u);
  EXPECT_GE(found, uint64_t(kLookups) - kLookups / 100);
}

// Issue 11: a reader that stands on a node while writers free and recycle it into another list
// must not follow the recycled node's links and miss a block that was live the whole time.
// Reader threads look up stable blocks only; writer threads churn other blocks in the same
// granules (so recycled nodes move between lists). Not one lookup may miss.
namespace {
void stress_never_miss(uint64_t base, uint64_t slot_bytes, uint64_t block_bytes, int slots) {
  auto m = make_map();
  // Stable blocks in even slots, churned blocks in odd slots of the same granules.
  for (int i = 0; i < slots; i += 2) m->insert(base + uint64_t(i) * slot_bytes, block_bytes, uint32_t(i));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> churned{0}, lookups{0}, missed{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w)
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(11 + w);
      std::vector<uint64_t> mine;
      while (!stop.load(std::memory_order_relaxed)) {
        // Writer w owns the odd slots congruent to 2w+1 mod 4, so the two never touch one block.
        if (mine.size() < size_t(slots) / 8 && rng() % 2) {
          uint64_t slot = (rng() % uint64_t(slots / 4)) * 4 + 2 * uint64_t(w) + 1;
          uint64_t start = base + slot * slot_bytes;
          m->insert(start, block_bytes, 1000000 + uint32_t(slot));
          mine.push_back(start);
        } else if (!mine.empty()) {
          size_t k = rng() % mine.size();
          m->remove(mine[k], nullptr);
          mine[k] = mine.back();
          mine.pop_back();
        }
        churned.fetch_add(1, std::memory_order_relaxed);
      }
    });
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      std::mt19937_64 rng(101 + r);
      for (int i = 0; i < 1500000; ++i) {
        uint64_t slot = (rng() % uint64_t(slots / 2)) * 2;
        BlockInfo b;
        if (!m->lookup(base + slot * slot_bytes + rng() % block_bytes, &b))
          missed.fetch_add(1, std::memory_order_relaxed);
        else if (b.site != slot)
          wrong.fetch_add(1, std::memory_order_relaxed);
      }
      lookups.fetch_add(1500000, std::memory_order_relaxed);
    });
  for (size_t i = 2; i < threads.size(); ++i) threads[i].join();
  stop = true;
  threads[0].join();
  threads[1].join();
  EXPECT_GT(churned.load(), 10000u);
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(missed.load(), 0u) << "of " << lookups.load() << " lookups; races " << m->races();
}
}  // namespace

TEST(HeapMap, ReadersNeverMissStableSmallBlocksWhileWritersRecycleNodes) {
  // 32-byte slots: 8 blocks per 256-byte granule, half of them churned.
  stress_never_miss(0x7f6000000000ull, 32, 24, 1 << 14);
}

TEST(HeapMap, ReadersNeverMissStableLargeBlocksWhileWritersRecycleNodes) {
  // 8 KiB slots: 8 large blocks per 64 KiB granule, half of them churned.
  stress_never_miss(0x7f7000000000ull, 8192, 6000, 1 << 11);
}

// The same race made certain: the reader steps from the list head to a churned block's node, and
// just then (the step hook) a writer frees that block and reuses its node for a block elsewhere.
// The stable block after it in the list was live the whole time and must still be found.
namespace {
HeapMap* g_hook_map = nullptr;
uint64_t g_hook_free = 0, g_hook_insert = 0, g_hook_insert_size = 0;
void recycle_on_first_step(uint32_t) {
  HeapMap::step_hook = nullptr;  // once
  g_hook_map->remove(g_hook_free, nullptr);
  g_hook_map->insert(g_hook_insert, g_hook_insert_size, 77);
}
void recycled_node_case(uint64_t stable, uint64_t churned, uint64_t elsewhere, uint64_t size) {
  auto m = make_map();
  // The churned block comes first on the reader's path (small lists run from the highest start
  // down, the large index from the lowest block of a granule up); freeing it puts its node on
  // top of the free list, so the next insert reuses it.
  m->insert(stable, size, 1);
  m->insert(churned, size, 2);
  g_hook_map = m.get();
  g_hook_free = churned;
  g_hook_insert = elsewhere;
  g_hook_insert_size = size;
  HeapMap::step_hook = recycle_on_first_step;
  BlockInfo b;
  bool hit = m->lookup(stable + 8, &b);
  HeapMap::step_hook = nullptr;
  EXPECT_TRUE(hit);
  EXPECT_EQ(b.site, 1u);
  ASSERT_TRUE(m->lookup(elsewhere + 8, &b));  // the recycled node now holds the new block
  EXPECT_EQ(b.site, 77u);
}
}  // namespace

TEST(HeapMap, LookupSurvivesTheNodeItSteppedToBeingRecycledSmall) {
  recycled_node_case(0x7f6100000000ull, 0x7f6100000040ull, 0x7f6100100080ull, 32);
}

TEST(HeapMap, LookupSurvivesTheNodeItSteppedToBeingRecycledLarge) {
  recycled_node_case(0x7f6200004000ull, 0x7f6200000000ull, 0x7f6200a08000ull, 8192);
}

// The map's writers serialise per shard: the 64 MiB region a block starts in, modulo 64 shards.
namespace {
constexpr uint64_t kRegion = uint64_t(1) << 26;
constexpr uint64_t kBoundary = 0x7f3000000000ull;  // a region boundary
static_assert(kBoundary % kRegion == 0);
}  // namespace

TEST(HeapMap, BlocksAcrossARegionBoundaryAreFoundFromBothSides) {
  auto m = make_map();
  // A small block that starts 64 bytes before a boundary and a large one after it (its region's
  // shard and granule index); a large one over the next boundary (the cross list).
  const uint64_t next = kBoundary + kRegion;
  ASSERT_TRUE(m->insert(kBoundary - 64, 200, 1));
  ASSERT_TRUE(m->insert(kBoundary + 0x20000, 0x5000, 2));
  ASSERT_TRUE(m->insert(next - 0x10000, 0x20000, 3));
  BlockInfo b;
  struct Probe { uint64_t addr; bool hit; uint32_t site; } probes[] = {
      {kBoundary - 64, true, 1}, {kBoundary + 135, true, 1}, {kBoundary + 136, false, 0},
      {kBoundary + 0x20000, true, 2}, {kBoundary + 0x24fff, true, 2}, {kBoundary + 0x25000, false, 0},
      {next - 0x10001, false, 0}, {next - 0x10000, true, 3}, {next, true, 3}, {next + 0xffff, true, 3},
      {next + 0x10000, false, 0}};
  for (const Probe& p : probes) {
    EXPECT_EQ(m->lookup(p.addr, &b), p.hit) << std::hex << p.addr;
    if (p.hit) {
      EXPECT_EQ(b.site, p.site) << std::hex << p.addr;
    }
  }
  EXPECT_EQ(m->size(), 3u);
  ASSERT_TRUE(m->remove(next - 0x10000, &b));
  EXPECT_EQ(b.site, 3u);
  EXPECT_FALSE(m->lookup(next + 0x8000, &b));
  EXPECT_FALSE(m->maybe_tracked(next - 0x10000));
  // A range over a boundary drops what starts inside it, from both shards and the cross list.
  ASSERT_TRUE(m->insert(next - 0x10000, 0x20000, 4));
  EXPECT_EQ(m->remove_range(kBoundary - 64, next - 0xffff), 3u);
  EXPECT_EQ(m->size(), 0u);
  EXPECT_FALSE(m->maybe_tracked(kBoundary - 64));
  EXPECT_FALSE(m->maybe_tracked(kBoundary + 0x20000));
  EXPECT_FALSE(m->lookup(next, &b));
}

TEST(HeapMap, RemoveRangeLeavesTheOtherRegionsOfTheSameShard) {
  auto m = make_map();
  // Regions r and r + 64 share a shard; removing r's blocks leaves r + 64's.
  const uint64_t r = kBoundary, other = kBoundary + 64 * kRegion;
  for (uint64_t base : {r, other}) {
    ASSERT_TRUE(m->insert(base + 0x100, 64, 1));
    ASSERT_TRUE(m->insert(base + 0x10000, 0x8000, 2));
  }
  EXPECT_EQ(m->remove_range(r, r + kRegion), 2u);
  BlockInfo b;
  EXPECT_FALSE(m->lookup(r + 0x100, &b));
  EXPECT_FALSE(m->lookup(r + 0x10000, &b));
  EXPECT_TRUE(m->lookup(other + 0x100, &b));
  EXPECT_TRUE(m->lookup(other + 0x17fff, &b));
  EXPECT_EQ(m->size(), 2u);
}

// Two blocks of different shards can share a counter of the free() filter. Two threads insert
// and remove one each, a million times: a lost update would leave a live block reported as
// certainly untracked (the block would then never leave the map), or a count behind after both
// are gone.
TEST(HeapMap, FilterCountersSharedByTwoShardsStayExact) {
  auto m = make_map();
  const uint64_t a = kBoundary + 0x12340;
  ASSERT_TRUE(m->insert(a, 32, 1));
  uint64_t b = 0;  // a block start in another shard's region whose counter is a's
  for (uint64_t region = 1; region < 64 && !b; ++region)
    for (uint64_t unit = 0; unit < 1024 && !b; ++unit) {
      const uint64_t cand = kBoundary + region * kRegion + unit * 0x10000 + (a & 0xffff);
      if (m->maybe_tracked(cand)) b = cand;
    }
  ASSERT_NE(b, 0u) << "no start shares the filter counter of " << std::hex << a;
  ASSERT_TRUE(m->remove(a, nullptr));
  ASSERT_FALSE(m->maybe_tracked(b));
  std::atomic<uint64_t> lost{0};
  auto churn = [&](uint64_t start) {
    for (int i = 0; i < 1000000; ++i) {
      m->insert(start, 32, 1);
      if (!m->maybe_tracked(start)) lost.fetch_add(1, std::memory_order_relaxed);
      m->remove(start, nullptr);
    }
  };
  std::thread t1(churn, a), t2(churn, b);
  t1.join();
  t2.join();
  EXPECT_EQ(lost.load(), 0u);
  EXPECT_FALSE(m->maybe_tracked(a));
  EXPECT_FALSE(m->maybe_tracked(b));
  EXPECT_EQ(m->size(), 0u);
}

// The stress of stress_never_miss with the blocks laid over a region boundary: the two writers
// churn blocks of both shards, and readers must find every stable block on either side.
TEST(HeapMap, ReadersNeverMissStableSmallBlocksAcrossARegionBoundary) {
  stress_never_miss(kBoundary - (uint64_t(1) << 15) * 32 / 2, 32, 24, 1 << 15);
}

TEST(HeapMap, ReadersNeverMissStableLargeBlocksAcrossARegionBoundary) {
  stress_never_miss(kBoundary - (uint64_t(1) << 11) * 8192 / 2, 8192, 6000, 1 << 11);
}

// Every block, stable or churned, straddles a region boundary: all of them are in the cross list,
// whose readers search the skip list itself while writers insert, remove and recycle its nodes.
TEST(HeapMap, ReadersNeverMissStableCrossBlocksWhileWritersRecycleNodes) {
  stress_never_miss(kBoundary - 4096, kRegion, 8192, 64);
}
