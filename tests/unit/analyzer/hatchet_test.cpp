// report --format hatchet: Hatchet's JSON (hatchet.GraphFrame.from_json) from databases merged
// with and without --per-rank, read back as Hatchet's reader walks it. e2e.report_hatchet reads
// a real run's export with pandas.
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "merge/accumulator.h"
#include "model/report_model.h"
#include "output/exports.h"
#include "profile_builder.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

const Module kApp{"/opt/app/bin/app", "", 0};
const Module kMpi{"/usr/lib/x86_64-linux-gnu/libmpi.so.40", "", 0};

// Rank 0: 30 samples on the heap block through compute, 5 without a data address. Rank 1: 10
// through compute, 5 through update, 7 on the static `grid`, 3 on MPI's static `ompi_queue`.
Profile process(int rank) {
  Profile p = new_process(rank);
  p.modules = {kApp, kMpi};
  p.sites = {{AllocApi::Malloc, 0, {{0, 0x100}, {0, 0x200}}, 1, 4096}};
  p.statics = {{0, 0x8000, 64, 0, "grid"}, {1, 0x40, 8, 0, "ompi_queue"}};
  Tree t = new_tree(1);
  if (rank == 0) {
    heap_sample(t, 0, {{0, 0x210}, {0, 0x300}}, 30);
    nodata_sample(t, {{0, 0x210}}, 5);
  } else {
    heap_sample(t, 0, {{0, 0x210}, {0, 0x300}}, 10);
    heap_sample(t, 0, {{0, 0x210}, {0, 0x310}}, 5);
    static_sample(t, 0, {{0, 0x210}, {0, 0x320}}, 7);
    static_sample(t, 1, {{1, 0x10}}, 3);
  }
  p.trees = {t};
  return p;
}

Profile database(bool per_rank) {
  Accumulator a;
  a.keep_rank_values(per_rank);
  for (int r : {0, 1}) EXPECT_EQ(a.add_process(process(r)), "");
  Profile db = a.finish();
  const std::map<Frame, std::vector<SourceLoc>> syms = {
      {{0, 0x100}, {{"make_grid", "/src/grid.c", 41}}}, {{0, 0x200}, {{"main", "/src/main.c", 10}}},
      {{0, 0x210}, {{"main", "/src/main.c", 14}}},      {{0, 0x300}, {{"compute", "/src/kernel.c", 20}}},
      {{0, 0x310}, {{"update", "/src/kernel.c", 30}}},  {{0, 0x320}, {{"sum", "/src/kernel.c", 40}}},
  };
  for (const Module& m : db.modules) EXPECT_TRUE(m.path == kApp.path || m.path == kMpi.path);
  const uint32_t app = db.modules[0].path == kApp.path ? 0 : 1;
  for (auto& [f, locs] : syms) db.symbols.push_back(Symbolized{{app, f.offset}, locs});
  std::sort(db.symbols.begin(), db.symbols.end(),
            [](const Symbolized& x, const Symbolized& y) { return x.frame < y.frame; });
  return db;
}

struct Row {
  uint64_t node = 0;
  int64_t rank = -99;  // absent
  std::string name, type, variable, kind;
  uint64_t samples = 0, inclusive = 0;
};

struct Export {
  std::string text;
  nlohmann::json doc;
  std::vector<Row> rows;
  std::map<uint64_t, std::pair<std::string, std::vector<uint64_t>>> graph;  // name, children
};

Export export_of(const Profile& db, bool group = true) {
  ReportModelOptions options;
  options.group_runtime = false;
  options.access_evidence = false;
  ReportModel m = build_report_model(db, options);
  ReportOptions report;
  report.top = 0;
  std::ostringstream out;
  write_hatchet(m, db, report, group, out);
  Export e{out.str(), nlohmann::json::parse(out.str()), {}, {}};
  // As Hatchet's reader walks it: graphs of "id": {data, children}, then the records.
  for (const auto& graph : e.doc.at("graph"))
    for (const auto& [id, node] : graph.items())
      e.graph[std::stoull(id)] = {node.at("data").at("name"), node.at("children").get<std::vector<uint64_t>>()};
  for (const auto& record : e.doc.at("dataframe")) {
    Row r;
    r.node = record.at("node");
    if (record.contains("rank")) r.rank = record.at("rank");
    r.name = record.at("name");
    r.type = record.at("type");
    r.variable = record.at("variable");
    r.kind = record.at("kind");
    r.samples = record.at("samples");
    r.inclusive = record.at("samples (inc)");
    e.rows.push_back(r);
  }
  return e;
}

const Row& row(const Export& e, const std::string& name, int64_t rank) {
  for (const Row& r : e.rows)
    if (r.name == name && r.rank == rank) return r;
  static const Row none;
  ADD_FAILURE() << "no row " << name << " rank " << rank << " in\n" << e.text;
  return none;
}

