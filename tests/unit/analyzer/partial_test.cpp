// Partial merges as they travel between the ranks of hpcprof-lite-mpi: to_partial -> bytes ->
// add_partial, in any split and any nesting, then finish() gives the database that adding
// every process to one accumulator gives, byte for byte. The inputs use every field of the
// accumulator's state; a field that the transport forgets makes the bytes differ. Also the
// plan that splits a directory over ranks, and the ranks a share may close before it sends.
#include <algorithm>
#include <map>
#include <set>

#include "merge/accumulator.h"
#include "merge/merge.h"
#include "merge/merge_plan.h"
#include "profile_builder.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

const Module kApp{"/nonexistent/bin/app", "aa11", 0x5555000};
const Module kLibc{"/nonexistent/lib/libc.so.6", "cc22", 0x7f0000};

OffsetHistogram histogram(OffsetOwner owner, uint32_t index, uint64_t min, uint64_t max,
                          uint32_t bin, uint64_t count) {
  OffsetHistogram h;
  h.owner = owner;
  h.index = index;
  h.min = min;
  h.max = max;
  h.bins[bin] = count;
  return h;
}

// Process `rank` of a made-up job: shared and rank-specific sites, statics (one TLS), offset
// histograms, estimated samples, every META key the accumulator sums or copies, and a
// different exe on rank 3 (so the database says "mixed").
Profile process(int rank) {
  Profile p = new_process(rank, "soft", rank == 2 ? "2000" : "1000");
  if (rank == 3) p.set_meta("exe", "/nonexistent/bin/other");
  p.modules = rank % 2 ? std::vector<Module>{kLibc, kApp} : std::vector<Module>{kApp, kLibc};
  const uint32_t app = rank % 2 ? 1 : 0, libc = rank % 2 ? 0 : 1;
  p.sites = {{AllocApi::Malloc, 0, {{app, 0x100}, {app, 0x200}}, 2, 2000},
             {AllocApi::New, rank == 1 ? uint8_t(kSiteSampled) : uint8_t(0),
              {{libc, 0x50}, {app, 0x300 + uint64_t(rank)}}, 1 + uint64_t(rank), 64}};
  p.statics = {{app, 0x4000, 64, 0, "counter.3"},
               {libc, 0x10, 8, kStaticTls, "tls_" + std::to_string(rank % 2)}};
  Tree t1 = new_tree(100 + rank);
  heap_sample(t1, 0, {{app, 0x900}, {app, 0x910}}, 5 + rank);
  heap_sample_estimated(t1, 1, {{app, 0x900}, {libc, 0x60 + uint64_t(rank)}}, 2, 30, 900);
  static_sample(t1, 0, {{app, 0x900}, {app, 0x920}}, 3);
  static_sample(t1, 1, {{app, 0x930}}, 1);
  stack_sample(t1, {app, 0x950}, -24, 8, {{app, 0x900}, {app, 0x950}}, 2 + rank);
  Tree t2 = new_tree(200 + rank);
  unknown_sample(t2, UnknownClass::UntrackedHeap, {{app, 0x940}}, 1);
  stack_sample(t2, {app, 0x950}, -24, 8, {{app, 0x960}, {app, 0x950}}, 1);
  stack_sample(t2, {libc, 0x70}, -4096, 256, {{libc, 0x70}}, 3);
  nodata_sample(t2, {{kNoModule, 0x1234}}, 4);
  p.trees = {t1, t2};
  p.offsets = {histogram(OffsetOwner::Site, 0, 8 * uint64_t(rank), 100, 1, 5),
               histogram(OffsetOwner::Static, 1, 0, 7, 0, 1)};
  p.set_meta("threads", std::to_string(2 + rank));
  p.set_meta("samples_total", std::to_string(20 + rank));
  p.set_meta("samples_dropped", std::to_string(rank));
  if (rank >= 2) {  // 1.2 counters in some inputs only
    p.set_meta("samples_no_data", "4");
    p.set_meta("offsets_lost", std::to_string(rank));
  }
  return p;
}

// Through the bytes, as between ranks.
void transport(Accumulator& from, Accumulator& into) {
  std::vector<uint8_t> bytes = encode_profile(from.to_partial(), 1);
  ReadResult r = read_profile_bytes(bytes.data(), bytes.size(), "partial");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(into.add_partial(r.profile), "");
}

