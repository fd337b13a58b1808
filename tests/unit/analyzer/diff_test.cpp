// The diff model and its formatters on pairs of small symbolized databases built in code:
// matching (exact, loose, new, gone), one sampling rate, per-process means, the noise rule,
// access paths before and after, and the JSON diff against a checked-in golden file
// (golden/diff/diff.json; HPCL_UPDATE_GOLDEN=1 rewrites it, golden/update.sh does so).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "output/diff_formatters.h"
#include "hpcl/text/format_common.h"
#include "model/diff_model.h"
#include "profile_builder.h"

#include <nlohmann/json.hpp>

// Reports are read back with nlohmann-json, which refuses what RFC 8259 refuses.
using Json = nlohmann::json;

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

// What differs between the two versions of the synthetic program.
struct Version {
  uint32_t grid_line = 41;            // the line of the grid's allocation in make_grid
  std::string counter = "count.1";    // the static counter's symbol (the suffix moves)
  uint64_t by_columns = 300, by_rows = 20;  // the grid's samples from each loop
  uint64_t halo = 100, counter_samples = 50;
  bool scratch = true;                // the scratch buffer is allocated (gone after)
  bool cache = false;                 // the cache buffer is allocated (new after)
  uint64_t stack = 5, no_data = 25;
  std::string rate = "1000";
  uint64_t processes = 1;
  bool plugin = false;                // a plugin library with a sampled static is loaded
  uint64_t scratch_samples = 30;      // of the scratch (or cache) buffer
};

const std::string kApp = "/opt/app/bin/solver";

Profile make_database(const Version& v) {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("tool", "hpcprof-lite");
  db.set_meta("processes", std::to_string(v.processes));
  db.set_meta("threads", std::to_string(v.processes));
  db.set_meta("ranks", std::to_string(v.processes));
  db.set_meta("source", "soft");
  db.set_meta("rate", v.rate);
  db.set_meta("min_bytes", "4096");
  db.set_meta("small_every", "16");
  db.set_meta("samples_dropped", "0");
  db.set_meta("skipped", "");
  db.modules = {{kApp, "", 0}};
  // Sites: 0 grid (make_grid <- main), 1 halo (main), 2 scratch (main) or cache (make_cache <- main).
  db.sites = {{AllocApi::Malloc, 0, {{0, 0x1100}, {0, 0x2000}}, 1, 1 << 20},
              {AllocApi::Calloc, 0, {{0, 0x2010}}, 1, 8192}};
  if (v.scratch) db.sites.push_back({AllocApi::Malloc, 0, {{0, 0x2020}}, 1, 4096});
  if (v.cache) db.sites.push_back({AllocApi::Malloc, 0, {{0, 0x1200}, {0, 0x2030}}, 1, 4096});
  // As the runtime writes them: only the statics a sample touched.
  if (v.counter_samples > 0) db.statics = {{0, 0x8000, 8, 0, v.counter}};
  if (v.plugin) {
    db.modules.push_back({"/opt/app/lib/libplugin.so", "", 0x7f0000000000});
    db.statics.push_back({1, 0x4000, 64, 0, "plugin_table"});
  }
  Tree t = new_tree(0);
  heap_sample(t, 0, {{0, 0x2040}, {0, 0x3000}}, v.by_columns);
  if (v.by_rows > 0) heap_sample(t, 0, {{0, 0x2040}, {0, 0x3100}}, v.by_rows);
  heap_sample(t, 1, {{0, 0x2040}, {0, 0x3200}}, v.halo);
  if ((v.scratch || v.cache) && v.scratch_samples > 0) heap_sample(t, 2, {{0, 0x2040}, {0, 0x3200}}, v.scratch_samples);
  if (v.counter_samples > 0) static_sample(t, 0, {{0, 0x2040}, {0, 0x3300}}, v.counter_samples);
  if (v.plugin) static_sample(t, static_cast<uint32_t>(db.statics.size() - 1), {{0, 0x2040}, {0, 0x3300}}, 10);
  if (v.stack > 0) unknown_sample(t, UnknownClass::Stack, {{0, 0x2040}}, v.stack);
  nodata_sample(t, {{0, 0x2040}}, v.no_data);
  db.trees = {t};
  std::map<Frame, SourceLoc> syms = {
      {{0, 0x1100}, {"make_grid", "/src/grid.c", v.grid_line}},
      {{0, 0x2000}, {"main", "/src/main.c", 10}},
      {{0, 0x2010}, {"main", "/src/main.c", 11}},
      {{0, 0x2020}, {"main", "/src/main.c", 12}},
      {{0, 0x2030}, {"main", "/src/main.c", 13}},
      {{0, 0x1200}, {"make_cache", "/src/cache.c", 3}},
      {{0, 0x2040}, {"main", "/src/main.c", 20}},
      {{0, 0x3000}, {"by_columns", "/src/walk.c", 5}},
      {{0, 0x3100}, {"by_rows", "/src/walk.c", 9}},
      {{0, 0x3200}, {"exchange", "/src/halo.c", 7}},
      {{0, 0x3300}, {"tally", "/src/main.c", 30}},
  };
  for (auto& [f, loc] : syms) db.symbols.push_back(Symbolized{f, {loc}});
  return db;
}

