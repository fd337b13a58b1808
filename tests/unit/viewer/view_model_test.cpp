// The view model on a database built in code: the data-centric rows carry the report model's
// names in its order, heap variables open to allocation path then access paths, the top-down
// view merges call sites, the flat view lists functions and lines, columns appear only when the
// database has their metrics, and no label keeps a control character.
#include <algorithm>
#include <map>
#include <gtest/gtest.h>

#include "hpcl/text/format_common.h"
#include "hpcl/view/view_evidence.h"
#include "hpcl/view/view_model.h"
#include "viewer_db.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

std::vector<std::string> labels(const std::vector<ViewNode*>& rows) {
  std::vector<std::string> out;
  for (const ViewNode* r : rows) out.push_back(r->label);
  return out;
}

TEST(ViewModel, DataCentricHasTheReportsNamesInItsOrder) {
  Profile db = make_viewer_database();
  const ReportModel report = build_report_model(db);
  ViewModel vm(std::move(db));
  const auto& rows = vm.view(ViewKind::DataCentric).rows();
  std::vector<std::string> expected;
  for (const Variable& v : report.variables)
    if (v.samples > 0) expected.push_back(printable_line(v.name));
  EXPECT_EQ(labels(rows), expected);
  ASSERT_GE(rows.size(), 4u);
  EXPECT_EQ(rows[0]->label, "make_grid (grid.c:41)");  // heap: by its allocation site
  EXPECT_EQ(rows[0]->tag, "heap");
  EXPECT_EQ(rows[0]->bytes, 4096u);
  EXPECT_EQ(rows[0]->values[0], 40);
  EXPECT_EQ(rows[1]->label, "counter");  // static: by its name
  EXPECT_EQ(rows[1]->tag, "static");
}

TEST(ViewModel, HeapVariableOpensToAllocationPathThenAccessPaths) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::DataCentric);
  ViewNode& heap = *t.rows()[0];
  t.open(heap);
  ASSERT_EQ(heap.children.size(), 2u);
  EXPECT_EQ(heap.children[0]->kind, RowKind::AllocationPath);
  EXPECT_EQ(heap.children[1]->kind, RowKind::AccessPaths);
  EXPECT_EQ(heap.children[1]->values[0], 40);
  t.open(*heap.children[0]);
  std::vector<std::string> path;
  for (auto& c : heap.children[0]->children) path.push_back(c->label);
  EXPECT_EQ(path, (std::vector<std::string>{"malloc", "make_grid (grid.c:41)", "main (main.c:5)"}));
  EXPECT_EQ(heap.children[0]->children[1]->tag, "site");
  // Access paths: top-down from main, the hottest first.
  t.open(*heap.children[1]);
  ASSERT_EQ(heap.children[1]->children.size(), 1u);
  ViewNode& main = *heap.children[1]->children[0];
  EXPECT_EQ(main.label, "main (main.c:14)");
  t.open(main);
  ASSERT_EQ(main.children.size(), 2u);
  EXPECT_EQ(main.children[0]->label, "compute (kernel.c:20)");
  EXPECT_EQ(main.children[0]->values[0], 30);
  EXPECT_EQ(main.children[1]->values[0], 10);
  EXPECT_EQ(main.children[0]->file, "/src/kernel.c");
  EXPECT_EQ(main.children[0]->line, 20u);
}

