// First touch by NUMA node (sources/page_faults/touch_node.h): synthetic page-fault records, as
// the kernel writes them for kFaultSampleType, parsed and counted by the node of their CPU at
// the faulting instruction's tree node; what the writer then puts in the file (metric 80 + k).
#include "sources/page_faults/touch_node.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "hpcl/profile.h"
#include "trees/numa.h"
#include "sources/page_faults/fault_record.h"
#include "trees/cct.h"

namespace {

using hpcrun::Cct;

// The body of a PERF_RECORD_SAMPLE for kFaultSampleType: ip, pid|tid, time, addr, cpu|res.
std::vector<uint8_t> fault_body(uint64_t ip, uint64_t addr, uint32_t tid, uint32_t cpu) {
  const uint64_t words[] = {ip, uint64_t(tid) << 32 | 42, 1000, addr, cpu};
  std::vector<uint8_t> b(sizeof words);
  memcpy(b.data(), words, sizeof words);
  return b;
}

// What record_fault does with one record once it found the leaf: parse, then count.
bool take(Cct& c, uint32_t leaf, const std::vector<uint8_t>& body) {
  hpcrun::FaultRecord r;
  if (!hpcrun::parse_fault_record(body.data(), body.size(), &r)) return false;
  c.add_page_faults(leaf, 1);
  return hpcrun::count_touch_node(c, leaf, r.cpu);
}

TEST(TouchNode, CountsByTheNodeOfTheFaultingCpu) {
  // Two nodes of two CPUs each; CPU 9 has no known node; CPU 20 is on node 16, beyond the ids.
  for (uint32_t cpu : {0u, 1u}) hpcrun::numa_set_cpu_node(cpu, 0);
  for (uint32_t cpu : {2u, 3u}) hpcrun::numa_set_cpu_node(cpu, 1);
  hpcrun::numa_set_cpu_node(9, -1);
  hpcrun::numa_set_cpu_node(20, 16);
  auto c = std::make_unique<Cct>();
  ASSERT_TRUE(c->init());
  const uint32_t var = c->child(hpcrun::kCctHeapRoot, uint8_t(hpcl::NodeKind::HeapVar), 0, 0);
  const uint32_t fill = c->child(var, uint8_t(hpcl::NodeKind::Frame), 0, 0x401000);
  const uint32_t other = c->child(var, uint8_t(hpcl::NodeKind::Frame), 0, 0x402000);
  // A serial fill on CPU 1 (node 0), then three faults elsewhere on CPUs 2 and 3 (node 1).
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(take(*c, fill, fault_body(0x401000, 0x7f0000000000 + i * 4096u, 7, 1)));
  EXPECT_TRUE(take(*c, other, fault_body(0x402000, 0x7f0000100000, 8, 2)));
  EXPECT_TRUE(take(*c, other, fault_body(0x402000, 0x7f0000101000, 8, 3)));
  EXPECT_TRUE(take(*c, other, fault_body(0x402000, 0x7f0000102000, 9, 2)));
  // Unknown node, or a node beyond the metric ids: a page fault without a node.
  EXPECT_FALSE(take(*c, other, fault_body(0x402000, 0x7f0000103000, 9, 9)));
  EXPECT_FALSE(take(*c, other, fault_body(0x402000, 0x7f0000104000, 9, 20)));

  ASSERT_NE(c->mem_at(fill), nullptr);
  EXPECT_EQ(c->mem_at(fill)->touch_node[0], 5u);
  EXPECT_EQ(c->mem_at(fill)->touch_node[1], 0u);
  EXPECT_EQ(c->at(fill)->page_faults, 5u);
  ASSERT_NE(c->mem_at(other), nullptr);
  EXPECT_EQ(c->mem_at(other)->touch_node[0], 0u);
  EXPECT_EQ(c->mem_at(other)->touch_node[1], 3u);
  EXPECT_EQ(c->at(other)->page_faults, 5u);  // the two without a node are still page faults
  EXPECT_EQ(c->mem_at(var), nullptr);          // counted at the faulting instruction only

  // The file's metrics: first_touch_node1 = 3 at `other`, nothing else.
  hpcl::Metric ms[hpcrun::kMaxMemMetrics];
  ASSERT_EQ(hpcrun::mem_counts_metrics(*c->mem_at(other), ms), 1);
  EXPECT_EQ(ms[0].id, hpcl::kMetricFirstTouchNodeBase + 1);
  EXPECT_EQ(ms[0].value, 3u);
  EXPECT_STREQ(hpcl::metric_name(ms[0].id), "first_touch_node1");
}

}  // namespace
