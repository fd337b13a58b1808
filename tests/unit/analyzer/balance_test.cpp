// Per-rank and per-thread balance (BALANCE, balance.h): the Accumulator's summaries equal a
// brute-force computation over the groups whatever the split into partials and the order of
// absorption, one rank's processes may land in different partials, the report's statistics
// follow the definitions of docs/REPORT.md (mean over every rank, zeros included), --sort
// imbalance ranks the skewed variable first, and the database does not grow with the ranks.
#include <algorithm>
#include <map>
#include <random>
#include <sstream>

#include "merge/accumulator.h"
#include "output/formatters.h"
#include "profile_builder.h"
#include "model/report_model.h"

#include <nlohmann/json.hpp>

// Reports are read back with nlohmann-json, which refuses what RFC 8259 refuses.
using Json = nlohmann::json;

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

const Module kApp{"/nonexistent/app", "ab", 0};

// One process: `per_thread[t][v]` samples of site v on its thread t (ASLR: a different load bias
// per process, the sites' offsets are link-time and the same).
Profile process(int rank, int pid, const std::vector<std::vector<uint64_t>>& per_thread,
                uint64_t estimated_extra = 0) {
  Profile p = new_process(rank);
  p.set_meta("pid", std::to_string(pid));
  p.modules = {Module{kApp.path, kApp.build_id, 0x555500000000ull + 0x1000ull * pid}};
  const size_t nvars = per_thread.empty() ? 0 : per_thread[0].size();
  // Sites listed in reverse on odd pids, so every process numbers them differently.
  for (size_t v = 0; v < nvars; ++v) {
    size_t id = pid % 2 ? nvars - 1 - v : v;
    p.sites.push_back({AllocApi::Malloc, 0, {{0, 0x100 + 0x10 * id}}, 1, 4096});
  }
  auto site_of = [&](size_t v) { return static_cast<uint32_t>(pid % 2 ? nvars - 1 - v : v); };
  for (size_t t = 0; t < per_thread.size(); ++t) {
    Tree tree = new_tree(static_cast<uint32_t>(100 * pid + t));
    for (size_t v = 0; v < nvars; ++v) {
      if (per_thread[t][v] == 0) continue;
      // Two access paths, so the variable's value is a subtree sum.
      uint64_t a = per_thread[t][v] / 2, b = per_thread[t][v] - a;
      if (a) heap_sample(tree, site_of(v), {{0, 0x900}, {0, 0x910}}, a);
      if (v == 0 && estimated_extra)
        heap_sample_estimated(tree, site_of(v), {{0, 0x900}, {0, 0x920}}, b, estimated_extra, 1);
      else
        heap_sample(tree, site_of(v), {{0, 0x900}, {0, 0x920}}, b);
    }
    unknown_sample(tree, UnknownClass::Stack, {{0, 0x930}}, 1 + t);
    p.trees.push_back(std::move(tree));
  }
  return p;
}

// The reference: per group values computed directly, folded in one pass.
struct Expected {
  std::map<std::pair<int64_t, uint64_t>, uint64_t> ranks;  // (rank or -1, pid if no rank) -> value
  std::map<GroupId, uint64_t> threads;
};

Spread brute(const std::vector<std::pair<GroupId, uint64_t>>& values) {
  Spread s;
  unsigned __int128 sq = 0;
  for (const auto& [g, v] : values) {
    if (v == 0) continue;
    if (s.groups == 0 || v < s.min) s.min = v;
    if (v > s.max || (v == s.max && g < s.max_group)) s.max = v, s.max_group = g;
    ++s.groups;
    s.sum += v;
    sq += static_cast<unsigned __int128>(v) * v;
  }
  s.sumsq_lo = static_cast<uint64_t>(sq);
  s.sumsq_hi = static_cast<uint64_t>(sq >> 64);
  return s;
}

// A run of 5 ranks, rank 2 written by two processes (a forked child keeps the rank), and two
// processes without a rank; 3 variables, 1 to 3 threads per process.
std::vector<Profile> run() {
  std::vector<Profile> ps;
  std::mt19937 rng(7);
  int pid = 10;
  auto add = [&](int rank, size_t threads) {
    std::vector<std::vector<uint64_t>> v(threads, std::vector<uint64_t>(3));
    for (auto& t : v)
      for (uint64_t& x : t) x = rng() % 4 == 0 ? 0 : rng() % 1000;
    ps.push_back(process(rank, pid++, v, rank == 1 ? 15 : 0));
  };
  for (int r = 0; r < 5; ++r) add(r, 1 + r % 3);
  add(2, 2);  // the forked child of rank 2
  add(-1, 2);
  add(-1, 1);
  return ps;
}