// MPI's own data: a segment MPI mapped in MPI_Init and the untracked memory its progress loop
// read are one group row, which opens to its library, then to what it holds.
TEST(ViewModel, GroupOpensToItsLibrariesThenItsParts) {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.modules = {{"/src/app", "", 0}, {"/usr/lib/x86_64-linux-gnu/libmpi.so.40", "", 0}};
  db.sites = {{AllocApi::MmapShm, 0, {{1, 0x900}, {1, 0x800}, {0, 0x200}}, 1, 1 << 22,
               "/dev/shm/vader_segment.node.0"}};
  Tree t = new_tree(0);
  heap_sample(t, 0, {{0, 0x300}, {1, 0xa00}}, 7);
  unknown_sample(t, UnknownClass::Other, {{0, 0x300}, {1, 0xa00}}, 4);
  db.trees = {t};
  const std::map<Frame, SourceLoc> syms = {{{1, 0x900}, {"mca_btl_vader_component_init", "", 0}},
                                           {{1, 0x800}, {"PMPI_Init", "", 0}},
                                           {{1, 0xa00}, {"opal_progress", "", 0}},
                                           {{0, 0x200}, {"main", "/src/main.c", 5}},
                                           {{0, 0x300}, {"main", "/src/main.c", 14}}};
  for (const auto& [f, loc] : syms) db.symbols.push_back(Symbolized{f, {loc}});
  ViewModel vm(std::move(db));
  ViewTree& tree = vm.view(ViewKind::DataCentric);
  ASSERT_EQ(labels(tree.rows()), (std::vector<std::string>{"[MPI runtime data]"}));
  ViewNode& group = *tree.rows()[0];
  EXPECT_EQ(group.values[0], 11);
  tree.open(group);
  std::vector<std::string> below;
  for (auto& c : group.children) below.push_back(c->label + " " + c->tag);
  EXPECT_EQ(below, (std::vector<std::string>{"libmpi.so.40 2 vars", "/dev/shm/vader_segment.node.0 part",
                                             "[unknown data read by MPI] part"}));
  EXPECT_EQ(group.children[1]->kind, RowKind::GroupPart);
  EXPECT_EQ(group.children[1]->values[0], 7);
}

TEST(ViewModel, StaticAndStackOpenToTheirAccessPaths) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::DataCentric);
  for (ViewNode* r : std::vector<ViewNode*>(t.rows())) {
    if (r->label != "counter" && r->label != "[stack]") continue;
    t.open(*r);
    ASSERT_EQ(r->children.size(), 1u) << r->label;
    EXPECT_EQ(r->children[0]->kind, RowKind::Frame);
    EXPECT_EQ(r->children[0]->label, "main (main.c:14)");
  }
}

// A local on the stack (format 1.10): a row of kind stack, named by its owner, its bytes the
// local's; it opens to the access paths of all its slots merged, as a heap variable's.
TEST(ViewModel, StackLocalIsARowThatOpensToItsAccessPaths) {
  Profile db = make_viewer_database();
  const Frame owner{0, 0x400};
  stack_sample(db.trees[0], owner, -24, 8, {{0, 0x300}, {0, 0x400}}, 25);
  stack_sample(db.trees[0], owner, -16, 8, {{0, 0x300}, {0, 0x400}}, 8);
  stack_sample(db.trees[0], owner, -8, 8, {{0, 0x300}, {0, 0x500}}, 2);
  db.stack_vars = {{StackVarKind::Local, "acc", "compute", "/src/kernel.c", 14, -32, 32, "double[4]"}};
  db.stack_slots = {{owner, -24, 8, 0}, {owner, -16, 8, 0}, {owner, -8, 8, 0}};
  ViewModel vm(std::move(db));
  ViewTree& t = vm.view(ViewKind::DataCentric);
  const auto rows = t.rows();
  const auto it = std::find_if(rows.begin(), rows.end(), [](const ViewNode* r) { return r->tag == "stack"; });
  ASSERT_NE(it, rows.end());
  ViewNode& acc = **it;
  EXPECT_EQ(acc.label, "acc (local of compute, kernel.c:14)");
  EXPECT_EQ(acc.values[0], 35);
  EXPECT_EQ(acc.bytes, 32u);
  EXPECT_EQ(it - rows.begin(), 1) << "second, after the 40 samples of make_grid";
  ASSERT_TRUE(acc.expandable);
  t.open(acc);
  ASSERT_EQ(acc.children.size(), 1u) << "its three slots' paths, merged from main";
  ViewNode& main = *acc.children[0];
  EXPECT_EQ(main.label, "main (main.c:14)");
  EXPECT_EQ(main.values[0], 35);
  t.open(main);
  ASSERT_EQ(main.children.size(), 2u);
  EXPECT_EQ(main.children[0]->label, "compute (kernel.c:20)");
  EXPECT_EQ(main.children[0]->values[0], 33);
  EXPECT_EQ(main.children[1]->label, "update (kernel.c:30)");
  EXPECT_EQ(main.children[1]->values[0], 2);
  // [stack] keeps only what was not placed.
  const auto unplaced = std::find_if(rows.begin(), rows.end(), [](const ViewNode* r) { return r->label == "[stack]"; });
  ASSERT_NE(unplaced, rows.end());
  EXPECT_EQ((*unplaced)->values[0], 3);
}