// The fix: the grid read by rows (a tenth of the samples), its allocation two lines lower, the
// counter's symbol renamed by the compiler, the scratch buffer replaced by a cache.
Version fixed_version() {
  Version v;
  v.grid_line = 43;
  v.counter = "count.2";
  v.by_columns = 0;
  v.by_rows = 32;
  v.halo = 104;
  v.scratch = false;
  v.cache = true;
  v.stack = 0;
  v.no_data = 20;
  return v;
}

const VariableDiff* find(const DiffModel& m, const std::string& name) {
  for (const VariableDiff& v : m.variables)
    if (v.name == name) return &v;
  return nullptr;
}

// A static variable that took no sample in one run is not in that run's profile at all, but its
// module is: matched, with no samples there, not "gone" (e2e.diff once saw matrix_walk's
// `last_sum` go 2 -> 0 listed as gone). A static of a module the other run did not load is gone.
TEST(DiffModel, StaticWithoutSamplesInOneRunIsMatchedNotGone) {
  Version quiet;
  quiet.counter_samples = 0;
  DiffModel m = build_diff_model(make_database(Version{}), make_database(quiet));
  const VariableDiff* counter = find(m, "count");
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->match, MatchKind::Exact);
  EXPECT_TRUE(counter->after.present);
  EXPECT_DOUBLE_EQ(counter->after.samples, 0);
  EXPECT_DOUBLE_EQ(counter->before.samples, 50);
  ASSERT_TRUE(counter->ratio.has_value());
  EXPECT_DOUBLE_EQ(*counter->ratio, 0);
  // The other way round: new in AFTER's samples only, matched too.
  DiffModel back = build_diff_model(make_database(quiet), make_database(Version{}));
  ASSERT_NE(find(back, "count"), nullptr);
  EXPECT_EQ(find(back, "count")->match, MatchKind::Exact);
  EXPECT_FALSE(find(back, "count")->before.raw_samples);

  Version with_plugin;
  with_plugin.plugin = true;
  DiffModel gone = build_diff_model(make_database(with_plugin), make_database(Version{}));
  ASSERT_NE(find(gone, "plugin_table"), nullptr);
  EXPECT_EQ(find(gone, "plugin_table")->match, MatchKind::Gone);
  EXPECT_EQ(find(gone, "count")->match, MatchKind::Exact);
}

// A heap variable with samples in one run only, whose allocation site the other run has too (its
// report does not build a variable without samples): matched, with no samples there, not
// "new" or "gone", and its allocation path kept.
TEST(DiffModel, HeapSiteWithoutSamplesInOneRunIsMatchedNotGone) {
  Version quiet;
  quiet.scratch_samples = 0;
  for (bool forward : {true, false}) {
    DiffModel m = forward ? build_diff_model(make_database(Version{}), make_database(quiet))
                          : build_diff_model(make_database(quiet), make_database(Version{}));
    const VariableDiff* scratch = find(m, "main (main.c:12)");
    ASSERT_NE(scratch, nullptr) << forward;
    EXPECT_EQ(scratch->match, MatchKind::Exact) << forward;
    EXPECT_TRUE(scratch->before.present && scratch->after.present) << forward;
    EXPECT_DOUBLE_EQ((forward ? scratch->after : scratch->before).samples, 0) << forward;
    EXPECT_DOUBLE_EQ((forward ? scratch->before : scratch->after).samples, 30) << forward;
    ASSERT_EQ(scratch->allocation_path.size(), 2u) << forward;
    EXPECT_EQ(scratch->allocation_path[1].line, 12u) << forward;
  }
}