// Site v of the run's processes, as the database numbers them (sorted by frames: v itself).
Balance reference(const std::vector<Profile>& ps) {
  Balance b;
  std::map<std::pair<int64_t, uint64_t>, bool> rank_groups;
  std::map<uint32_t, std::vector<std::pair<GroupId, uint64_t>>> thread_values;
  std::map<uint32_t, std::map<GroupId, uint64_t>> rank_values;
  for (const Profile& p : ps) {
    int64_t rank = std::stoll(*p.find_meta("rank"));
    uint64_t pid = std::stoull(*p.find_meta("pid"));
    GroupId rg = rank >= 0 ? GroupId{rank, 0, 0} : GroupId{-1, pid, 0};
    rank_groups[{rg.rank, rg.pid}] = true;
    for (uint32_t t = 0; t < p.trees.size(); ++t) {
      ++b.thread_groups;
      std::map<uint32_t, uint64_t> per_var;  // db site index -> value
      const Tree& tree = p.trees[t];
      std::vector<uint64_t> inc = inclusive_metric(tree, kMetricSamples);
      std::vector<uint64_t> extra = inclusive_metric(tree, kMetricSamplesEstimated);
      for (size_t i = 0; i < tree.nodes.size(); ++i) {
        const Node& n = tree.nodes[i];
        if (n.kind != NodeKind::HeapVar) continue;
        uint32_t db_index = static_cast<uint32_t>((p.sites[n.a].frames[0].offset - 0x100) / 0x10);
        per_var[db_index] += inc[i] + extra[i];
      }
      for (auto& [v, x] : per_var) {
        thread_values[v].emplace_back(GroupId{rank >= 0 ? rank : -1, pid, t}, x);
        rank_values[v][rg] += x;
      }
    }
  }
  b.rank_groups = rank_groups.size();
  for (auto& [v, tv] : thread_values) {
    std::vector<std::pair<GroupId, uint64_t>> rv(rank_values[v].begin(), rank_values[v].end());
    b.variables.push_back({BalanceOwner::Site, v, brute(rv), brute(tv)});
  }
  return b;
}

Profile merge_split(std::vector<Profile> ps, size_t parts, unsigned seed) {
  std::mt19937 rng(seed);
  std::shuffle(ps.begin(), ps.end(), rng);
  std::vector<Accumulator> partials(parts);
  for (size_t i = 0; i < ps.size(); ++i) partials[rng() % parts].add_process(ps[i]);
  // Absorb along a random tree: any partial into any other, until one is left.
  while (partials.size() > 1) {
    size_t from = rng() % partials.size(), into = rng() % (partials.size() - 1);
    if (into >= from) ++into;
    partials[into].absorb(partials[from]);
    partials.erase(partials.begin() + static_cast<long>(from));
  }
  return partials[0].finish();
}

TEST(Balance, EqualsTheBruteForceSummaryWhateverTheSplit) {
  const std::vector<Profile> ps = run();
  const Balance want = reference(ps);
  Profile reference_db = merge_split(ps, 1, 1);
  std::vector<VariableBalance> heap;
  for (const VariableBalance& v : reference_db.balance.variables)
    if (v.owner == BalanceOwner::Site) heap.push_back(v);
  EXPECT_EQ(reference_db.balance.rank_groups, 7u) << "5 ranks and 2 processes without a rank";
  EXPECT_EQ(reference_db.balance.rank_groups, want.rank_groups);
  EXPECT_EQ(reference_db.balance.thread_groups, want.thread_groups);
  ASSERT_EQ(heap.size(), want.variables.size());
  for (size_t i = 0; i < heap.size(); ++i) EXPECT_EQ(heap[i], want.variables[i]) << "site " << i;

  const std::vector<uint8_t> bytes = encode_profile(reference_db, 0);
  for (size_t parts : {2u, 3u, 8u})
    for (unsigned seed = 0; seed < 20; ++seed)
      EXPECT_EQ(encode_profile(merge_split(ps, parts, seed), 0), bytes)
          << parts << " partials, seed " << seed;
}