// The why pane of an unattributed class: what it holds and the functions that read it, not the
// "not analysed" of a row it has nothing to say about.
TEST(ViewModel, WhyOfTheStackSaysWhatItHoldsAndWhoReadsIt) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::DataCentric);
  const auto rows = t.rows();
  const auto stack = std::find_if(rows.begin(), rows.end(), [](const ViewNode* r) { return r->label == "[stack]"; });
  ASSERT_NE(stack, rows.end());
  const std::vector<std::string> lines = why_lines(vm, **stack, 80);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines.front().rfind("Local variables and arrays on the threads' stacks (C local", 0), 0u) << lines.front();
  EXPECT_EQ(lines.back(), " 100% read in compute");  // wrapped as the pattern lines are
  for (const std::string& l : lines) EXPECT_LE(display_width(l), 80u) << l;
  const auto counter = std::find_if(rows.begin(), rows.end(), [](const ViewNode* r) { return r->label == "counter"; });
  ASSERT_NE(counter, rows.end());
  for (const std::string& l : why_lines(vm, **counter, 80)) EXPECT_EQ(l.find("read in"), std::string::npos) << l;
}

TEST(ViewModel, TopDownMergesCallSitesOverVariablesAndNoData) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::TopDown);
  ASSERT_EQ(t.rows().size(), 2u);
  ViewNode& main = *t.rows()[0];
  EXPECT_EQ(main.label, "main (main.c:14)");
  EXPECT_EQ(main.values[0], 80);  // all but the one sample of the static at 0x700
  t.open(main);
  ASSERT_EQ(main.children.size(), 3u);
  EXPECT_EQ(main.children[0]->label, "compute (kernel.c:20)");
  EXPECT_EQ(main.children[0]->values[0], 45);  // heap 30 + stack 3 + no data 12
  EXPECT_EQ(main.children[1]->values[0], 20);  // count_it
  EXPECT_EQ(main.children[2]->values[0], 15);  // update: both heap sites
}

// Rows are merged by what they show: three sampled instructions of one function without line
// information (a Debian library) are one row, as are two instructions of one source line; two
// different lines stay apart.
// A frame the compiler inlined into its caller: the viewer showed __libc_start_call_main ->
// column_means_bad, leaving out main (heat2d.c:168), which JSON, folded and HTML show between.
// The inline callers are rows of their own, outermost first, at the line of their call, in the
// top-down and the data-centric views; two inlined frames under one caller line share its row.
TEST(ViewModel, InlinedCallersAreRowsOfTheirOwn) {
  Profile db = make_viewer_database();
  Tree& t = db.trees[0];
  nodata_sample(t, {{0, 0xc00}, {0, 0xd00}}, 8);
  nodata_sample(t, {{0, 0xc00}, {0, 0xd10}}, 2);
  db.symbols.push_back(Symbolized{{0, 0xc00}, {{"__libc_start_call_main", "", 0}}});
  db.symbols.push_back(Symbolized{{0, 0xd00}, {{"column_means_bad", "/src/heat2d.c", 101},
                                               {"main", "/src/heat2d.c", 168}}});
  db.symbols.push_back(Symbolized{{0, 0xd10}, {{"column_means_bad", "/src/heat2d.c", 102},
                                               {"main", "/src/heat2d.c", 168}}});
  std::sort(db.symbols.begin(), db.symbols.end(),
            [](const Symbolized& a, const Symbolized& b) { return a.frame < b.frame; });
  ViewModel vm(std::move(db));
  ViewTree& tree = vm.view(ViewKind::TopDown);
  ViewNode* start = nullptr;
  for (ViewNode* r : tree.rows())
    if (r->label == "__libc_start_call_main (app)") start = r;
  ASSERT_TRUE(start);
  tree.open(*start);
  ASSERT_EQ(start->children.size(), 1u);
  ViewNode& main = *start->children[0];
  EXPECT_EQ(main.label, "main (heat2d.c:168)");
  EXPECT_EQ(main.values[0], 10);
  tree.open(main);
  std::map<std::string, double> inner;
  for (const auto& c : main.children) inner[c->label] += c->values[0];
  EXPECT_EQ(inner.size(), 2u);
  EXPECT_EQ(inner["column_means_bad (heat2d.c:101)"], 8);
  EXPECT_EQ(inner["column_means_bad (heat2d.c:102)"], 2);
}