// Loose keys pair a variable only when they are unambiguous. A stripped program's path is its
// modules alone (on CP2K thousands of sites seen in one run only shared such keys, and unrelated
// variables were paired as one that had moved): no loose key at all. Symbolized, two sites on
// each side with the same functions (lines moved) are ambiguous and stay gone and new; one alone
// with its functions on each side pairs.
TEST(DiffModel, LooseKeysPairOnlyWhenUnambiguous) {
  // Sites (callee offset, caller offset) with their samples; `names` symbolizes every frame.
  // Sites after the first `sampled` have no sample (their report builds no variable for them).
  auto run = [](std::vector<std::pair<uint64_t, uint64_t>> sites, bool names, uint32_t line0,
                size_t sampled = SIZE_MAX) {
    Profile db = make_database(Version{});
    db.sites.clear();
    for (auto [callee, caller] : sites) db.sites.push_back({AllocApi::Malloc, 0, {{0, callee}, {0, caller}}, 1, 4096});
    Tree t = new_tree(0);
    for (uint32_t k = 0; k < db.sites.size() && k < sampled; ++k) heap_sample(t, k, {{0, 0x2040 + k}}, 10 + k);
    db.statics.clear();
    db.trees = {t};
    db.symbols.clear();
    if (names) {
      uint32_t line = line0;
      for (auto [callee, caller] : sites) {
        // The first two sites share their functions; the third is alone with its own.
        const bool alone = caller == 0x2900;
        db.symbols.push_back(Symbolized{{0, callee}, {{alone ? "make_cache" : "make_grid", "/src/g.c", line++}}});
        db.symbols.push_back(Symbolized{{0, caller}, {{"main", "/src/main.c", line++}}});
      }
      // The database's symbols are sorted by frame (looked up by binary search).
      std::sort(db.symbols.begin(), db.symbols.end(),
                [](const Symbolized& x, const Symbolized& y) { return x.frame < y.frame; });
    }
    return db;
  };
  auto count = [](const DiffModel& m, MatchKind kind) {
    size_t n = 0;
    for (const VariableDiff& v : m.variables) n += v.kind == VariableKind::Heap && v.match == kind;
    return n;
  };
  const std::vector<std::pair<uint64_t, uint64_t>> before = {{0x1100, 0x2100}, {0x1200, 0x2200}, {0x1300, 0x2900}};
  const std::vector<std::pair<uint64_t, uint64_t>> after = {{0x1500, 0x2500}, {0x1600, 0x2600}, {0x1700, 0x2900}};
  DiffModel stripped = build_diff_model(run(before, false, 1), run(after, false, 1));
  EXPECT_EQ(count(stripped, MatchKind::Loose), 0u);
  EXPECT_EQ(count(stripped, MatchKind::Gone), 3u);
  EXPECT_EQ(count(stripped, MatchKind::New), 3u);
  DiffModel named = build_diff_model(run(before, true, 10), run(after, true, 40));
  EXPECT_EQ(count(named, MatchKind::Loose), 1u);
  EXPECT_EQ(count(named, MatchKind::Gone), 2u);
  EXPECT_EQ(count(named, MatchKind::New), 2u);
  // Unique among the variables with samples is not enough: BEFORE's second make_grid site has
  // none, but it is a site of the run with the same loose key, so the first does not pair.
  DiffModel hidden = build_diff_model(run({{0x1100, 0x2100}, {0x1200, 0x2200}}, true, 10, 1),
                                      run({{0x1500, 0x2500}}, true, 40));
  EXPECT_EQ(count(hidden, MatchKind::Loose), 0u);
  EXPECT_EQ(count(hidden, MatchKind::Gone), 1u);
  EXPECT_EQ(count(hidden, MatchKind::New), 1u);
}

