// The memory part of the report model and its output, on synthetic databases: PEBS-like (latency,
// data source, TLB, lock, HITM, with instruction and cycle counts), IBS-like (DC miss, no
// instruction count), soft with NUMA placement only, soft without any (reports unchanged), metric
// ids this analyzer does not know, runtime groups, and memory metrics through a real merge.
#include <sstream>

#include "model/database.h"
#include "hpcl/text/format_common.h"
#include "output/formatters.h"
#include "merge/merge.h"
#include "profile_builder.h"
#include "model/report_model.h"

#include <nlohmann/json.hpp>

// Reports are read back with nlohmann-json, which refuses what RFC 8259 refuses.
using Json = nlohmann::json;

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

constexpr uint16_t kLevel(MemLevel l) { return uint16_t(kMetricDataSrcBase + uint16_t(l)); }

// Adds `samples` on a path (as profile_builder does) and the memory metrics at its leaf.
void sample(Tree& t, NodeKind root, std::optional<std::pair<NodeKind, uint32_t>> var,
            const std::vector<Frame>& frames, uint64_t samples, const std::vector<Metric>& memory) {
  uint32_t leaf = add_sample_path(t, root, var, frames, samples);
  for (const Metric& m : memory) t.nodes[leaf].add_metric(m.id, m.value);
}
auto heap(uint32_t site) { return std::make_optional(std::make_pair(NodeKind::HeapVar, site)); }
auto stat(uint32_t index) { return std::make_optional(std::make_pair(NodeKind::StaticVarNode, index)); }
auto stack() {
  return std::make_optional(std::make_pair(NodeKind::UnknownClass, uint32_t(UnknownClass::Stack)));
}

Profile base_database(const std::string& source, const std::string& rate) {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("tool", "hpcprof-lite");
  db.set_meta("processes", "1");
  db.set_meta("threads", "1");
  db.set_meta("source", source);
  db.set_meta("rate", rate);
  db.set_meta("samples_dropped", "0");
  db.modules = {{"/nonexistent/bin/app", "", 0}, {"/nonexistent/lib/libc.so.6", "", 0}};
  db.sites = {{AllocApi::Calloc, 0, {{0, 0x100}}, 1, 1 << 20}, {AllocApi::Malloc, 0, {{0, 0x200}}, 64, 4096}};
  db.statics = {{0, 0x4000, 256, 0, "table"}, {1, 0x8000, 64, 0, "_IO_stdin"}};
  return db;
}

// PEBS load latency. grid (site 0): 100 samples, latency 14400 (mean 144), l1 10, lfb 20, l3 30,
// local_dram 30, remote_dram 10, TLB 75 hit 25 miss. list (site 1): 50 samples, latency 10000
// (mean 200), local_dram 50, 50 TLB misses. table: 30 samples, latency 150 (mean 5), l1 30, TLB
// hit 30, locked 3, hitm 2. [stack]: 10, latency 40, l1 10. No data: 10 samples, no metrics.
// Program: 190 sampled loads, latency 24590; period 1000, 1e8 instructions, 2e8 cycles.
Profile pebs_database() {
  Profile db = base_database("pebs-load", "1000");
  db.set_meta("instructions", "100000000");
  db.set_meta("cycles", "200000000");
  Tree t = new_tree(0);
  sample(t, NodeKind::HeapRoot, heap(0), {{0, 0x1000}, {0, 0x1010}}, 60,
         {{kMetricLatency, 2400}, {kMetricLatencySamples, 60}, {kLevel(MemLevel::L1), 10},
          {kLevel(MemLevel::FillBuffer), 20}, {kLevel(MemLevel::L3), 30}, {kMetricTlbHit, 55},
          {kMetricTlbMiss, 5}});
  sample(t, NodeKind::HeapRoot, heap(0), {{0, 0x1000}, {0, 0x1020}}, 40,
         {{kMetricLatency, 12000}, {kMetricLatencySamples, 40}, {kLevel(MemLevel::LocalDram), 30},
          {kLevel(MemLevel::RemoteDram), 10}, {kMetricTlbHit, 20}, {kMetricTlbMiss, 20}});
  sample(t, NodeKind::HeapRoot, heap(1), {{0, 0x1000}, {0, 0x1030}}, 50,
         {{kMetricLatency, 10000}, {kMetricLatencySamples, 50}, {kLevel(MemLevel::LocalDram), 50},
          {kMetricTlbMiss, 50}});
  sample(t, NodeKind::StaticRoot, stat(0), {{0, 0x1040}}, 30,
         {{kMetricLatency, 150}, {kMetricLatencySamples, 30}, {kLevel(MemLevel::L1), 30},
          {kMetricTlbHit, 30}, {kMetricLocked, 3}, {kMetricHitm, 2}});
  sample(t, NodeKind::UnknownRoot, stack(), {{0, 0x1050}}, 10,
         {{kMetricLatency, 40}, {kMetricLatencySamples, 10}, {kLevel(MemLevel::L1), 10}});
  nodata_sample(t, {{0, 0x1060}}, 10);
  db.trees = {t};
  return db;
}