void skip_two(Accumulator& a, Accumulator& b) {
  a.skip("/m/z.hpcl", "damaged: tree 0 node 7: site 12 out of range; really");
  b.skip("/m/a.hpcl", "truncated in section TREE");
}

std::vector<uint8_t> database_bytes(Accumulator& acc) { return encode_profile(acc.finish(), 0); }

TEST(Partial, RoundTripThroughBytesEqualsDirectMerge) {
  Accumulator direct;
  for (int r = 0; r < 5; ++r) direct.add_process(process(r));
  skip_two(direct, direct);

  // Ranks 0..3 as hpcprof-lite-mpi splits them, one rank with nothing, reduced along a tree:
  // 1 -> 0, 3 -> 2, then 2 -> 0.
  Accumulator rank[4];
  rank[0].add_process(process(4));
  rank[0].add_process(process(1));
  rank[1].add_process(process(0));
  rank[2].add_process(process(3));
  rank[2].add_process(process(2));
  skip_two(rank[1], rank[3]);
  transport(rank[1], rank[0]);
  transport(rank[3], rank[2]);
  transport(rank[2], rank[0]);

  EXPECT_EQ(rank[0].processes(), direct.processes());
  EXPECT_EQ(rank[0].skipped(), direct.skipped());
  std::vector<uint8_t> expected = database_bytes(direct);
  EXPECT_EQ(database_bytes(rank[0]), expected);
  // The inputs did exercise what the comparison relies on.
  ReadResult db = read_profile_bytes(expected.data(), expected.size(), "db");
  ASSERT_TRUE(db.ok) << db.error;
  EXPECT_EQ(*db.profile.find_meta("exe"), "mixed");
  EXPECT_EQ(*db.profile.find_meta("ranks"), "5");
  EXPECT_EQ(*db.profile.find_meta("threads"), "20");
  EXPECT_EQ(*db.profile.find_meta("offsets_lost"), "9");
  EXPECT_NE(db.profile.find_meta("skipped")->find("really"), std::string::npos);
  EXPECT_EQ(db.profile.offsets.size(), 3u);
  EXPECT_EQ(db.profile.stack_threads.size(), 15u) << "one slot on both threads, one on the second, of 5 ranks";
}

TEST(Partial, AbsorbEqualsTransport) {
  Accumulator a, b, c, d;
  a.add_process(process(0));
  b.add_process(process(1));
  c.add_process(process(0));
  d.add_process(process(1));
  a.absorb(b);
  transport(d, c);
  EXPECT_EQ(database_bytes(a), database_bytes(c));
}

TEST(Partial, ToPartialEmptiesTheAccumulator) {
  Accumulator a;
  a.add_process(process(0));
  a.skip("/m/x.hpcl", "bad");
  Profile p = a.to_partial();
  EXPECT_EQ(a.processes(), 0u);
  EXPECT_TRUE(a.skipped().empty());
  Accumulator empty;
  EXPECT_EQ(database_bytes(a), database_bytes(empty));
  // An empty partial (a rank given no file) adds nothing.
  Accumulator b, c;
  b.add_process(process(2));
  c.add_process(process(2));
  transport(empty, b);
  EXPECT_EQ(database_bytes(b), database_bytes(c));
}

TEST(Partial, RefusesWhatIsNotAPartial) {
  Accumulator a;
  EXPECT_NE(a.add_partial(process(0)).find("not a partial merge"), std::string::npos);
  Accumulator b;
  b.add_process(process(0));
  Profile db = b.finish();
  EXPECT_NE(a.add_partial(db).find("not a partial merge"), std::string::npos);

  Accumulator c;
  c.add_process(process(1));
  Profile p = c.to_partial();
  Profile newer = p;
  newer.set_meta("partial", "2");
  EXPECT_NE(a.add_partial(newer).find("version 2"), std::string::npos);
  Profile odd = p;
  odd.meta.emplace_back("partial.unheard_of", "1");
  EXPECT_NE(a.add_partial(odd).find("partial.unheard_of"), std::string::npos);
  Profile bad = p;
  bad.set_meta("partial.threads", "many");
  EXPECT_NE(a.add_partial(bad).find("partial.threads=many"), std::string::npos);
  // Nothing of the refused partials was added.
  EXPECT_EQ(a.processes(), 0u);
  Accumulator empty;
  EXPECT_EQ(database_bytes(a), database_bytes(empty));
}