TEST(DiffModel, MatchesAndFigures) {
  DiffModel m = build_diff_model(make_database(Version{}), make_database(fixed_version()));
  EXPECT_EQ(m.before.raw_samples, 530u);  // 320 + 100 + 30 + 50 + 5 + 25
  EXPECT_EQ(m.after.raw_samples, 236u);   // 32 + 104 + 30 + 50 + 20
  EXPECT_DOUBLE_EQ(m.after_scale, 1);
  ASSERT_TRUE(m.before.cpu_seconds.has_value());
  EXPECT_DOUBLE_EQ(*m.before.cpu_seconds, 0.53);
  EXPECT_NEAR(m.before.data_share, 505.0 / 530, 1e-12);

  // The grid's allocation line moved: matched by function names, and said so.
  const VariableDiff* grid = find(m, "make_grid (grid.c:43)");
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->match, MatchKind::Loose);
  EXPECT_DOUBLE_EQ(grid->before.samples, 320);
  EXPECT_DOUBLE_EQ(grid->after.samples, 32);
  EXPECT_DOUBLE_EQ(grid->delta, -288);
  ASSERT_TRUE(grid->ratio.has_value());
  EXPECT_DOUBLE_EQ(*grid->ratio, 0.1);
  EXPECT_NEAR(grid->share_change, 32.0 / 236 - 320.0 / 530, 1e-12);
  EXPECT_TRUE(grid->significant);
  EXPECT_EQ(m.variables[0].name, grid->name);  // the largest change comes first
  // by_columns went, by_rows came.
  ASSERT_EQ(grid->accesses.size(), 2u);
  EXPECT_EQ(grid->accesses[0].label, "by_columns (walk.c:5)");
  EXPECT_DOUBLE_EQ(grid->accesses[0].before, 300);
  EXPECT_DOUBLE_EQ(grid->accesses[0].after, 0);
  EXPECT_EQ(grid->accesses[0].callers, "main");
  EXPECT_EQ(grid->accesses[1].label, "by_rows (walk.c:9)");
  EXPECT_DOUBLE_EQ(grid->accesses[1].before, 20);
  EXPECT_DOUBLE_EQ(grid->accesses[1].after, 32);

  // Same path: exact; 100 -> 104 samples is noise.
  const VariableDiff* halo = find(m, "main (main.c:11)");
  ASSERT_NE(halo, nullptr);
  EXPECT_EQ(halo->match, MatchKind::Exact);
  EXPECT_FALSE(halo->significant);
  EXPECT_LE(halo->before.low, halo->before.samples);
  EXPECT_GE(halo->before.high, halo->before.samples);

  // The counter's symbol changed (count.1 -> count.2), its source name did not.
  const VariableDiff* counter = find(m, "count");
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->match, MatchKind::Loose);
  EXPECT_EQ(counter->kind, VariableKind::Static);

  const VariableDiff* scratch = find(m, "main (main.c:12)");
  ASSERT_NE(scratch, nullptr);
  EXPECT_EQ(scratch->match, MatchKind::Gone);
  EXPECT_FALSE(scratch->after.present);
  ASSERT_TRUE(scratch->ratio.has_value());
  EXPECT_DOUBLE_EQ(*scratch->ratio, 0);
  const VariableDiff* cache = find(m, "make_cache (cache.c:3)");
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->match, MatchKind::New);
  EXPECT_FALSE(cache->ratio.has_value());
  const VariableDiff* stack = find(m, "[stack]");
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack->match, MatchKind::Gone);
  EXPECT_FALSE(stack->significant);  // 5 samples gone: within the interval of 0

  for (size_t i = 1; i < m.variables.size(); ++i)
    EXPECT_GE(std::fabs(m.variables[i - 1].delta), std::fabs(m.variables[i].delta));
  bool loose_note = false;
  for (const std::string& n : m.notes) loose_note |= n.find("matched loosely") != std::string::npos;
  EXPECT_TRUE(loose_note);
}

TEST(DiffModel, UnchangedRunIsAllNoise) {
  DiffModel m = build_diff_model(make_database(Version{}), make_database(Version{}));
  ASSERT_FALSE(m.variables.empty());
  for (const VariableDiff& v : m.variables) {
    EXPECT_EQ(v.match, MatchKind::Exact) << v.name;
    EXPECT_DOUBLE_EQ(v.delta, 0) << v.name;
    EXPECT_FALSE(v.significant) << v.name;
  }
  EXPECT_TRUE(m.notes.empty());
}

TEST(DiffModel, ScalesAfterToBeforesRate) {
  Version half = Version{};
  half.rate = "500";  // the same run sampled half as often
  half.by_columns = 150;
  half.by_rows = 10;
  half.halo = 50;
  half.counter_samples = 25;
  DiffModel m = build_diff_model(make_database(Version{}), make_database(half));
  EXPECT_DOUBLE_EQ(m.after_scale, 2);
  const VariableDiff* grid = find(m, "make_grid (grid.c:41)");
  ASSERT_NE(grid, nullptr);
  EXPECT_DOUBLE_EQ(grid->after.samples, 320);
  EXPECT_DOUBLE_EQ(grid->delta, 0);
  EXPECT_FALSE(grid->significant);
  EXPECT_DOUBLE_EQ(grid->accesses[0].after, 300);
  // CPU time is each run's own: 295 samples at 500/s (scratch, stack and no-data kept theirs).
  EXPECT_DOUBLE_EQ(*m.after.cpu_seconds, 0.59);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("multiplied by 2"), std::string::npos);
}