TEST(Hatchet, RowsPerNodeAndRankSplitTheSamples) {
  const Export e = export_of(database(true));
  EXPECT_EQ(e.doc.at("dataframe_indices"), nlohmann::json({"node", "rank"})) << e.text;
  EXPECT_EQ(e.doc.at("exclusive_metrics"), nlohmann::json({"samples"}));
  EXPECT_EQ(e.doc.at("inclusive_metrics"), nlohmann::json({"samples (inc)"}));
  const std::string heap = "make_grid (grid.c:41)";
  EXPECT_EQ(row(e, heap, 0).inclusive, 30u);
  EXPECT_EQ(row(e, heap, 1).inclusive, 15u);
  EXPECT_EQ(row(e, heap, 1).type, "variable");
  EXPECT_EQ(row(e, heap, 1).kind, "heap");
  EXPECT_EQ(row(e, "grid", 0).inclusive, 0u) << "a rank that never touched it is a row of zeros";
  EXPECT_EQ(row(e, "grid", 1).inclusive, 7u);
  EXPECT_EQ(row(e, "[no data]", 0).samples, 5u);
  EXPECT_EQ(row(e, "[no data]", 1).samples, 0u);
  // The access paths, outermost first, share their common frames.
  EXPECT_EQ(row(e, "compute (kernel.c:20)", 0).samples, 30u);
  EXPECT_EQ(row(e, "compute (kernel.c:20)", 1).samples, 10u);
  EXPECT_EQ(row(e, "update (kernel.c:30)", 1).samples, 5u);
  EXPECT_EQ(row(e, "update (kernel.c:30)", 1).variable, heap);
  // Every node has a row per rank; the exclusive samples add up to the run's.
  std::set<std::pair<uint64_t, int64_t>> keys;
  uint64_t total = 0;
  for (const Row& r : e.rows) {
    keys.insert({r.node, r.rank});
    total += r.samples;
  }
  EXPECT_EQ(keys.size(), e.rows.size()) << "each (node, rank) once";
  EXPECT_EQ(e.rows.size(), 2 * e.graph.size());
  EXPECT_EQ(total, 60u);
}

// Each node's inclusive samples are its own plus its children's, rank by rank; every child is a
// node of the graph with one parent.
TEST(Hatchet, InclusiveIsTheSubtreesSumRankByRank) {
  const Export e = export_of(database(true));
  std::map<std::pair<uint64_t, int64_t>, const Row*> at;
  for (const Row& r : e.rows) at[{r.node, r.rank}] = &r;
  std::map<uint64_t, int> parents;
  for (auto& [id, node] : e.graph) {
    for (uint64_t c : node.second) {
      ASSERT_TRUE(e.graph.count(c)) << "child " << c << " of " << id;
      ++parents[c];
    }
    for (int64_t rank : {0, 1}) {
      uint64_t sum = at.at({id, rank})->samples;
      for (uint64_t c : node.second) sum += at.at({c, rank})->inclusive;
      EXPECT_EQ(at.at({id, rank})->inclusive, sum) << node.first << " rank " << rank;
      EXPECT_EQ(at.at({id, rank})->name, node.first);
    }
  }
  for (auto& [c, n] : parents) EXPECT_EQ(n, 1) << "node " << c;
}

TEST(Hatchet, RuntimeVariablesUnderTheirFamilyUnlessNoGroup) {
  const Export grouped = export_of(database(true));
  const Row& mpi = row(grouped, "[MPI runtime data]", 1);
  EXPECT_EQ(mpi.type, "group");
  EXPECT_EQ(mpi.inclusive, 3u);
  ASSERT_EQ(grouped.graph.at(mpi.node).second.size(), 1u);
  EXPECT_EQ(grouped.graph.at(grouped.graph.at(mpi.node).second[0]).first, "ompi_queue");
  EXPECT_EQ(row(grouped, "ompi_queue", 1).kind, "static");
  const Export apart = export_of(database(true), false);
  for (const Row& r : apart.rows) EXPECT_NE(r.name, "[MPI runtime data]");
  EXPECT_EQ(row(apart, "ompi_queue", 1).inclusive, 3u);
}

// A database merged without --per-rank: one row per node, indexed by node alone, the same sums.
TEST(Hatchet, WithoutRankValuesIndexedByNode) {
  const Export e = export_of(database(false));
  EXPECT_EQ(e.doc.at("dataframe_indices"), nlohmann::json({"node"}));
  EXPECT_EQ(e.rows.size(), e.graph.size());
  EXPECT_EQ(row(e, "make_grid (grid.c:41)", -99).inclusive, 45u);
  uint64_t total = 0;
  for (const Row& r : e.rows) total += r.samples;
  EXPECT_EQ(total, 60u);
}

}  // namespace
}  // namespace hpcl::analysis
