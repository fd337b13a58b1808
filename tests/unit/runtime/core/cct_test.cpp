// The runtime's calling-context tree: the five roots, find-or-create, growth past the initial
// hash table and chunk, parents before children.
#include "trees/cct.h"

#include <gtest/gtest.h>

#include <memory>

#include "hpcl/profile.h"

using hpcrun::Cct;

TEST(Cct, InitCreatesTheKindRoots) {
  auto c = std::make_unique<Cct>();
  ASSERT_TRUE(c->init());
  ASSERT_EQ(c->size(), 5u);
  EXPECT_EQ(c->at(0)->kind, uint8_t(hpcl::NodeKind::Root));
  EXPECT_EQ(c->at(1)->kind, uint8_t(hpcl::NodeKind::HeapRoot));
  EXPECT_EQ(c->at(4)->kind, uint8_t(hpcl::NodeKind::NoDataRoot));
  for (uint32_t i = 1; i < 5; ++i) EXPECT_EQ(c->at(i)->parent, 0u);
}

TEST(Cct, ChildIsFoundAgain) {
  auto c = std::make_unique<Cct>();
  ASSERT_TRUE(c->init());
  uint32_t a = c->child(1, 6, 3, 0);
  uint32_t b = c->child(a, 5, 0, 0x400123);
  EXPECT_EQ(c->child(1, 6, 3, 0), a);
  EXPECT_EQ(c->child(a, 5, 0, 0x400123), b);
  EXPECT_NE(c->child(a, 5, 0, 0x400124), b);
  c->add_samples(b, 2);
  c->add_samples(b, 1);
  EXPECT_EQ(c->at(b)->samples, 3u);
}

TEST(Cct, GrowsPastTableAndChunk) {
  auto c = std::make_unique<Cct>();
  ASSERT_TRUE(c->init());
  constexpr uint32_t kN = 100000;  // > one chunk (16384) and > the initial table (4096)
  uint32_t parent = 2;
  for (uint32_t i = 0; i < kN; ++i) {
    uint32_t n = c->child(parent, 5, 0, 0x1000 + i);
    ASSERT_NE(n, Cct::kNone);
    ASSERT_LT(c->at(n)->parent, n);
    if (i % 1000 == 0) parent = n;
  }
  // Everything is still found.
  uint32_t size = c->size();
  parent = 2;
  for (uint32_t i = 0; i < kN; ++i) {
    uint32_t n = c->child(parent, 5, 0, 0x1000 + i);
    if (i % 1000 == 0) parent = n;
  }
  EXPECT_EQ(c->size(), size);
}

TEST(Cct, ResetKeepsOnlyTheRoots) {
  auto c = std::make_unique<Cct>();
  ASSERT_TRUE(c->init());
  c->child(1, 6, 1, 0);
  c->reset();
  EXPECT_EQ(c->size(), 5u);
}