const Variable* find_site(const ReportModel& m, uint64_t offset) {
  std::ostringstream name;
  name << "app+0x" << std::hex << offset;
  for (const Variable& v : m.variables)
    if (v.name == name.str()) return &v;
  return nullptr;
}

Profile finish(const std::vector<Profile>& ps) {
  Accumulator acc;
  for (const Profile& p : ps) acc.add_process(p);
  return acc.finish();
}

// The acceptance case: 2 ranks x 2 threads; site 0 read twice as often on rank 1, site 1 evenly.
TEST(Balance, TwiceAsOftenOnOneRankIsFourThirds) {
  Profile db = finish({process(0, 10, {{300, 600}, {300, 600}}), process(1, 11, {{600, 600}, {600, 600}})});
  ReportModel m = build_report_model(db);
  const Variable* skewed = find_site(m, 0x100);
  const Variable* even = find_site(m, 0x110);
  ASSERT_TRUE(skewed && even);
  ASSERT_TRUE(skewed->has_balance);
  EXPECT_EQ(skewed->ranks.count, 2u);
  EXPECT_EQ(skewed->ranks.max_group.rank, 1);
  EXPECT_DOUBLE_EQ(skewed->ranks.imbalance, 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(skewed->ranks.mean, 900.0);
  EXPECT_DOUBLE_EQ(skewed->ranks.min, 600.0);
  EXPECT_DOUBLE_EQ(skewed->ranks.stddev, 300.0);
  EXPECT_EQ(skewed->threads.count, 4u);
  EXPECT_DOUBLE_EQ(skewed->threads.imbalance, 4.0 / 3.0);
  EXPECT_EQ(skewed->threads.max_group, (GroupId{1, 11, 0})) << "ties go to the smallest thread";
  EXPECT_DOUBLE_EQ(even->ranks.imbalance, 1.0);
  EXPECT_EQ(even->ranks.max_group.rank, 0) << "ties go to the smallest rank";

  sort_variables(m, VariableOrder::Imbalance);
  EXPECT_EQ(m.variables[0].name, "app+0x100");

  std::ostringstream json;
  write_json(m, ReportOptions{View::Data, 0}, json);
  Json doc = Json::parse(json.str());
  const Json& ranks = doc.at("variables").at(0).at("ranks");
  EXPECT_EQ(ranks.at("count").get<uint64_t>(), 2u);
  EXPECT_EQ(ranks.at("max_rank").get<uint64_t>(), 1u);
  EXPECT_NEAR(ranks.at("imbalance").get<double>(), 4.0 / 3.0, 1e-6);
  EXPECT_EQ(doc.at("variables").at(0).at("threads").at("max_thread").get<uint64_t>(), 0u);
}

// Zeros count: a variable touched only by rank 0 of 4 has imbalance 4 and min 0; a rank that
// has no sample at all still counts.
TEST(Balance, MeanIsOverEveryRankOfTheRun) {
  Profile db = finish({process(0, 10, {{80, 5}}), process(1, 11, {{0, 5}}), process(2, 12, {{0, 5}}),
                       process(3, 13, {})});
  ReportModel m = build_report_model(db);
  const Variable* only0 = find_site(m, 0x100);
  ASSERT_TRUE(only0);
  EXPECT_EQ(only0->ranks.count, 4u);
  EXPECT_EQ(only0->ranks.with, 1u);
  EXPECT_DOUBLE_EQ(only0->ranks.imbalance, 4.0);
  EXPECT_DOUBLE_EQ(only0->ranks.min, 0.0);
  EXPECT_EQ(only0->ranks.max_group.rank, 0);
  const Variable* three = find_site(m, 0x110);
  ASSERT_TRUE(three);
  EXPECT_DOUBLE_EQ(three->ranks.imbalance, 4.0 / 3.0);
}

// The estimated samples count, as in the share; a process without a rank is a group of its own
// named by its pid.
TEST(Balance, EstimatesCountAndRanklessProcessesAreGroups) {
  // The 90 samples the estimate adds fell, as raw samples, in the site's untracked blocks.
  Profile p20 = process(-1, 20, {{10}}, /*estimated_extra=*/90);
  unknown_sample(p20.trees[0], UnknownClass::UntrackedHeap, {{0, 0x940}}, 90);
  Profile db = finish({p20, process(-1, 21, {{50}})});
  ReportModel m = build_report_model(db);
  const Variable* v = find_site(m, 0x100);
  ASSERT_TRUE(v);
  EXPECT_DOUBLE_EQ(v->samples_estimated, 150.0);
  EXPECT_EQ(v->ranks.count, 2u);
  EXPECT_DOUBLE_EQ(v->ranks.max, 100.0);
  EXPECT_EQ(v->ranks.max_group, (GroupId{-1, 20, 0}));
  EXPECT_EQ(group_label(v->ranks.max_group, false), "pid 20");
  EXPECT_EQ(group_label(v->threads.max_group, true), "pid 20.0");
}

// --sort imbalance leaves variables under 1% of the samples to the end: one sample on one rank
// is an imbalance of N by chance.
TEST(Balance, SortByImbalanceSkipsVariablesWithFewSamples) {
  Profile db = finish({process(0, 10, {{1000, 1, 500}}), process(1, 11, {{1000, 0, 900}})});
  ReportModel m = build_report_model(db);
  sort_variables(m, VariableOrder::Imbalance);
  ASSERT_GE(m.variables.size(), 3u);
  EXPECT_EQ(m.variables[0].name, "app+0x120");
  EXPECT_EQ(m.variables[1].name, "app+0x100");
  EXPECT_EQ(m.variables.back().name, "app+0x110") << "2.00 on rank 0, but one sample";
}

// --sort imbalance ranks the program's variables only: `[stack]` (here 400 samples, all on rank
// 0: imbalance 2.00, 17% of the samples) mixes unrelated data and follows in samples order.
TEST(Balance, SortByImbalanceRanksOnlyHeapAndStaticVariables) {
  Profile r0 = process(0, 10, {{600, 900}}), r1 = process(1, 11, {{1000, 900}});
  unknown_sample(r0.trees[0], UnknownClass::Stack, {{0, 0x940}}, 400);
  Profile db = finish({r0, r1});
  ReportModel m = build_report_model(db);
  const Variable* stack = nullptr;
  for (const Variable& v : m.variables)
    if (v.kind == VariableKind::Unknown) stack = &v;
  ASSERT_TRUE(stack && stack->has_balance);
  ASSERT_GE(stack->share, kImbalanceMinShare);
  ASSERT_GT(stack->ranks.imbalance, 1.9);
  sort_variables(m, VariableOrder::Imbalance);
  ASSERT_GE(m.variables.size(), 3u);
  EXPECT_EQ(m.variables[0].name, "app+0x100") << "1.25, the program's most imbalanced";
  EXPECT_EQ(m.variables[1].name, "app+0x110");
  EXPECT_EQ(m.variables[2].kind, VariableKind::Unknown);
}

// The part of an unknown class that MPI's code read is a row of the report's own ("[untracked
// heap read by MPI]", listed apart by --no-group): no BALANCE entry describes it, nor what is
// left of its class, so neither claims a spread (the MPI part once printed 0 on every rank).
TEST(Balance, ClassesSplitByMpiHaveNoSpread) {
  Profile r0 = process(0, 10, {{600, 900}}), r1 = process(1, 11, {{1000, 900}});
  for (Profile* p : {&r0, &r1}) {
    p->modules.push_back({"/usr/lib/x86_64-linux-gnu/libmpi.so.40", "", 0x7f0000000000ull});
    const auto mpi = static_cast<uint32_t>(p->modules.size() - 1);
    unknown_sample(p->trees[0], UnknownClass::UntrackedHeap, {{mpi, 0x40}}, 7);
    unknown_sample(p->trees[0], UnknownClass::UntrackedHeap, {{0, 0x940}}, 3);
  }
  ReportModelOptions ungrouped;
  ungrouped.group_runtime = false;
  const ReportModel m = build_report_model(finish({r0, r1}), ungrouped);
  std::vector<std::string> seen;
  for (const Variable& v : m.variables)
    if (v.name == "[untracked heap read by MPI]" || v.name == "[untracked heap]") {
      seen.push_back(v.name);
      EXPECT_GT(v.samples, 0u) << v.name;
      EXPECT_FALSE(v.has_balance) << v.name;
    }
  EXPECT_EQ(seen.size(), 2u);
}

// The column a table is sorted by stays when the table narrows: sorted by imbalance, the text
// table names the imbalance column at every width, where in samples order it is the last
// column to give way (e2e.rank_balance once got an 80-column table sorted by imbalance without
// it: a group's samples cell, "1069 (≈1132)", had taken the room).
TEST(Balance, TheSortColumnStaysAtEveryWidth) {
  Profile db = finish({process(0, 10, {{600, 900}}), process(1, 11, {{1000, 900}})});
  auto header = [&](const ReportModel& m, size_t width) {
    std::ostringstream text;
    write_text(m, ReportOptions{View::Data, 0, width}, text);
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);) {
      if (line.find("#  variable") != std::string::npos) return line;
    }
    return std::string();
  };
  ReportModel by_samples = build_report_model(db);
  ReportModel by_imbalance = build_report_model(db);
  sort_variables(by_imbalance, VariableOrder::Imbalance);
  bool dropped_in_samples_order = false;
  for (size_t width = 60; width <= 120; ++width) {
    const std::string sorted = header(by_imbalance, width);
    ASSERT_FALSE(sorted.empty()) << width;
    EXPECT_NE(sorted.find("imbalance"), std::string::npos) << "width " << width << ": " << sorted;
    dropped_in_samples_order |= header(by_samples, width).find("imbalance") == std::string::npos;
  }
  EXPECT_TRUE(dropped_in_samples_order) << "no width in 60-120 narrows the table: the test shows nothing";
}