// AMD IBS op: DC misses, latency on the misses only, no instruction count in META.
Profile ibs_database() {
  Profile db = base_database("ibs-op", "65536");
  Tree t = new_tree(0);
  sample(t, NodeKind::HeapRoot, heap(0), {{0, 0x1010}}, 80,
         {{kMetricLatency, 9000}, {kMetricLatencySamples, 30}, {kLevel(MemLevel::L1), 50},
          {kLevel(MemLevel::L2), 20}, {kLevel(MemLevel::RemoteCache), 10}, {kMetricDcMiss, 30},
          {kMetricTlbHit, 78}, {kMetricTlbMiss, 2}});
  sample(t, NodeKind::StaticRoot, stat(0), {{0, 0x1040}}, 20, {{kLevel(MemLevel::L1), 20}});
  db.trees = {t};
  return db;
}

// The soft source with NUMA placement: no latency, no data source.
Profile numa_database() {
  Profile db = base_database("soft", "1000");
  Tree t = new_tree(0);
  sample(t, NodeKind::HeapRoot, heap(0), {{0, 0x1010}}, 40, {{kMetricNumaLocal, 30}, {kMetricNumaRemote, 10}});
  sample(t, NodeKind::HeapRoot, heap(1), {{0, 0x1030}}, 20, {{kMetricNumaLocal, 20}});
  sample(t, NodeKind::StaticRoot, stat(0), {{0, 0x1040}}, 20, {});
  nodata_sample(t, {{0, 0x1060}}, 20);
  db.trees = {t};
  return db;
}

// The same without NUMA placement: no memory metric at all, as the soft source wrote before 1.5.
Profile soft_database() {
  Profile db = numa_database();
  for (Node& n : db.trees[0].nodes)
    std::erase_if(n.metrics, [](const Metric& m) { return is_memory_metric(m.id); });
  return db;
}

ReportModel ungrouped(const Profile& db) {
  ReportModelOptions o;
  o.group_runtime = false;
  o.access_evidence = false;  // the synthetic modules have no files (notes are counted below)
  return build_report_model(db, o);
}

const Variable& find(const ReportModel& m, const std::string& name) {
  for (const Variable& v : m.variables)
    if (v.name == name) return v;
  ADD_FAILURE() << "no variable " << name;
  static Variable none;
  return none;
}

// The heap variables are named after their allocation site, "app+0x..." without symbols.
const Variable& heap_var(const ReportModel& m, AllocApi api) {
  for (const Variable& v : m.variables)
    if (v.kind == VariableKind::Heap && v.allocator == alloc_api_name(api)) return v;
  ADD_FAILURE() << "no heap variable of " << alloc_api_name(api);
  static Variable none;
  return none;
}

std::string render(const ReportModel& m, const std::string& format, size_t width = 120) {
  ReportOptions o;
  o.top = 0;
  o.width = width;
  std::ostringstream out;
  if (format == "text") write_text(m, o, out);
  else if (format == "json") write_json(m, o, out);
  else write_csv(m, o, out);
  return out.str();
}