// A job as hpcprof-lite-mpi meets it: files named as the runtime names them, rank 1 with a
// forked child, rank 4 with an image replaced by exec, and a profile of rank 3 renamed by hand
// (its name says no rank), whose other profile another share may hold.
std::vector<std::pair<std::string, Profile>> named_job() {
  std::vector<std::pair<std::string, Profile>> files;
  for (int r = 0; r < 6; ++r)
    files.emplace_back("/m/app.node1." + std::to_string(r) + "." + std::to_string(1000 + r) + ".hpcl", process(r));
  Profile child = process(1);
  child.set_meta("pid", "4242");
  files.emplace_back("/m/app.node1.1.4242.hpcl", child);
  Profile before_exec = process(4);
  files.emplace_back("/m/app.node1.4.1004.exec-1700000000.hpcl", before_exec);
  Profile renamed = process(3);
  renamed.set_meta("pid", "77");
  files.emplace_back("/m/renamed.hpcl", renamed);
  return files;
}

// Each share of the plan merged, its complete ranks closed (all but the ranks some share's files
// do not name), and reduced to share 0, as hpcprof-lite-mpi does; `keep_named_open` false
// closes every rank, which is wrong when a renamed profile sits in another share.
// *apart says whether the plan put the renamed profile and rank 3's other one in two shares.
std::vector<uint8_t> closed_and_reduced(int shares, bool keep_named_open, size_t* values_sent,
                                        bool* apart = nullptr) {
  std::vector<std::pair<std::string, Profile>> files = named_job();
  std::vector<std::pair<std::string, uint64_t>> sizes;
  for (auto& [path, p] : files) sizes.emplace_back(path, encode_profile(p, 0).size());
  MergePlan plan = balance_by_size(sizes, shares);
  auto share_of = [&](const std::string& path) {
    for (size_t s = 0; s < plan.shares.size(); ++s)
      if (std::find(plan.shares[s].begin(), plan.shares[s].end(), path) != plan.shares[s].end()) return s;
    return plan.shares.size();
  };
  if (apart) *apart = share_of("/m/renamed.hpcl") != share_of("/m/app.node1.3.1003.hpcl");
  std::vector<Accumulator> acc(static_cast<size_t>(shares));
  std::set<int64_t> open;
  for (int s = 0; s < shares; ++s) {
    for (const std::string& path : plan.shares[s])
      for (auto& [name, p] : files)
        if (name == path) {
          EXPECT_EQ(acc[s].add_process(p, path), "");
        }
    for (int64_t r : acc[s].ranks_not_named()) open.insert(r);
  }
  *values_sent = 0;
  for (int s = 0; s < shares; ++s) {
    acc[s].close_ranks(keep_named_open ? open : std::set<int64_t>{});
    if (s == 0) continue;
    Profile partial = acc[s].to_partial();
    for (const auto& [key, value] : partial.meta) *values_sent += key == "partial.balance.rank";
    std::vector<uint8_t> bytes = encode_profile(partial, 1);
    ReadResult r = read_profile_bytes(bytes.data(), bytes.size(), "partial");
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(acc[0].add_partial(r.profile), "");
  }
  return database_bytes(acc[0]);
}

TEST(Partial, ClosedRanksGiveTheDatabaseOfTheDirectMerge) {
  Accumulator direct;
  for (auto& [path, p] : named_job()) ASSERT_EQ(direct.add_process(p, path), "");
  EXPECT_EQ(direct.ranks_not_named(), std::vector<int64_t>{3}) << "the renamed profile's rank";
  const std::vector<uint8_t> expected = database_bytes(direct);
  for (int shares : {1, 2, 3, 4}) {
    size_t values = 0;
    EXPECT_EQ(closed_and_reduced(shares, true, &values), expected) << shares << " shares";
    EXPECT_LE(values, 1u) << "only rank 3 travels open";
  }
  // Closing rank 3 in both shares that hold one of its profiles counts it twice: the test
  // would see that.
  bool apart = false;
  size_t values = 0;
  for (int shares = 2; shares <= 6 && !apart; ++shares) {
    std::vector<uint8_t> wrong = closed_and_reduced(shares, false, &values, &apart);
    if (apart) {
      EXPECT_NE(wrong, expected) << shares << " shares";
    }
  }
  EXPECT_TRUE(apart) << "no plan put rank 3's two profiles apart";
}