TEST(DiffModel, PerProcessMeans) {
  Version four = Version{};
  four.processes = 4;
  for (uint64_t* x : {&four.by_columns, &four.by_rows, &four.halo, &four.counter_samples, &four.stack, &four.no_data})
    *x *= 2;  // twice the processes' samples over 4 processes instead of 2 ...
  Version two = Version{};
  two.processes = 2;
  DiffModel plain = build_diff_model(make_database(two), make_database(four));
  bool hint = false;
  for (const std::string& n : plain.notes) hint |= n.find("--per-process") != std::string::npos;
  EXPECT_TRUE(hint);
  DiffOptions o;
  o.per_process = true;
  DiffModel m = build_diff_model(make_database(two), make_database(four), o);
  EXPECT_TRUE(m.per_process);
  const VariableDiff* grid = find(m, "make_grid (grid.c:41)");
  ASSERT_NE(grid, nullptr);
  EXPECT_DOUBLE_EQ(grid->before.samples, 160);  // ... is the same per process
  EXPECT_DOUBLE_EQ(grid->after.samples, 160);
  EXPECT_DOUBLE_EQ(m.before.samples, 265);
  EXPECT_DOUBLE_EQ(m.after.samples, (2 * 500 + 30) / 4.0);  // the scratch buffer kept its 30
}

TEST(DiffModel, DifferentSourcesAreNotScaled) {
  Profile b = make_database(Version{});
  Profile a = make_database(Version{});
  a.set_meta("source", "pebs");
  a.set_meta("rate", "20000");
  DiffModel m = build_diff_model(b, a);
  EXPECT_DOUBLE_EQ(m.after_scale, 1);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("cannot be compared"), std::string::npos);
  EXPECT_FALSE(m.after.cpu_seconds.has_value());
}

TEST(DiffModel, MatchKeys) {
  Variable v;
  v.kind = VariableKind::Heap;
  v.allocation_path = {Location{"malloc", "", 0, "", 0, false}, Location{"make_grid", "/a/grid.c", 41, kApp, 0x10, true}};
  EXPECT_EQ(match_key(v, false), "heap\nmalloc@:0\nmake_grid@grid.c:41");
  EXPECT_EQ(match_key(v, true), "heap\nmalloc\nmake_grid");
  v.allocation_path.push_back(Location{"main", "/a/main.c", 9, kApp, 0x20, true});
  v.allocation_path[1].function = "";  // unsymbolized: module and offset, loosely the module
  EXPECT_EQ(match_key(v, false), "heap\nmalloc@:0\nsolver+0x10\nmain@main.c:9");
  EXPECT_EQ(match_key(v, true), "heap\nmalloc\nsolver\nmain");
  v.allocation_path[2].function = "";  // no frame named (a stripped program): no loose key
  EXPECT_EQ(match_key(v, false), "heap\nmalloc@:0\nsolver+0x10\nsolver+0x20");
  EXPECT_EQ(match_key(v, true), "");
  Variable u;
  u.kind = VariableKind::Unknown;
  u.name = "[stack]";
  EXPECT_EQ(match_key(u, true), "");  // no loose match for a name
}