TEST(MemoryReport, PebsSumsPerVariableAndProgram) {
  ReportModel m = ungrouped(pebs_database());
  const Variable& grid = heap_var(m, AllocApi::Calloc);
  EXPECT_EQ(grid.samples, 100u);
  EXPECT_EQ(grid.memory.sum(kMetricLatency), 14400u);
  EXPECT_EQ(grid.memory.sum(kMetricLatencySamples), 100u);
  EXPECT_EQ(grid.memory.sum(kLevel(MemLevel::L3)), 30u);
  EXPECT_EQ(grid.memory.sum(kMetricTlbMiss), 25u);
  EXPECT_EQ(grid.memory.sum(kMetricLocked), 0u);
  EXPECT_TRUE(grid.memory.has_mean_latency);
  EXPECT_DOUBLE_EQ(grid.memory.mean_latency, 144.0);
  EXPECT_EQ(grid.memory.level_samples, 100u);
  ASSERT_EQ(grid.memory.levels.size(), 5u);
  // Samples descending; l3 and local_dram tie at 30 and keep id order.
  EXPECT_EQ(grid.memory.levels[0].id, kLevel(MemLevel::L3));
  EXPECT_EQ(grid.memory.levels[1].id, kLevel(MemLevel::LocalDram));
  EXPECT_DOUBLE_EQ(grid.memory.levels[0].share, 0.3);
  EXPECT_EQ(grid.memory.levels[2].id, kLevel(MemLevel::FillBuffer));
  EXPECT_TRUE(grid.memory.has_tlb);
  EXPECT_DOUBLE_EQ(grid.memory.tlb_miss_rate, 0.25);
  EXPECT_FALSE(grid.memory.has_numa);
  // 14400 cycles sampled x period 1000 / 1e8 instructions.
  EXPECT_TRUE(grid.memory.has_latency_per_instruction);
  EXPECT_DOUBLE_EQ(grid.memory.latency_per_instruction, 0.144);

  const Variable& list = heap_var(m, AllocApi::Malloc);
  EXPECT_DOUBLE_EQ(list.memory.mean_latency, 200.0);
  EXPECT_DOUBLE_EQ(list.memory.tlb_miss_rate, 1.0);
  const Variable& table = find(m, "table");
  EXPECT_EQ(table.memory.sum(kMetricLocked), 3u);
  EXPECT_EQ(table.memory.sum(kMetricHitm), 2u);
  EXPECT_DOUBLE_EQ(table.memory.mean_latency, 5.0);
  EXPECT_EQ(find(m, "[stack]").memory.sum(kMetricLatency), 40u);
  // A static without samples has no memory metrics at all.
  EXPECT_FALSE(find(m, "_IO_stdin").memory.present());

  EXPECT_EQ(m.memory.sum(kMetricLatency), 24590u);
  EXPECT_EQ(m.memory.sum(kMetricLatencySamples), 190u);
  EXPECT_EQ(m.memory.sum(kLevel(MemLevel::L1)), 50u);
  EXPECT_DOUBLE_EQ(m.memory.mean_latency, 24590.0 / 190.0);
  EXPECT_DOUBLE_EQ(m.memory.tlb_miss_rate, 75.0 / 180.0);
  // The variables' parts add up to the program's figure.
  double parts = 0;
  for (const Variable& v : m.variables) parts += v.memory.latency_per_instruction;
  EXPECT_NEAR(parts, m.memory.latency_per_instruction, 1e-12);
}