TEST(ViewModel, SiblingsWithOneLabelAreOneRow) {
  Profile db = make_viewer_database();
  Tree& t = db.trees[0];
  static_sample(t, 0, {{0, 0x300}, {0, 0xa00}}, 4);
  static_sample(t, 0, {{0, 0x300}, {0, 0xa08}}, 2);
  static_sample(t, 0, {{0, 0x300}, {0, 0xa10}}, 1);
  static_sample(t, 0, {{0, 0x300}, {0, 0xb00}}, 6);
  static_sample(t, 0, {{0, 0x300}, {0, 0xb04}}, 5);
  db.symbols.push_back(Symbolized{{0, 0xa00}, {{"solve_pme", "", 0}}});
  db.symbols.push_back(Symbolized{{0, 0xa08}, {{"solve_pme", "", 0}}});
  db.symbols.push_back(Symbolized{{0, 0xa10}, {{"solve_pme", "", 0}}});
  db.symbols.push_back(Symbolized{{0, 0xb00}, {{"spread", "/src/pme.c", 12}}});
  db.symbols.push_back(Symbolized{{0, 0xb04}, {{"spread", "/src/pme.c", 12}}});
  std::sort(db.symbols.begin(), db.symbols.end(),
            [](const Symbolized& a, const Symbolized& b) { return a.frame < b.frame; });
  ViewModel vm(std::move(db));
  ViewTree& tree = vm.view(ViewKind::DataCentric);
  ViewNode* counter = nullptr;
  for (ViewNode* r : tree.rows())
    if (r->label == "counter") counter = r;
  ASSERT_TRUE(counter);
  tree.open(*counter);
  ASSERT_EQ(counter->children.size(), 1u);
  ViewNode& main = *counter->children[0];
  tree.open(main);
  std::map<std::string, double> rows;
  for (const auto& c : main.children) rows[c->label] += c->values[0];
  EXPECT_EQ(main.children.size(), 3u) << "count_it, solve_pme, spread";
  EXPECT_EQ(rows["solve_pme (app)"], 7);
  EXPECT_EQ(rows["spread (pme.c:12)"], 11);
  EXPECT_EQ(rows["count_it (main.c:7)"], 20);
}

TEST(ViewModel, FlatListsFunctionsThenLines) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::Flat);
  ASSERT_FALSE(t.rows().empty());
  ViewNode& top = *t.rows()[0];
  EXPECT_EQ(top.label, "compute (kernel.c)");
  EXPECT_EQ(top.values[0], 45);
  t.open(top);
  ASSERT_EQ(top.children.size(), 1u);
  EXPECT_EQ(top.children[0]->label, "compute (kernel.c:20)");
}

TEST(ViewModel, LabelsHaveNoControlCharacters) {
  ViewModel vm(make_viewer_database());
  for (size_t v = 0; v < kViewCount; ++v) {
    ViewTree& t = vm.view(static_cast<ViewKind>(v));
    t.open_all();
    for (const ViewNode* r : t.rows())
      for (const std::string* s : {&r->label, &r->function, &r->file})
        for (unsigned char c : *s) EXPECT_TRUE(c >= 0x20 && c != 0x7f) << "in " << *s;
  }
  bool found = false;
  for (const ViewNode* r : vm.view(ViewKind::DataCentric).rows()) found |= r->label == "evil?[31mred??line";  // one row, one line
  EXPECT_TRUE(found);
}