// merge --per-rank: every node's metrics per rank travel with the partials and land in the
// canonical order, so a split merge still gives the direct merge's bytes.
Accumulator per_rank() {
  Accumulator a;
  a.keep_rank_values(true);
  return a;
}

TEST(PerRank, SplitAndTransportedEqualsDirectMerge) {
  Accumulator direct = per_rank();
  for (int r = 0; r < 5; ++r) direct.add_process(process(r));
  Accumulator rank[3] = {per_rank(), per_rank(), Accumulator()};  // the last only receives
  rank[0].add_process(process(4));
  rank[0].add_process(process(1));
  rank[1].add_process(process(0));
  rank[1].add_process(process(3));
  Accumulator threads = per_rank();
  threads.add_process(process(2));
  rank[1].absorb(threads);
  transport(rank[1], rank[2]);
  transport(rank[0], rank[2]);
  const std::vector<uint8_t> expected = database_bytes(direct);
  EXPECT_EQ(database_bytes(rank[2]), expected);
  ReadResult db = read_profile_bytes(expected.data(), expected.size(), "db");
  ASSERT_TRUE(db.ok) << db.error;
  EXPECT_FALSE(db.profile.rank_values.empty());
}

// Each node's values over the ranks sum to its metrics; each rank's samples are its process's.
TEST(PerRank, ValuesSplitTheTreesMetricsByRank) {
  Accumulator a = per_rank();
  for (int r = 0; r < 4; ++r) a.add_process(process(r));
  Profile extra = process(2);  // a second process of rank 2 (as a rank with two profiles)
  extra.set_meta("pid", "77");
  a.add_process(extra);
  Profile rankless = process(1);
  rankless.set_meta("rank", "-1");
  rankless.set_meta("pid", "78");
  a.add_process(rankless);
  const std::vector<uint8_t> bytes = encode_profile(a.finish(), 0);
  ReadResult r = read_profile_bytes(bytes.data(), bytes.size(), "db");
  ASSERT_TRUE(r.ok) << r.error;
  const Profile& db = r.profile;
  const Tree& t = db.trees[0];
  std::map<std::pair<uint32_t, uint16_t>, uint64_t> summed;
  std::map<int64_t, uint64_t> samples_of_rank;
  for (const RankValue& v : db.rank_values) {
    summed[{v.node, v.metric}] += v.value;
    if (v.metric == kMetricSamples) samples_of_rank[v.rank] += v.value;
  }
  size_t metrics = 0;
  for (uint32_t i = 0; i < t.nodes.size(); ++i)
    for (const Metric& m : t.nodes[i].metrics) {
      ++metrics;
      EXPECT_EQ((summed[{i, m.id}]), m.value) << "node " << i << " metric " << m.id;
    }
  EXPECT_EQ(summed.size(), metrics) << "no value of a metric the tree lacks";
  auto samples_of = [](const Profile& p) {
    uint64_t n = 0;
    for (const Tree& tree : p.trees)
      for (const Node& node : tree.nodes) n += node.metric(kMetricSamples);
    return n;
  };
  EXPECT_EQ(samples_of_rank[0], samples_of(process(0)));
  EXPECT_EQ(samples_of_rank[2], 2 * samples_of(process(2))) << "a rank's two processes add up";
  EXPECT_EQ(samples_of_rank[-1], samples_of(process(1))) << "a process without a rank is rank -1";
  EXPECT_EQ(samples_of_rank.size(), 5u);
}

TEST(PerRank, OffByDefaultAndTheDatabaseIsUnchanged) {
  Accumulator plain, kept = per_rank();
  for (int r = 0; r < 3; ++r) {
    plain.add_process(process(r));
    kept.add_process(process(r));
  }
  Profile with = kept.finish();
  EXPECT_FALSE(with.rank_values.empty());
  EXPECT_TRUE(kept.keeps_rank_values()) << "finish() keeps the setting";
  Profile without = plain.finish();
  EXPECT_TRUE(without.rank_values.empty());
  with.rank_values.clear();
  EXPECT_EQ(encode_profile(with, 0), encode_profile(without, 0)) << "the rest of the database is the same";
}