TEST(MemoryReport, PebsAssessmentIsMemoryBound) {
  ReportModel m = ungrouped(pebs_database());
  const MemoryAssessment& a = m.assessment;
  EXPECT_EQ(a.verdict, Boundness::MemoryBound);
  EXPECT_TRUE(a.missing.empty());
  EXPECT_DOUBLE_EQ(a.latency_per_instruction, 0.2459);
  EXPECT_EQ(a.period, 1000u);
  EXPECT_EQ(a.instructions, 100000000u);
  EXPECT_EQ(a.cycles, 200000000u);
  EXPECT_DOUBLE_EQ(a.cycles_per_instruction, 2.0);
  EXPECT_DOUBLE_EQ(a.memory_instruction_share, 190.0 / 200.0);

  // Ten times the instructions: 0.02459 cycles of latency per instruction, CPU-bound.
  Profile db = pebs_database();
  db.set_meta("instructions", "1000000000");
  EXPECT_EQ(ungrouped(db).assessment.verdict, Boundness::CpuBound);
}

// Without META instructions and cycles, the PAPI counters PAPI_TOT_INS and PAPI_TOT_CYC (-e)
// give them: their events summed over the tree.
TEST(MemoryReport, AssessmentTakesInstructionsFromPapiCounters) {
  Profile db = ibs_database();  // has the period, lacks instructions
  db.set_meta("counter.0.event", "PAPI_TOT_CYC");
  db.set_meta("counter.1.event", "PAPI_TOT_INS");
  TreeBuilder b(db.trees[0]);
  uint32_t n = b.child(b.child(0, NodeKind::NoDataRoot, 0, 0), NodeKind::Frame, 0, 0x2100);
  db.trees[0].nodes[n].add_metric(kMetricCounterBase, 150000000);
  db.trees[0].nodes[n].add_metric(kMetricCounterBase + 1, 60000000);
  n = b.child(b.child(0, NodeKind::NoDataRoot, 0, 0), NodeKind::Frame, 0, 0x2200);
  db.trees[0].nodes[n].add_metric(kMetricCounterBase + 1, 40000000);
  const MemoryAssessment a = ungrouped(db).assessment;
  EXPECT_TRUE(a.missing.empty());
  EXPECT_EQ(a.instructions, 100000000u);
  EXPECT_EQ(a.cycles, 150000000u);
  EXPECT_DOUBLE_EQ(a.cycles_per_instruction, 1.5);
  EXPECT_NE(a.verdict, Boundness::Unknown);
}

TEST(MemoryReport, AssessmentNamesWhatIsMissing) {
  ReportModel ibs = ungrouped(ibs_database());
  EXPECT_EQ(ibs.assessment.verdict, Boundness::Unknown);
  EXPECT_EQ(ibs.assessment.missing, std::vector<std::string>{"instructions"});
  EXPECT_TRUE(ibs.assessment.has_period);
  EXPECT_FALSE(ibs.memory.has_latency_per_instruction);

  // Profiles of different sources merged: the rate is no period.
  Profile mixed = pebs_database();
  mixed.set_meta("source", "mixed");
  ReportModel m = ungrouped(mixed);
  EXPECT_EQ(m.assessment.verdict, Boundness::Unknown);
  EXPECT_EQ(m.assessment.missing, std::vector<std::string>{"period"});
  EXPECT_TRUE(m.memory.has_mean_latency);  // the mean needs no period

  std::string text = render(m, "text");
  EXPECT_NE(text.find("assessment: latency per instruction not known"), std::string::npos) << text;
  EXPECT_NE(text.find("the database lacks the source's period"), std::string::npos) << text;
  Json j = Json::parse(render(m, "json"));
  EXPECT_EQ(j.at("memory").at("assessment").at("verdict").get<std::string>(), "unknown");
  EXPECT_EQ(j.at("memory").at("assessment").at("missing").at(0).get<std::string>(), "period");
  EXPECT_FALSE(j.at("memory").at("assessment").contains("latency_per_instruction"));
}