// The evidence of the hottest variables is read when the model opens; any other variable's when
// its row is first shown (prepare, as the screen does before drawing), or every one before a sort
// by pattern (prepare_all). CP2K's first screen took 5.2 s with all of its 990 variables analysed.
TEST(ViewModel, EvidenceIsReadForTheRowsShown) {
  Profile db = make_viewer_database();
  db.sites.clear();
  db.trees[0] = new_tree(0);
  const uint32_t n = static_cast<uint32_t>(ViewModel::kEagerEvidence + 8);
  for (uint32_t i = 0; i < n; ++i) {
    db.sites.push_back({AllocApi::Malloc, 0, {{0, 0x100 + i}, {0, 0x200}}, 1, 64});
    heap_sample(db.trees[0], i, {{0, 0x300}, {0, 0x400 + 4 * uint64_t{i}}}, 100 - i);  // hottest first
  }
  ViewModel vm(std::move(db));
  auto analysed = [&] {
    size_t k = 0;
    for (const Variable& v : vm.report().variables) k += v.evidence.analysed;
    return k;
  };
  EXPECT_EQ(analysed(), ViewModel::kEagerEvidence);
  ViewTree& data = vm.view(ViewKind::DataCentric);
  ASSERT_EQ(data.rows().size(), n);
  const ViewNode& late = *data.rows()[ViewModel::kEagerEvidence + 2];
  EXPECT_FALSE(late.pattern.analysed);
  vm.prepare(data, 0, ViewModel::kEagerEvidence + 4);
  EXPECT_EQ(analysed(), ViewModel::kEagerEvidence + 4);
  EXPECT_TRUE(late.pattern.analysed);  // the module is not on this machine: analysed, unreadable
  EXPECT_TRUE(vm.report().variables[late.ref].evidence.analysed);
  vm.prepare_all();
  EXPECT_EQ(analysed(), n);
}

TEST(ViewColumns, OnlySamplesWithoutOtherMetrics) {
  ViewModel vm(make_viewer_database());
  ASSERT_EQ(vm.columns().size(), 1u);
  EXPECT_EQ(vm.columns()[0].name, "samples");
  EXPECT_EQ(vm.shown_columns(), std::vector<size_t>{0});
}

// The viewer counted [untracked heap] 1358 where the report said 411: its samples column is the
// estimate (it orders the rows, as the report's share does), the report's the raw count. Where
// a variable's two differ, the raw count is a column of its own beside it.
TEST(ViewColumns, RawSamplesBesideTheEstimateWhereTheyDiffer) {
  EXPECT_EQ(ViewModel(make_viewer_database()).columns().size(), 1u) << "exact counts: no second column";
  Profile db = make_viewer_database();
  db.sites[1].flags = kSiteSampled;
  heap_sample_estimated(db.trees[0], 1, {{0, 0x300}, {0, 0x400}}, 2, 30, 2 * 240);  // 2 raw, 32 est.
  // The untracked samples the estimate's 30 come from (an estimate is scaled to what they hold).
  unknown_sample(db.trees[0], UnknownClass::UntrackedHeap, {{0, 0x300}}, 40);
  ViewModel vm(std::move(db));
  ASSERT_EQ(vm.columns().size(), 2u);
  EXPECT_EQ(vm.columns()[1].name, "raw samples");
  EXPECT_TRUE(vm.columns()[1].shown);
  ViewTree& t = vm.view(ViewKind::DataCentric);
  const ViewNode* table = nullptr;
  for (const ViewNode* r : t.rows())
    if (r->label.starts_with("make_table")) table = r;
  ASSERT_TRUE(table);
  EXPECT_EQ(table->tag, "heap*");  // sampled, as the report marks it
  EXPECT_EQ(table->values[1], 7);   // 5 + 2 counted
  EXPECT_GT(table->values[0], 30);  // the estimate: what orders the rows
}

TEST(ViewColumns, MemoryMetricsAndRanksWhenPresent) {
  Profile db = make_viewer_database();
  Node& leaf = db.trees[0].nodes.back();  // a no-data leaf: the program's sums count it
  leaf.add_metric(kMetricLatency, 1200);
  leaf.add_metric(kMetricLatencySamples, 4);
  leaf.add_metric(kMetricDataSrcBase + static_cast<uint16_t>(MemLevel::L1), 4);
  db.balance.rank_groups = 2;
  db.balance.thread_groups = 2;
  VariableBalance b;
  b.owner = BalanceOwner::Site;
  b.index = 0;
  b.ranks = {2, 40, 1000, 0, 10, 30, {}};
  b.threads = b.ranks;
  db.balance.variables.push_back(b);
  ViewModel vm(std::move(db));
  std::vector<std::string> names;
  for (const Column& c : vm.columns()) names.push_back(c.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "latency"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "imbalance"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "rank max"), names.end());
  // The heap variable has per-rank statistics; a frame has none: blank, not zero.
  size_t imb = 0;
  while (vm.columns()[imb].name != "imbalance") ++imb;
  ViewTree& t = vm.view(ViewKind::DataCentric);
  EXPECT_DOUBLE_EQ(t.rows()[0]->values[imb], 1.5);  // max 30 / mean 20
  t.hot_path(0);
  const ViewNode* frame = t.selected();
  ASSERT_EQ(frame->kind, RowKind::Frame);
  EXPECT_FALSE(has_value(frame->values[imb]));
  EXPECT_EQ(format_cell(vm.columns()[imb], frame->values[imb]), std::string(cell_width(vm.columns()[imb]), ' '));
  // Mean latency of the no-data path in top-down: 1200 / 4.
  size_t lat = 0;
  while (vm.columns()[lat].name != "latency") ++lat;
  EXPECT_DOUBLE_EQ(vm.view(ViewKind::TopDown).rows()[0]->values[lat], 300);
}