// A partial whose rank values name a node its tree lacks is refused whole.
TEST(PerRank, PartialWithBadNodeIsRefused) {
  Accumulator a = per_rank();
  a.add_process(process(0));
  Profile partial = a.to_partial();
  partial.rank_values.push_back({uint32_t(partial.trees[0].nodes.size()), 0, kMetricSamples, 1});
  Accumulator into;
  EXPECT_NE(into.add_partial(partial).find("names node"), std::string::npos);
  EXPECT_EQ(into.processes(), 0u);
  EXPECT_EQ(encode_profile(into.finish(), 0), encode_profile(Accumulator().finish(), 0)) << "nothing added";
}

// The same for a stack thread value: the partial is refused whole, its rank values too.
TEST(PerRank, PartialWithBadStackThreadNodeIsRefused) {
  Accumulator a = per_rank();
  a.add_process(process(0));
  Profile partial = a.to_partial();
  ASSERT_FALSE(partial.stack_threads.empty());
  ASSERT_FALSE(partial.rank_values.empty());
  partial.stack_threads.push_back({uint32_t(partial.trees[0].nodes.size()), {0, 1, 0}, 1});
  Accumulator into;
  EXPECT_NE(into.add_partial(partial).find("stack thread value 3 names node"), std::string::npos);
  EXPECT_EQ(encode_profile(into.finish(), 0), encode_profile(Accumulator().finish(), 0)) << "nothing added";
}

TEST(MergePlan, RankInFileName) {
  EXPECT_EQ(rank_in_file_name("/m/app.node1.12.4242.hpcl"), 12);
  EXPECT_EQ(rank_in_file_name("lmp.vm.0.13227.hpcl"), 0);
  EXPECT_EQ(rank_in_file_name("/m/a.b.c.host.example.org.3.99.exec-1700000000.hpcl"), 3);
  EXPECT_EQ(rank_in_file_name("/m/app.node1.norank.4242.hpcl"), std::nullopt);
  EXPECT_EQ(rank_in_file_name("/m/renamed.hpcl"), std::nullopt);
  EXPECT_EQ(rank_in_file_name("/m/app.node1.12.4242.hpcl.tmp"), std::nullopt);
  EXPECT_EQ(rank_in_file_name("/m.5.6/x.hpcl"), std::nullopt) << "the directory is not the name";
}

TEST(MergePlan, OneRanksFilesGoToOneShare) {
  MergePlan plan = balance_by_size({{"/m/a.h.1.10.hpcl", 50}, {"/m/a.h.1.11.hpcl", 50},
                                    {"/m/a.h.2.20.hpcl", 60}, {"/m/a.h.3.30.hpcl", 30},
                                    {"/m/a.h.1.10.exec-5.hpcl", 5}, {"/m/x.hpcl", 20}},
                                   2);
  // Rank 1 is one group of 105 bytes: share 0; rank 2 (60): share 1; rank 3 (30): share 1;
  // x (20): share 1 (90 < 105).
  EXPECT_EQ(plan.shares[0], (std::vector<std::string>{"/m/a.h.1.10.exec-5.hpcl", "/m/a.h.1.10.hpcl", "/m/a.h.1.11.hpcl"}));
  EXPECT_EQ(plan.shares[1], (std::vector<std::string>{"/m/a.h.2.20.hpcl", "/m/a.h.3.30.hpcl", "/m/x.hpcl"}));
}