TEST(MemoryReport, IbsDcMissAndLatencyOnMissesOnly) {
  ReportModel m = ungrouped(ibs_database());
  const Variable& grid = heap_var(m, AllocApi::Calloc);
  EXPECT_EQ(grid.memory.sum(kMetricDcMiss), 30u);
  EXPECT_DOUBLE_EQ(grid.memory.mean_latency, 300.0);  // 9000 over the 30 samples with a latency
  EXPECT_EQ(grid.memory.levels[0].id, kLevel(MemLevel::L1));
  EXPECT_DOUBLE_EQ(grid.memory.levels[0].share, 50.0 / 80.0);
  const Variable& table = find(m, "table");
  EXPECT_FALSE(table.memory.has_mean_latency);  // data source without a latency
  EXPECT_FALSE(table.memory.has_tlb);
  EXPECT_EQ(table.memory.level_samples, 20u);

  Json j = Json::parse(render(m, "json"));
  const Json& mem = j.at("memory");
  EXPECT_EQ(mem.at("metrics").at("dc_miss").get<uint64_t>(), 30u);
  EXPECT_EQ(mem.at("metrics").at("remote_cache").get<uint64_t>(), 10u);
  EXPECT_EQ(mem.at("data_sources").at(0).at("level").get<std::string>(), "l1");
  EXPECT_EQ(mem.at("data_sources").at(0).at("samples").get<uint64_t>(), 70u);
  EXPECT_FALSE(mem.contains("numa_remote_share"));
  for (const Json& v : j.at("variables"))
    if (v.at("name").get<std::string>() == "table") {
      EXPECT_FALSE(v.at("memory").contains("mean_latency"));
      EXPECT_EQ(v.at("memory").at("metrics").at("l1").get<uint64_t>(), 20u);
    }
}

TEST(MemoryReport, SoftWithNumaSaysWhatItCan) {
  ReportModel m = ungrouped(numa_database());
  const Variable& grid = heap_var(m, AllocApi::Calloc);
  EXPECT_TRUE(grid.memory.has_numa);
  EXPECT_DOUBLE_EQ(grid.memory.numa_remote_share, 0.25);
  EXPECT_FALSE(grid.memory.has_mean_latency);
  EXPECT_TRUE(grid.memory.levels.empty());
  EXPECT_FALSE(find(m, "table").memory.present());
  EXPECT_DOUBLE_EQ(m.memory.numa_remote_share, 10.0 / 60.0);
  EXPECT_EQ(m.assessment.verdict, Boundness::Unknown);
  EXPECT_EQ(m.assessment.missing, (std::vector<std::string>{"latency", "period", "instructions"}));
  // The soft source's share of samples on memory instructions: those with a data address.
  EXPECT_DOUBLE_EQ(m.assessment.memory_instruction_share, 80.0 / 100.0);

  std::string text = render(m, "text");
  EXPECT_NE(text.find("remote NUMA: 16.7% of 60 samples"), std::string::npos) << text;
  EXPECT_NE(text.find("no access latency in this database (source soft)"), std::string::npos) << text;
  EXPECT_NE(text.find("80.0% of the samples were on memory instructions"), std::string::npos) << text;
  EXPECT_EQ(text.find("latency:"), std::string::npos) << text;
  EXPECT_EQ(text.find("TLB"), std::string::npos) << text;
  EXPECT_NE(text.find("remote (NUMA page): share of the samples that recorded it."), std::string::npos) << text;
  std::string csv = render(m, "csv");
  EXPECT_NE(csv.find(",threads_imbalance,numa_local,numa_remote,numa_remote_share,pattern,"), std::string::npos) << csv;
}

// One NUMA node (META numa_nodes 1): every page is local by construction, so the text says
// nothing of NUMA while JSON keeps the counts; the soft assessment stays.
TEST(MemoryReport, OneNodeLeavesNumaOutOfTheText) {
  Profile db = numa_database();
  db.trees[0] = new_tree(0);
  sample(db.trees[0], NodeKind::HeapRoot, heap(0), {{0, 0x1010}}, 40, {{kMetricNumaLocal, 40}});
  db.set_meta("numa_nodes", "1");
  db.set_meta("numa_unresolved", "3");
  ReportModel m = ungrouped(db);
  EXPECT_EQ(m.numa_nodes, 1u);
  std::string text = render(m, "text");
  EXPECT_EQ(text.find("NUMA"), std::string::npos) << text;
  EXPECT_EQ(text.find("Memory accesses"), std::string::npos) << text;
  EXPECT_NE(text.find("no access latency in this database (source soft)"), std::string::npos) << text;
  Json j = Json::parse(render(m, "json"));
  EXPECT_EQ(j.at("memory").at("metrics").at("numa_local").get<uint64_t>(), 40u);
}