// The watchpoint analyses (-e wp-sharing, -e wp-reuse): a false-sharing flag and the median reuse
// per variable, blank for variables they did not watch.
TEST(ViewColumns, SharingAndReuseWhenWatched) {
  Profile db = make_viewer_database();
  Tree& t = db.trees[0];
  for (Node& n : t.nodes) {
    if (n.kind == NodeKind::StaticVarNode && n.a == 0) {  // "counter": falsely shared
      n.add_metric(kMetricWpFalse, 40);
      n.add_metric(kMetricWpSharingArmed, 60);
    }
    if (n.kind == NodeKind::HeapVar && n.a == 0) {  // make_grid's block: reused after ~1.5 us
      n.add_metric(kMetricWpReuseArmed, 10);
      n.add_metric(kMetricWpReuseBase + 10, 10);
    }
  }
  ViewModel vm(std::move(db));
  size_t fs = SIZE_MAX, reuse = SIZE_MAX;
  for (size_t c = 0; c < vm.columns().size(); ++c) {
    if (vm.columns()[c].kind == ColumnKind::FalseSharing) fs = c;
    if (vm.columns()[c].kind == ColumnKind::ReuseMedian) reuse = c;
  }
  ASSERT_NE(fs, SIZE_MAX);
  ASSERT_NE(reuse, SIZE_MAX);
  EXPECT_TRUE(vm.columns()[fs].shown);
  const ViewNode *counter = nullptr, *grid = nullptr;
  for (const ViewNode* r : vm.view(ViewKind::DataCentric).rows()) {
    if (r->label == "counter") counter = r;
    if (r->label.find("make_grid") != std::string::npos) grid = r;
  }
  ASSERT_TRUE(counter && grid);
  EXPECT_EQ(format_cell(vm.columns()[fs], counter->values[fs]), "       YES");
  EXPECT_FALSE(has_value(counter->values[reuse]));
  EXPECT_EQ(format_cell(vm.columns()[fs], grid->values[fs]), std::string(cell_width(vm.columns()[fs]), ' '));
  EXPECT_EQ(format_cell(vm.columns()[reuse], grid->values[reuse]), "    1.4 us");
}

TEST(ViewColumns, CellsShowPercentAndCount) {
  Column c{"samples", ColumnKind::Metric, kMetricSamples, 200, true};
  EXPECT_EQ(format_cell(c, 50), " 25.0%     50");
  EXPECT_EQ(format_cell(c, 50).size(), cell_width(c));
  Column big{"samples", ColumnKind::Metric, kMetricSamples, 1e8, true};
  EXPECT_EQ(format_cell(big, 12345678), " 12.3%  12.3M");
  Column imb{"imbalance", ColumnKind::RankImbalance, 0, 0, true};
  EXPECT_EQ(format_cell(imb, 1.5), "     1.50x");
  // The diff's change and ratio: whole in their cells (the ratio once read "0.3" at 80 columns).
  Column ratio{"ratio", ColumnKind::Ratio, 0, 0, true}, change{"change", ColumnKind::Delta, 0, 0, true};
  EXPECT_EQ(format_cell(ratio, 0.3125), "   0.31x");
  EXPECT_EQ(format_cell(ratio, 1234.0), "   1234x");
  EXPECT_EQ(format_cell(change, -2763), "   -2763");
  for (double v : {0.3125, 12.0, 1234.0, 1e9})
    EXPECT_EQ(format_cell(ratio, v).size(), cell_width(ratio)) << v;
}

}  // namespace
}  // namespace hpcl::analysis