// The golden JSON diff of the synthetic pair: the schema and figures as scripts see them.
TEST(DiffFormat, GoldenJson) {
  DiffModel m = build_diff_model(make_database(Version{}), make_database(fixed_version()));
  std::ostringstream json;
  write_diff_json(m, DiffReportOptions{0, 0, 3}, json);
  EXPECT_NO_THROW(Json::parse(json.str()));
  const std::string golden = std::string(ANALYZER_GOLDEN_DIR) + "/diff/diff.json";
  if (const char* u = std::getenv("HPCL_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1") {
    std::ofstream(golden) << json.str();
  }
  std::ifstream in(golden);
  ASSERT_TRUE(in) << "missing " << golden << " (HPCL_UPDATE_GOLDEN=1 writes it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(json.str(), expected.str()) << "if intended: HPCL_UPDATE_GOLDEN=1 analyzer_tests --gtest_filter=DiffFormat.*";
}

// At 80 columns the demo's diff showed two access paths of column_means_bad as one line twice,
// "column_means…p region 0] (heat2d.c:101)": the region suffix kept, the name and the callers
// that tell them apart cut. They are cut as the report's table cuts names now.
TEST(DiffFormat, AccessPathsStayApartAt80Columns) {
  DiffModel m;
  VariableDiff v;
  v.kind = VariableKind::Heap;
  v.name = "alloc_field (heat2d.c:41)";
  v.before.present = v.after.present = true;
  v.before.samples = 3595;
  v.after.samples = 1201;
  v.accesses = {{"column_means_bad [omp region 0] (heat2d.c:101)", "libgomp.so.1!0x1cc40 < start_thread", 1624, 0},
                {"column_means_bad [omp region 0] (heat2d.c:101)", "GOMP_parallel < column_means_bad", 1560, 0}};
  m.variables = {v};
  std::ostringstream text;
  write_diff_text(m, DiffReportOptions{0, 80, 3}, text);
  std::vector<std::string> paths;
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);)
    if (line.find("[gone]") != std::string::npos) paths.push_back(line.substr(line.find("0  ") + 3));
  ASSERT_EQ(paths.size(), 2u) << text.str();
  EXPECT_NE(paths[0], paths[1]) << text.str();
  for (const std::string& p : paths) {
    EXPECT_EQ(p.find("[omp region"), std::string::npos) << p;
    EXPECT_LE(display_width(p), 80u - 20u) << p;
  }
  EXPECT_NE(paths[1].find("column_means_bad < GOMP_parallel"), std::string::npos) << paths[1];
}

// At 80 columns every line fits, CP2K's case: long stripped names, a loose match's long note,
// and more new variables than are listed (each named up to 10, then counted).
TEST(DiffFormat, EveryLineFitsAt80Columns) {
  DiffModel m;
  for (int k = 0; k < 14; ++k) {
    VariableDiff v;
    v.kind = VariableKind::Heap;
    v.name = "cp2k.psmp!0x28ffac0+0x4e \u2190 \u2026 \u2190 cp2k.psmp!0x15f8ba0+0x16e" + std::to_string(k);
    v.match = k < 2 ? MatchKind::Gone : MatchKind::New;
    v.before.present = k < 2;
    v.after.present = k >= 2;
    (k < 2 ? v.before : v.after).samples = 6687 + k;
    v.delta = k < 2 ? -6687.0 - k : 6687.0 + k;
    v.accesses = {{"cp2k.psmp!0x1cb7dd0+0x52fa", "cp2k.psmp!0x1cad680 < GOMP_parallel", 6533, 7356}};
    m.variables.push_back(v);
  }
  m.notes = {"matched loosely (same functions, lines or symbol moved): " + m.variables[0].name + " -> " +
             m.variables[1].name};
  std::ostringstream text;
  write_diff_text(m, DiffReportOptions{0, 80, 3}, text);
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) EXPECT_LE(display_width(line), 80u) << line;
  EXPECT_NE(text.str().find("and 2 more (--format json lists them)"), std::string::npos) << text.str();
}

TEST(DiffFormat, TextAndCsv) {
  DiffModel m = build_diff_model(make_database(Version{}), make_database(fixed_version()));
  std::ostringstream text, csv;
  write_diff_text(m, DiffReportOptions{0, 120, 3}, text);
  const std::string t = text.str();
  EXPECT_NE(t.find("samples                            530           236  -55.5%"), std::string::npos) << t;
  EXPECT_NE(t.find("by_columns (walk.c:5) < main   [gone]"), std::string::npos) << t;
  EXPECT_NE(t.find("new in AFTER: make_cache (cache.c:3) (30)"), std::string::npos) << t;
  EXPECT_NE(t.find("gone from AFTER: main (main.c:12) (30); [stack] (5)"), std::string::npos) << t;
  EXPECT_NE(t.find("heap loose    make_grid (grid.c:43)"), std::string::npos) << t;
  EXPECT_NE(t.find("~+4"), std::string::npos) << t;  // the halo: within noise
  write_diff_csv(m, DiffReportOptions{0, 0, 3}, csv);
  std::istringstream lines(csv.str());
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  EXPECT_EQ(first.substr(0, first.find(",320.0")), "loose,heap,make_grid (grid.c:43)");
  EXPECT_NE(first.find(",by_columns (walk.c:5),by_rows (walk.c:9)"), std::string::npos) << first;
}

}  // namespace
}  // namespace hpcl::analysis