TEST(MemoryReport, SoftOnlyDatabaseReportsAsBefore) {
  ReportModel m = ungrouped(soft_database());
  EXPECT_FALSE(m.memory.present());
  for (const Variable& v : m.variables) EXPECT_FALSE(v.memory.present()) << v.name;
  Json j = Json::parse(render(m, "json"));
  EXPECT_FALSE(j.contains("memory"));
  for (const Json& v : j.at("variables")) EXPECT_FALSE(v.contains("memory"));
  std::string text = render(m, "text");
  for (const char* absent : {"assessment", "latency", "Memory accesses", "data sources"})
    EXPECT_EQ(text.find(absent), std::string::npos) << absent << "\n" << text;
  std::string csv = render(m, "csv");
  // No memory column between the balance columns and the access evidence's.
  EXPECT_NE(csv.substr(0, csv.find('\n')).find("threads_imbalance,pattern,"), std::string::npos);
}

TEST(MemoryReport, JsonCarriesSumsAndFigures) {
  ReportModel m = ungrouped(pebs_database());
  const std::string text = render(m, "json");
  Json j = Json::parse(text);
  // Figures are fixed-point: the literal as written, which a parsed double no longer shows.
  auto literal = [&](const char* key, const char* value) {
    return text.find("\"" + std::string(key) + "\": " + value) != std::string::npos;
  };
  const Json& mem = j.at("memory");
  EXPECT_EQ(mem.at("metrics").at("latency").get<uint64_t>(), 24590u);
  EXPECT_EQ(mem.at("metrics").at("latency_samples").get<uint64_t>(), 190u);
  EXPECT_EQ(mem.at("metrics").at("tlb_miss").get<uint64_t>(), 75u);
  EXPECT_EQ(mem.at("metrics").at("hitm").get<uint64_t>(), 2u);
  EXPECT_FALSE(mem.at("metrics").contains("samples"));  // not a memory metric
  EXPECT_DOUBLE_EQ(mem.at("mean_latency").get<double>(), 129.4);
  EXPECT_TRUE(literal("mean_latency", "129.4"));
  EXPECT_DOUBLE_EQ(mem.at("latency_per_instruction").get<double>(), 0.245900);
  EXPECT_TRUE(literal("latency_per_instruction", "0.245900"));
  EXPECT_DOUBLE_EQ(mem.at("tlb_miss_rate").get<double>(), 0.416667);
  EXPECT_TRUE(literal("tlb_miss_rate", "0.416667"));
  EXPECT_EQ(mem.at("assessment").at("verdict").get<std::string>(), "memory-bound");
  EXPECT_EQ(mem.at("assessment").at("instructions").get<uint64_t>(), 100000000u);
  EXPECT_DOUBLE_EQ(mem.at("assessment").at("cycles_per_instruction").get<double>(), 2.000000);
  EXPECT_TRUE(literal("cycles_per_instruction", "2.000000"));
  EXPECT_TRUE(mem.at("assessment").at("missing").empty());
  bool seen = false;
  for (const Json& v : j.at("variables")) {
    if (v.at("kind").get<std::string>() == "heap" && v.at("allocator").get<std::string>() == "calloc") {
      seen = true;
      EXPECT_EQ(v.at("memory").at("metrics").at("l3").get<uint64_t>(), 30u);
      EXPECT_DOUBLE_EQ(v.at("memory").at("mean_latency").get<double>(), 144.0);
      EXPECT_TRUE(literal("mean_latency", "144.0"));
      EXPECT_EQ(v.at("memory").at("data_sources").at(0).at("level").get<std::string>(), "l3");
      EXPECT_DOUBLE_EQ(v.at("memory").at("data_sources").at(0).at("share").get<double>(), 0.300000);
      EXPECT_TRUE(literal("share", "0.300000"));
      EXPECT_FALSE(v.at("memory").contains("assessment"));
    }
    if (v.at("name").get<std::string>() == "_IO_stdin") {
      EXPECT_FALSE(v.contains("memory"));
    }
  }
  EXPECT_TRUE(seen);
}

