// The memory scenario of the golden test: 2 ranks of an imaginary run measured with PEBS load
// latency (period 2003) and NUMA placement, with the instruction and cycle counts in META. What
// each variable shows, by design:
//   nodes (malloc, pointer chasing): remote DRAM and TLB misses, mean latency ~300 cycles;
//   field (calloc, streaming):       L1, fill buffer and L3, mean ~20 cycles, half remote pages;
//   lookup (static table):           L1 only, ~5 cycles;
//   hits (static, atomic counter):   locked, HITM (shared between threads), remote cache;
//   [stack]:                          L1, latency without a data source on some samples.
// Program: 1,936,200 cycles of sampled latency x period 2003 over 2e10 instructions: 0.194 cycle
// per instruction, memory-bound by the 0.1 threshold; CPI 1.4.
#include "golden_memory.h"

#include <string>

#include "profile_builder.h"

namespace hpcl::testing {
namespace {

constexpr uint16_t level(MemLevel l) { return uint16_t(kMetricDataSrcBase + uint16_t(l)); }

void add(Tree& t, uint32_t leaf, const std::vector<Metric>& metrics) {
  for (const Metric& m : metrics) t.nodes[leaf].add_metric(m.id, m.value);
}

}  // namespace

Profile memory_rank(int r) {
  const Module app{"/nonexistent/hpcl-golden/bin/chase", "c4a5e", 0x555600000000};
  const Module libc{"/nonexistent/hpcl-golden/lib/libc.so.6", "c0ffee", 0x7f1000000000};
  Profile p = new_process(r, "pebs-load", "2003");
  p.set_meta("exe", app.path);
  p.set_meta("cmdline", app.path + " 1000000");
  p.set_meta("start_ns", std::to_string(1700000000000000000ull + r));
  p.set_meta("end_ns", std::to_string(1700000003000000000ull + r));
  p.set_meta("instructions", "10000000000");
  p.set_meta("cycles", "14000000000");
  p.modules = {app, libc};
  p.sites = {{AllocApi::Malloc, 0, {{1, 0x9a0e0}, {0, 0x1240}, {0, 0x1c05}}, 1000000, 64000000},
             {AllocApi::Calloc, 0, {{1, 0x9a200}, {0, 0x1300}, {0, 0x1c10}}, 1, 8u << 20}};
  p.statics = {{0, 0x6040, 4096, 0, "lookup"}, {0, 0x7000, 8, 0, "hits"}};
  const Frame main_f{0, 0x1c90};
  Tree t = new_tree(5000 + r);
  const uint64_t k = 1 + r;
  uint32_t chase = add_sample_path(t, NodeKind::HeapRoot, std::make_pair(NodeKind::HeapVar, 0u),
                                   {main_f, {0, 0x2100}}, 2000 * k);
  add(t, chase, {{kMetricLatency, 600000 * k}, {kMetricLatencySamples, 2000 * k},
                 {level(MemLevel::L3), 300 * k}, {level(MemLevel::LocalDram), 500 * k},
                 {level(MemLevel::RemoteDram), 1100 * k}, {level(MemLevel::RemoteCache), 100 * k},
                 {kMetricTlbHit, 800 * k}, {kMetricTlbMiss, 1200 * k},
                 {kMetricNumaLocal, 700 * k}, {kMetricNumaRemote, 1300 * k}});
  uint32_t stream = add_sample_path(t, NodeKind::HeapRoot, std::make_pair(NodeKind::HeapVar, 1u),
                                    {main_f, {0, 0x2200}}, 1500 * k);
  add(t, stream, {{kMetricLatency, 30000 * k}, {kMetricLatencySamples, 1500 * k},
                  {level(MemLevel::L1), 900 * k}, {level(MemLevel::FillBuffer), 400 * k},
                  {level(MemLevel::L3), 200 * k}, {kMetricTlbHit, 1500 * k},
                  {kMetricNumaLocal, 750 * k}, {kMetricNumaRemote, 750 * k}});
  uint32_t lookup = add_sample_path(t, NodeKind::StaticRoot, std::make_pair(NodeKind::StaticVarNode, 0u),
                                    {main_f, {0, 0x2300}}, 600 * k);
  add(t, lookup, {{kMetricLatency, 3000 * k}, {kMetricLatencySamples, 600 * k},
                  {level(MemLevel::L1), 600 * k}, {kMetricTlbHit, 600 * k}});
  uint32_t hits = add_sample_path(t, NodeKind::StaticRoot, std::make_pair(NodeKind::StaticVarNode, 1u),
                                  {main_f, {0, 0x2400}}, 80 * k);
  add(t, hits, {{kMetricLatency, 12000 * k}, {kMetricLatencySamples, 80 * k},
                {level(MemLevel::RemoteCache), 60 * k}, {level(MemLevel::L1), 20 * k},
                {kMetricLocked, 80 * k}, {kMetricHitm, 50 * k}, {kMetricTlbHit, 80 * k}});
  uint32_t stack = add_sample_path(t, NodeKind::UnknownRoot,
                                   std::make_pair(NodeKind::UnknownClass, uint32_t(UnknownClass::Stack)),
                                   {main_f, {0, 0x2500}}, 100 * k);
  add(t, stack, {{kMetricLatency, 400 * k}, {kMetricLatencySamples, 100 * k},
                 {level(MemLevel::L1), 70 * k}, {level(MemLevel::NotAvailable), 30 * k}});
  nodata_sample(t, {main_f, {1, 0x150000}}, 20);
  uint64_t total = 0;
  for (const Node& n : t.nodes) total += n.metric(kMetricSamples);
  p.trees = {t};
  p.set_meta("samples_total", std::to_string(total));
  p.set_meta("samples_dropped", "0");
  return p;
}

}  // namespace hpcl::testing