// 4,096 ranks of 2 threads and 50 variables: the database holds one entry per variable.
// Found by tests/fuzz/fuzz_profile: a profile the reader accepts may hold sample counts near
// 2^64 (a damaged one); the spreads' sums saturate rather than wrap, so the merged database keeps
// min <= max <= sum and reads back.
TEST(Balance, HugeSampleCountsSaturateAndTheDatabaseReadsBack) {
  const uint64_t huge = UINT64_MAX - 1000;
  Profile db = finish({process(0, 10, {{huge, 5}, {huge, 7}}), process(1, 11, {{huge, 1}, {3, 2}})});
  const std::vector<uint8_t> bytes = encode_profile(db, 0);
  ReadResult r = read_profile_bytes(bytes.data(), bytes.size(), "db");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_FALSE(r.profile.balance.variables.empty());
  EXPECT_EQ(r.profile.balance.variables[0].ranks.sum, UINT64_MAX);
  EXPECT_EQ(r.profile.balance.variables[0].threads.sum, UINT64_MAX);
}

// Found by tests/fuzz/fuzz_profile: two sites of one profile that are the same site (a damaged
// or hand-made profile) become one variable with two nodes in a thread's tree; the thread is
// still one group, so the database reads back.
TEST(Balance, OneVariableTwiceInATreeIsOneGroup) {
  Profile p = process(0, 10, {{4, 6}, {2, 2}});
  p.sites[1] = p.sites[0];
  Profile db = finish({p});
  const std::vector<uint8_t> bytes = encode_profile(db, 0);
  ReadResult r = read_profile_bytes(bytes.data(), bytes.size(), "db");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_FALSE(r.profile.balance.variables.empty());
  EXPECT_EQ(r.profile.balance.thread_groups, 2u);
  EXPECT_EQ(r.profile.balance.variables[0].threads.groups, 2u);
  EXPECT_EQ(r.profile.balance.variables[0].threads.sum, 14u);
}

TEST(Balance, DatabaseDoesNotGrowWithTheRanks) {
  Accumulator acc;
  std::vector<uint64_t> values(50);
  for (int r = 0; r < 4096; ++r) {
    for (size_t v = 0; v < values.size(); ++v) values[v] = 1 + (r + v) % 7;
    acc.add_process(process(r, 10 + 2 * r, {values, values}));
  }
  Profile db = acc.finish();
  EXPECT_EQ(db.balance.rank_groups, 4096u);
  EXPECT_EQ(db.balance.thread_groups, 8192u);
  EXPECT_EQ(db.balance.variables.size(), 51u) << "50 sites and [stack]";
  const std::vector<uint8_t> bytes = encode_profile(db, 0);
  ReadResult r = read_profile_bytes(bytes.data(), bytes.size(), "db");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.profile.balance, db.balance);
}

}  // namespace
}  // namespace hpcl::analysis