TEST(MemoryReport, TextFitsEightyColumns) {
  ReportModel m = ungrouped(pebs_database());
  std::string text = render(m, "text", 80);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(display_width(line), 80u) << line;
  EXPECT_NE(text.find("latency: mean 129.4 cycles over 190 sampled accesses"), std::string::npos) << text;
  EXPECT_NE(text.find("data sources:  local_dram 42.1%  l1 26.3%  l3 15.8%"), std::string::npos) << text;
  EXPECT_NE(text.find("TLB miss: 41.7% of 180 samples"), std::string::npos) << text;
  EXPECT_NE(text.find("assessment: memory-bound: 0.246 cycles of access latency per instruction"),
            std::string::npos) << text;
  EXPECT_NE(text.find("Memory accesses (rows of the table above):"), std::string::npos) << text;
  EXPECT_NE(text.find("l3 30% local_dram 30%"), std::string::npos) << text;
}

TEST(MemoryReport, CsvColumnsWhenPresent) {
  ReportModel m = ungrouped(pebs_database());
  std::istringstream csv(render(m, "csv"));
  std::string header, first;
  std::getline(csv, header);
  std::getline(csv, first);
  EXPECT_NE(header.find("threads_imbalance,latency,latency_samples,l1,lfb,l3,local_dram,remote_dram,"
                        "tlb_hit,tlb_miss,locked,hitm,mean_latency,latency_per_instruction,"
                        "tlb_miss_rate"),
            std::string::npos)
      << header;
  // The hottest row is grid: its sums, then its figures.
  EXPECT_NE(first.find(",14400,100,10,20,30,30,10,75,25,0,0,144.000000,0.144000,0.250000"),
            std::string::npos)
      << first;
}

TEST(MemoryReport, GroupRowsSumTheirMembers) {
  Profile db = pebs_database();
  sample(db.trees[0], NodeKind::StaticRoot, stat(1), {{1, 0x10}}, 5,
         {{kMetricLatency, 500}, {kMetricLatencySamples, 5}, {kLevel(MemLevel::L2), 5}});
  ReportModel m = build_report_model(db);
  const Variable& group = find(m, "[C/C++ runtime data]");
  EXPECT_EQ(group.kind, VariableKind::Group);
  EXPECT_EQ(group.memory.sum(kMetricLatency), 500u);
  EXPECT_DOUBLE_EQ(group.memory.mean_latency, 100.0);
  EXPECT_EQ(group.memory.levels.at(0).id, kLevel(MemLevel::L2));
}

// Ids this analyzer does not know: 29 is a reserved data-source level (a memory metric: it is
// reported under "metric_29"), 200 is no memory metric (ignored). Through the file, as a newer
// runtime's database would come.
TEST(MemoryReport, UnknownMetricIdsStillReport) {
  Profile db = pebs_database();
  sample(db.trees[0], NodeKind::HeapRoot, heap(0), {{0, 0x1000}, {0, 0x1010}}, 0,
         {{29, 4}, {200, 7}});
  TempDir dir;
  std::string error;
  ASSERT_TRUE(write_profile_file(db, dir.file("new.hpcdb"), &error)) << error;
  Profile read;
  ASSERT_TRUE(load_database(dir.file("new.hpcdb"), &read, &error)) << error;
  ReportModel m = ungrouped(read);
  const Variable& grid = heap_var(m, AllocApi::Calloc);
  EXPECT_EQ(grid.samples, 100u);
  EXPECT_EQ(grid.memory.sum(29), 4u);
  EXPECT_EQ(grid.memory.sum(200), 0u);
  EXPECT_EQ(grid.memory.level_samples, 104u);
  Json j = Json::parse(render(m, "json"));
  EXPECT_EQ(j.at("memory").at("metrics").at("metric_29").get<uint64_t>(), 4u);
  EXPECT_FALSE(j.at("memory").at("metrics").contains("metric_200"));
  EXPECT_NE(render(m, "csv").find(",metric_29,"), std::string::npos);
  EXPECT_NE(render(m, "text").find("metric_29"), std::string::npos);
}

