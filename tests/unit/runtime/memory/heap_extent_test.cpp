// The malloc heap's extent (heap_extent.h): the brk range and the table of 64 MiB arena heaps,
// and glibc's chunk header telling a thread arena's block from a main-arena one, checked on
// blocks this test's own malloc returns.
#include "memory/heap_extent.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <thread>

using hpcrun::HeapExtent;

TEST(HeapExtent, BrkRangeAndArenaHeaps) {
  auto e = std::make_unique<HeapExtent>();
  EXPECT_FALSE(e->contains(0x1000, 0x2000));  // brk start unknown: no range
  e->set_brk_start(0x555500000000ull);
  EXPECT_TRUE(e->contains(0x555500000000ull, 0x555500100000ull));
  EXPECT_TRUE(e->contains(0x5555000fffffull, 0x555500100000ull));
  EXPECT_FALSE(e->contains(0x555500100000ull, 0x555500100000ull));  // at the break
  EXPECT_FALSE(e->contains(0x5554ffffffffull, 0x555500100000ull));
  const uint64_t heap = 0x7f0004000000ull;  // 64 MiB aligned
  EXPECT_TRUE(e->add_arena_heap(heap));
  EXPECT_TRUE(e->add_arena_heap(heap));  // idempotent
  EXPECT_EQ(e->arena_heaps(), 1);
  EXPECT_TRUE(e->contains(heap, 0));
  EXPECT_TRUE(e->contains(heap + HeapExtent::kArenaHeap - 1, 0));
  EXPECT_FALSE(e->contains(heap + HeapExtent::kArenaHeap, 0));
  EXPECT_FALSE(e->contains(heap - 1, 0));
}

TEST(HeapExtent, TableIsBounded) {
  auto e = std::make_unique<HeapExtent>();
  for (int i = 0; i < HeapExtent::kMaxArenaHeaps; ++i)
    ASSERT_TRUE(e->add_arena_heap(uint64_t(i + 1) * HeapExtent::kArenaHeap));
  EXPECT_FALSE(e->add_arena_heap(uint64_t(HeapExtent::kMaxArenaHeaps + 1) * HeapExtent::kArenaHeap));
  EXPECT_TRUE(e->contains(HeapExtent::kArenaHeap + 5, 0));
}

TEST(HeapExtent, GlibcHeaderTellsThreadArenaBlocks) {
  void* main_block = malloc(48);
  ASSERT_NE(main_block, nullptr);
  EXPECT_FALSE(hpcrun::glibc_block_in_arena_heap(reinterpret_cast<uint64_t>(main_block)));
  uint64_t brk_lo = hpcrun::read_brk_heap_start();
  ASSERT_NE(brk_lo, 0u);
  auto e = std::make_unique<HeapExtent>();
  e->set_brk_start(brk_lo);
  EXPECT_TRUE(e->contains(reinterpret_cast<uint64_t>(main_block), reinterpret_cast<uint64_t>(sbrk(0))));
  void* big = malloc(1 << 20);  // its own mmap: not in an arena heap
  EXPECT_FALSE(hpcrun::glibc_block_in_arena_heap(reinterpret_cast<uint64_t>(big)));
  uint64_t thread_block = 0;
  bool in_arena = false;
  std::thread t([&] {
    void* p = malloc(48);
    thread_block = reinterpret_cast<uint64_t>(p);
    in_arena = hpcrun::glibc_block_in_arena_heap(thread_block);
    free(p);
  });
  t.join();
  EXPECT_TRUE(in_arena);
  EXPECT_FALSE(e->contains(thread_block, reinterpret_cast<uint64_t>(sbrk(0))));
  e->add_arena_heap(thread_block & ~(HeapExtent::kArenaHeap - 1));
  EXPECT_TRUE(e->contains(thread_block, 0));
  free(big);
  free(main_block);
}
