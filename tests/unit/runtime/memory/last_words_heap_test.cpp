// The heap of the ending process's writer (memory/last_words_heap.h): blocks that are freed come
// back for the next block of their size class, a realloc that fits stays in place, and aligned
// blocks are never handed out twice. Without reuse, a writer whose containers grow by doubling
// kept every outgrown copy.
#include "memory/last_words_heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

namespace hpcrun {
namespace {

// The heap's user is the writing thread with t_last_words set (process_end.cpp).
struct LastWordsHeap : ::testing::Test {
  void SetUp() override { t_last_words = 1; }
  void TearDown() override { t_last_words = 0; }
};

TEST_F(LastWordsHeap, FreedBlockServesTheNextOfItsClass) {
  void* a = last_words_alloc(100);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(last_words_owns(a));
  EXPECT_EQ(last_words_size(a), 100u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 16, 0u);
  last_words_free(a);
  void* b = last_words_alloc(120);  // the same class (128 bytes)
  EXPECT_EQ(b, a);
  EXPECT_EQ(last_words_size(b), 120u);
  void* c = last_words_alloc(300);  // another class: a new block
  EXPECT_NE(c, a);
  last_words_free(b);
  last_words_free(c);
}

TEST_F(LastWordsHeap, GrowingLikeAVectorStaysWithinTwiceTheLastSize) {
  // A container that doubles 20 times and frees the old copy each time, twice over: the second
  // round must reuse the first's blocks, so the chunks do not grow.
  auto grow = [] {
    void* p = nullptr;
    size_t n = 0;
    for (int i = 0; i < 20; ++i) {
      size_t m = n ? 2 * n : 64;
      void* q = last_words_alloc(m);
      if (p) {
        memcpy(q, p, n);
        last_words_free(p);
      }
      p = q;
      n = m;
    }
    memset(p, 1, n);
    last_words_free(p);
  };
  grow();
  const size_t reserved = last_words_reserved();
  grow();
  EXPECT_EQ(last_words_reserved(), reserved);
}

TEST_F(LastWordsHeap, ReallocInPlaceWhileTheClassHoldsIt) {
  auto* p = static_cast<char*>(last_words_alloc(40));  // class of 64 bytes
  memcpy(p, "abcdef", 7);
  EXPECT_EQ(last_words_realloc(p, 64), p);
  EXPECT_EQ(last_words_size(p), 64u);
  auto* q = static_cast<char*>(last_words_realloc(p, 65));
  EXPECT_NE(q, p);
  EXPECT_STREQ(q, "abcdef");
  EXPECT_EQ(last_words_alloc(50), p);  // the outgrown block went back to its class
}

TEST_F(LastWordsHeap, AlignedBlocksAreNeverReused) {
  std::set<void*> seen;
  for (int i = 0; i < 8; ++i) {
    void* p = last_words_alloc(64, 4096);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
    EXPECT_TRUE(seen.insert(p).second);
    last_words_free(p);
  }
}

TEST_F(LastWordsHeap, LargeBlocksAreCarvedToMeasure) {
  const size_t big = size_t(100) << 20;  // beyond the largest class (32 MiB)
  void* p = last_words_alloc(big);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(last_words_size(p), big);
  last_words_free(p);  // kept: not on a free list
  EXPECT_NE(last_words_alloc(big), p);
}

TEST_F(LastWordsHeap, AnotherThreadsFreeLeavesTheBlock) {
  void* a = last_words_alloc(1000);
  t_last_words = 0;  // as on a thread that is not writing
  last_words_free(a);
  t_last_words = 1;
  EXPECT_NE(last_words_alloc(1000), a);
}

}  // namespace
}  // namespace hpcrun