// Two process profiles with memory metrics merged by the real merge: the sums add up per node and
// per variable, and META instructions and cycles are summed.
TEST(MemoryReport, MemoryMetricsSurviveMerge) {
  TempDir dir;
  for (int r = 0; r < 2; ++r) {
    Profile p = new_process(r, "pebs-load", "1000");
    p.modules = {{"/nonexistent/bin/app", "aa", 0x1000}};
    p.sites = {{AllocApi::Calloc, 0, {{0, 0x100}}, 1, 4096}};
    p.set_meta("instructions", std::to_string(1000000 * (r + 1)));
    p.set_meta("cycles", "5000000");
    p.set_meta("numa", "1");
    p.set_meta("numa_unresolved", "2");
    p.set_meta("hw_lost", std::to_string(r));
    p.set_meta("hw_throttled", "1");
    Tree t = new_tree(100 + r);
    sample(t, NodeKind::HeapRoot, heap(0), {{0, 0x1010}}, 10 + r,
           {{kMetricLatency, 100u * (r + 1)}, {kMetricLatencySamples, 10u + r},
            {kLevel(MemLevel::LocalDram), 4}, {kMetricNumaRemote, 3u + r}, {kMetricDcMiss, 1}});
    p.trees = {t};
    write_or_fail(p, dir.file("app-" + std::to_string(r) + ".hpcl"));
  }
  MergeOptions o;
  o.symbolize = false;
  o.jobs = 2;
  MergeOutcome out = merge_directory(dir.path(), o);
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.merged, 2u);
  ASSERT_NE(out.database.find_meta("instructions"), nullptr);
  EXPECT_EQ(*out.database.find_meta("instructions"), "3000000");
  ASSERT_NE(out.database.find_meta("cycles"), nullptr);
  EXPECT_EQ(*out.database.find_meta("cycles"), "10000000");
  // The runtime's NUMA and hardware-record counters are summed, its NUMA setting copied.
  for (auto [key, value] : {std::pair{"numa_unresolved", "4"}, {"hw_lost", "1"}, {"hw_throttled", "2"},
                            {"numa", "1"}}) {
    ASSERT_NE(out.database.find_meta(key), nullptr) << key;
    EXPECT_EQ(*out.database.find_meta(key), value) << key;
  }
  ReportModel m = ungrouped(out.database);
  const Variable& v = heap_var(m, AllocApi::Calloc);
  EXPECT_EQ(v.samples, 21u);
  EXPECT_EQ(v.memory.sum(kMetricLatency), 300u);
  EXPECT_EQ(v.memory.sum(kMetricLatencySamples), 21u);
  EXPECT_EQ(v.memory.sum(kLevel(MemLevel::LocalDram)), 8u);
  EXPECT_EQ(v.memory.sum(kMetricNumaRemote), 7u);
  EXPECT_EQ(v.memory.sum(kMetricDcMiss), 2u);
  ASSERT_EQ(m.notes.size(), 2u);
  EXPECT_NE(m.notes[0].find("lost 1 records"), std::string::npos) << m.notes[0];
  EXPECT_NE(m.notes[0].find("throttled it 2 times"), std::string::npos) << m.notes[0];
  EXPECT_NE(m.notes[1].find("4 sampled pages had no NUMA node"), std::string::npos) << m.notes[1];
  // 300 cycles x period 1000 / 3e6 instructions.
  EXPECT_DOUBLE_EQ(m.assessment.latency_per_instruction, 0.1);
  EXPECT_EQ(m.assessment.verdict, Boundness::CpuBound);  // 0.1 is not above the threshold
}

}  // namespace
}  // namespace hpcl::analysis
