// The runtime's calling-context tree: the five roots, find-or-create, growth past the initial
// hash table and chunk, parents before children.
#include "trees/cct.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

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

// Memory metrics live in a side table: a node has a slot only once something was counted on it,
// the slot survives the tree's growth, and the format's ids come out with zeros left out.
TEST(Cct, MemoryMetricsOnlyForNodesThatGetThem) {
  auto c = std::make_unique<Cct>();
  ASSERT_TRUE(c->init());
  uint32_t a = c->child(1, uint8_t(hpcl::NodeKind::HeapVar), 3, 0);
  uint32_t b = c->child(a, uint8_t(hpcl::NodeKind::Frame), 0, 0x400123);
  EXPECT_EQ(c->mem_at(b), nullptr);
  EXPECT_EQ(c->mem_slots(), 0u);
  hpcrun::MemCounts* m = c->mem(b);
  ASSERT_NE(m, nullptr);
  m->latency += 250;
  m->latency_samples += 1;
  m->level[int(hpcl::MemLevel::LocalDram)] += 1;
  m->tlb_miss += 1;
  m->numa_local += 1;
  EXPECT_EQ(c->mem(b), m);  // the same slot again
  EXPECT_EQ(c->mem_slots(), 1u);
  EXPECT_EQ(c->mem_at(a), nullptr);
  // Growth of the tree (new chunks, a larger hash table) keeps the slot and its counts.
  for (uint32_t i = 0; i < 40000; ++i) c->child(2, uint8_t(hpcl::NodeKind::Frame), 0, 0x1000 + i);
  ASSERT_NE(c->mem_at(b), nullptr);
  EXPECT_EQ(c->mem_at(b)->latency, 250u);
  // Many slots: past one chunk of the side table.
  for (uint32_t i = 0; i < 3000; ++i) ASSERT_NE(c->mem(10 + i), nullptr);
  EXPECT_EQ(c->mem_slots(), 3001u);
  hpcl::Metric ms[hpcrun::kMaxMemMetrics];
  int n = hpcrun::mem_counts_metrics(*c->mem_at(b), ms);
  ASSERT_EQ(n, 5);
  EXPECT_EQ(ms[0].id, hpcl::kMetricLatency);
  EXPECT_EQ(ms[0].value, 250u);
  EXPECT_EQ(ms[1].id, hpcl::kMetricLatencySamples);
  EXPECT_EQ(ms[2].id, hpcl::kMetricNumaLocal);
  EXPECT_EQ(ms[3].id, uint16_t(hpcl::kMetricDataSrcBase + int(hpcl::MemLevel::LocalDram)));
  EXPECT_EQ(ms[4].id, hpcl::kMetricTlbMiss);
  // reset (a fork child) forgets them.
  c->reset();
  EXPECT_EQ(c->mem_slots(), 0u);
}

TEST(MemCounts, EveryFieldHasItsMetricId) {
  hpcrun::MemCounts m;
  m.latency = 1; m.latency_samples = 2; m.numa_local = 3; m.numa_remote = 4;
  for (int l = 0; l < hpcrun::kMemLevels; ++l) m.level[l] = 100 + l;
  m.tlb_hit = 5; m.tlb_miss = 6; m.locked = 7; m.hitm = 8; m.dc_miss = 9;
  for (int k = 0; k < hpcrun::kMaxCounters; ++k) m.counters[k] = 1000 + k;
  for (int k = 0; k < hpcrun::kMaxTouchNodes; ++k) m.touch_node[k] = 2000 + k;
  hpcl::Metric ms[hpcrun::kMaxMemMetrics];
  ASSERT_EQ(hpcrun::mem_counts_metrics(m, ms), hpcrun::kMaxMemMetrics);
  const int memory = hpcrun::kMaxMemMetrics - hpcrun::kMaxCounters - hpcrun::kMaxTouchNodes;
  for (int i = 0; i < memory; ++i) EXPECT_TRUE(hpcl::is_memory_metric(ms[i].id)) << ms[i].id;
  EXPECT_EQ(ms[3].id, hpcl::kMetricNumaRemote);
  EXPECT_EQ(ms[4 + 11].id, uint16_t(hpcl::kMetricDataSrcBase + 11));
  EXPECT_EQ(ms[4 + 11].value, 111u);
  EXPECT_EQ(ms[memory - 1].id, hpcl::kMetricDcMiss);
  // Then the PAPI counters, ids 64 + k.
  for (int k = 0; k < hpcrun::kMaxCounters; ++k) {
    EXPECT_EQ(ms[memory + k].id, uint16_t(hpcl::kMetricCounterBase + k));
    EXPECT_EQ(ms[memory + k].value, uint64_t(1000 + k));
  }
  // Then the first touches by node, ids 80 + k.
  for (int k = 0; k < hpcrun::kMaxTouchNodes; ++k) {
    const hpcl::Metric& t = ms[memory + hpcrun::kMaxCounters + k];
    EXPECT_EQ(t.id, uint16_t(hpcl::kMetricFirstTouchNodeBase + k));
    EXPECT_EQ(t.value, uint64_t(2000 + k));
    EXPECT_EQ(hpcl::metric_name(t.id), "first_touch_node" + std::to_string(k));
  }
}