TEST(MergePlan, BalancesBytesLargestFirst) {
  MergePlan plan = balance_by_size({{"d", 10}, {"a", 50}, {"b", 40}, {"c", 30}, {"e", 20}}, 2);
  ASSERT_EQ(plan.shares.size(), 2u);
  // 50 -> 0; 40 -> 1; 30 -> 1 (40 < 50); 20 -> 0 (50 < 70); 10 -> 0 (70 = 70, lower rank).
  EXPECT_EQ(plan.shares[0], (std::vector<std::string>{"a", "e", "d"}));
  EXPECT_EQ(plan.shares[1], (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(plan.found(), 5u);
  // More ranks than files: the others get nothing.
  MergePlan wide = balance_by_size({{"x", 1}}, 3);
  EXPECT_EQ(wide.shares[0], std::vector<std::string>{"x"});
  EXPECT_TRUE(wide.shares[2].empty());
}

TEST(MergePlan, EncodesAndDecodes) {
  MergePlan plan = balance_by_size({{"/m/a b.hpcl", 3}, {"/m/c.hpcl", 2}, {"/m/d.hpcl", 1}}, 2);
  MergePlan back;
  ASSERT_TRUE(decode_plan(encode_plan(plan), 2, &back));
  EXPECT_EQ(back.shares, plan.shares);
  MergePlan failed;
  failed.error = "/m: no such directory";
  ASSERT_TRUE(decode_plan(encode_plan(failed), 2, &back));
  EXPECT_EQ(back.error, failed.error);
  EXPECT_FALSE(decode_plan("X", 2, &back));
  EXPECT_FALSE(decode_plan(std::string("P5\0/m/a.hpcl\0", 13), 2, &back));  // rank out of range
  EXPECT_FALSE(decode_plan(std::string("P0\0/m/a.hpcl", 12), 2, &back));    // unterminated
}

// What each rank of hpcprof-lite-mpi sends rank 0: the listing, then the facts of its slice.
TEST(MergePlan, PathsAndFactsEncodeAndDecode) {
  const std::vector<std::string> paths = {"/m/a b.hpcl", "/m/c.hpcl"};
  std::vector<std::string> paths_back;
  ASSERT_TRUE(decode_paths(encode_paths(paths), &paths_back));
  EXPECT_EQ(paths_back, paths);
  ASSERT_TRUE(decode_paths("", &paths_back));
  EXPECT_TRUE(paths_back.empty());
  EXPECT_FALSE(decode_paths("/m/a.hpcl", &paths_back));  // unterminated

  RunFacts a;
  a.path = "/m/a b.hpcl";
  a.readable = true;
  a.run_id = "97538f6b9e717b2e";
  a.rank = 3;
  a.pid = 4242;
  a.start_ns = 1764700000123456789ull;
  a.end_ns = 1764700001123456789ull;
  a.bytes = 97000;
  RunFacts b;  // unreadable: defaults, rank -1
  b.path = "/m/c.hpcl";
  std::vector<RunFacts> back;
  ASSERT_TRUE(decode_facts(encode_facts({a, b}), &back));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].path, a.path);
  EXPECT_TRUE(back[0].readable);
  EXPECT_EQ(back[0].run_id, a.run_id);
  EXPECT_EQ(back[0].rank, 3);
  EXPECT_EQ(back[0].pid, 4242);
  EXPECT_EQ(back[0].start_ns, a.start_ns);
  EXPECT_EQ(back[0].end_ns, a.end_ns);
  EXPECT_EQ(back[0].bytes, 97000u);
  EXPECT_FALSE(back[1].readable);
  EXPECT_EQ(back[1].rank, -1);
  const std::string bytes = encode_facts({a});
  EXPECT_FALSE(decode_facts(bytes.substr(0, bytes.size() - 1), &back));  // cut short
  EXPECT_FALSE(decode_facts(std::string("/m/a.hpcl\0" "2\0", 12), &back));  // readable is 0 or 1
}

// The plan from facts gathered from several ranks is the plan rank 0 makes reading them all.
TEST(MergePlan, FromFactsAsFromTheDirectory) {
  TempDir dir;
  write_or_fail(process(0), dir.file("x.host.0.11.hpcl"));
  write_or_fail(process(1), dir.file("x.host.1.12.hpcl"));
  write_or_fail(process(2), dir.file("x.host.2.13.hpcl"));
  std::vector<std::string> paths;
  ASSERT_EQ(list_profiles(dir.path(), &paths), "");
  std::vector<RunFacts> facts;
  for (size_t i = 0; i < paths.size(); ++i) {  // one slice per "rank", through the wire format
    std::vector<RunFacts> slice;
    ASSERT_TRUE(decode_facts(encode_facts(read_run_facts({paths[i]}, 1, true)), &slice));
    facts.insert(facts.end(), slice.begin(), slice.end());
  }
  EXPECT_GT(facts[0].bytes, 0u);
  EXPECT_EQ(plan_from_facts(facts, 2).shares, plan_directory(dir.path(), 2).shares);
}

TEST(MergePlan, ListsTheDirectoryAsMergeDoes) {
  TempDir dir;
  write_or_fail(process(0), dir.file("a.hpcl"));
  write_or_fail(process(1), dir.file("b.hpcl"));
  MergePlan plan = plan_directory(dir.path(), 4);
  EXPECT_EQ(plan.error, "");
  EXPECT_EQ(plan.found(), 2u);
  EXPECT_EQ(plan_directory(dir.file("none"), 2).error, dir.file("none") + ": no such directory");
}

}  // namespace
}  // namespace hpcl::analysis
