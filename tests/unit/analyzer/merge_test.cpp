// Merging synthetic process profiles: exact counts after deduplication across ranks and
// threads, damaged inputs skipped and recorded, and output independent of the thread count.
#include <fstream>

#include "merge/merge.h"
#include "profile_builder.h"

namespace hpcl::analysis {
namespace {

using hpcl::testing::TempDir;
using namespace hpcl::testing;

const Module kApp{"/nonexistent/bin/app", "aa11", 0x5555000};
const Module kLibc{"/nonexistent/lib/libc.so.6", "cc22", 0x7f0000};
const Module kLibm{"/nonexistent/lib/libm.so.6", "dd33", 0x7e0000};

// Three ranks, five threads; the modules are listed in a different order in each process so the
// merge must remap every index. See the expected sums in the tests below.
Profile process0() {
  Profile p = new_process(0);
  p.modules = {kApp, kLibc};
  p.sites = {{AllocApi::Malloc, 0, {{0, 0x100}, {0, 0x200}}, 2, 2000},
             {AllocApi::Calloc, 0, {{1, 0x50}, {0, 0x300}}, 1, 800}};
  p.statics = {{0, 0x4000, 64, 0, "counter.3"}};
  Tree t1 = new_tree(11);
  heap_sample(t1, 0, {{0, 0x900}, {0, 0x910}}, 5);
  static_sample(t1, 0, {{0, 0x900}, {0, 0x920}}, 3);
  nodata_sample(t1, {{0, 0x900}, {0, 0x930}}, 2);
  Tree t2 = new_tree(12);
  heap_sample(t2, 0, {{0, 0x900}, {0, 0x910}}, 4);
  unknown_sample(t2, UnknownClass::Stack, {{0, 0x940}}, 1);
  p.trees = {t1, t2};
  p.set_meta("samples_total", "15");
  p.set_meta("samples_dropped", "1");
  return p;
}

Profile process1() {
  Profile p = new_process(1);
  p.modules = {kLibm, kLibc, kApp};
  p.sites = {{AllocApi::Calloc, 0, {{1, 0x50}, {2, 0x300}}, 3, 2400},
             {AllocApi::Malloc, 0, {{2, 0x100}, {2, 0x200}}, 5, 5000},
             {AllocApi::Malloc, kSiteSampled, {{0, 0x10}, {2, 0x500}}, 1, 64}};
  p.statics = {{2, 0x5000, 128, 0, "_ZL5table"}};
  Tree t1 = new_tree(21);
  heap_sample(t1, 1, {{2, 0x900}, {2, 0x910}}, 6);
  heap_sample(t1, 0, {{2, 0x900}, {2, 0x950}}, 7);
  Tree t2 = new_tree(22);
  static_sample(t2, 0, {{2, 0x960}}, 2);
  heap_sample(t2, 2, {{0, 0x20}}, 1);
  nodata_sample(t2, {{2, 0x900}, {2, 0x930}}, 3);
  p.trees = {t1, t2};
  p.set_meta("samples_total", "19");
  p.set_meta("samples_dropped", "0");
  return p;
}

Profile process2() {
  Profile p = new_process(2, "soft", "2000");
  p.modules = {kApp};
  p.statics = {{0, 0x4000, 64, 0, "counter.3"}};
  Tree t = new_tree(31);
  static_sample(t, 0, {{0, 0x900}, {0, 0x920}}, 10);
  p.trees = {t};
  p.set_meta("samples_total", "10");
  p.set_meta("samples_dropped", "2");
  return p;
}

void write_three(const TempDir& dir) {
  write_or_fail(process0(), dir.file("app-0.hpcl"));
  write_or_fail(process1(), dir.file("app-1.hpcl"));
  write_or_fail(process2(), dir.file("app-2.hpcl"));
}

// Inclusive samples of the variable node (kind, a) in the database tree.
uint64_t var_samples(const Profile& db, NodeKind kind, uint32_t a) {
  const Tree& t = db.trees.at(0);
  std::vector<uint64_t> inc = inclusive_metric(t, kMetricSamples);
  uint64_t sum = 0;
  for (size_t i = 0; i < t.nodes.size(); ++i)
    if (t.nodes[i].kind == kind && t.nodes[i].a == a) sum += inc[i];
  return sum;
}

std::string meta(const Profile& db, const std::string& key) {
  const std::string* v = db.find_meta(key);
  return v ? *v : "<missing>";
}

MergeOutcome merge(const TempDir& dir, unsigned jobs) {
  MergeOptions o;
  o.jobs = jobs;
  return merge_directory(dir.path(), o);
}

TEST(Merge, MergesRanksAndThreadsWithExactCounts) {
  TempDir dir;
  write_three(dir);
  MergeOutcome out = merge(dir, 2);
  ASSERT_EQ(out.error, "");
  EXPECT_EQ(out.found, 3u);
  EXPECT_EQ(out.merged, 3u);
  EXPECT_TRUE(out.skipped.empty());
  const Profile& db = out.database;
  EXPECT_EQ(db.kind, FileKind::Database);
  ASSERT_EQ(db.trees.size(), 1u);
  EXPECT_EQ(db.trees[0].tid, 0u);

  ASSERT_EQ(db.modules.size(), 3u);  // deduplicated by (path, build id), sorted by path
  EXPECT_EQ(db.modules[0].path, kApp.path);
  EXPECT_EQ(db.modules[1].path, kLibc.path);
  EXPECT_EQ(db.modules[2].path, kLibm.path);
  EXPECT_EQ(db.modules[0].load_bias, 0u);

  ASSERT_EQ(db.sites.size(), 3u);  // sorted by (api, flags, frames)
  const AllocSite& a = db.sites[0];
  EXPECT_EQ(a.api, AllocApi::Malloc);
  EXPECT_EQ(a.flags, 0);
  EXPECT_EQ(a.frames, (std::vector<Frame>{{0, 0x100}, {0, 0x200}}));
  EXPECT_EQ(a.allocations, 7u);
  EXPECT_EQ(a.bytes, 7000u);
  const AllocSite& c = db.sites[1];
  EXPECT_EQ(c.flags, kSiteSampled);
  EXPECT_EQ(c.frames, (std::vector<Frame>{{2, 0x10}, {0, 0x500}}));
  EXPECT_EQ(c.allocations, 1u);
  const AllocSite& b = db.sites[2];
  EXPECT_EQ(b.api, AllocApi::Calloc);
  EXPECT_EQ(b.frames, (std::vector<Frame>{{1, 0x50}, {0, 0x300}}));
  EXPECT_EQ(b.allocations, 4u);
  EXPECT_EQ(b.bytes, 3200u);

  ASSERT_EQ(db.statics.size(), 2u);
  EXPECT_EQ(db.statics[0].name, "counter.3");
  EXPECT_EQ(db.statics[0].size, 64u);
  EXPECT_EQ(db.statics[1].name, "_ZL5table");

  EXPECT_EQ(var_samples(db, NodeKind::HeapVar, 0), 15u);
  EXPECT_EQ(var_samples(db, NodeKind::HeapVar, 1), 1u);
  EXPECT_EQ(var_samples(db, NodeKind::HeapVar, 2), 7u);
  EXPECT_EQ(var_samples(db, NodeKind::StaticVarNode, 0), 13u);
  EXPECT_EQ(var_samples(db, NodeKind::StaticVarNode, 1), 2u);
  EXPECT_EQ(var_samples(db, NodeKind::UnknownClass, 0), 1u);
  EXPECT_EQ(var_samples(db, NodeKind::NoDataRoot, 0), 5u);
  EXPECT_EQ(inclusive_metric(db.trees[0], kMetricSamples)[0], 44u);

  // The shared access path main -> 0x910 of site A is one path with the sum of three threads.
  size_t leaf_nodes_at_910 = 0;
  for (const Node& n : db.trees[0].nodes)
    if (n.kind == NodeKind::Frame && n.b == 0x910) {
      ++leaf_nodes_at_910;
      EXPECT_EQ(n.metric(kMetricSamples), 15u);
    }
  EXPECT_EQ(leaf_nodes_at_910, 1u);

  EXPECT_EQ(meta(db, "tool"), "hpcprof-lite");
  EXPECT_EQ(meta(db, "processes"), "3");
  EXPECT_EQ(meta(db, "threads"), "5");
  EXPECT_EQ(meta(db, "ranks"), "3");
  EXPECT_EQ(meta(db, "skipped"), "");
  EXPECT_EQ(meta(db, "source"), "soft");
  EXPECT_EQ(meta(db, "rate"), "mixed");
  EXPECT_EQ(meta(db, "min_bytes"), "4096");
  EXPECT_EQ(meta(db, "small_every"), "16");
  EXPECT_EQ(meta(db, "samples_total"), "44");
  EXPECT_EQ(meta(db, "samples_dropped"), "3");
}

// Sites are found again by a hash of their identity and compared with the merged site itself:
// two sites of one input that are one site once their modules are mapped (the input lists its
// program twice) become one, as do sites that differ only in their flags, while a name keeps
// sites of the same frames apart, within an input and across inputs.
TEST(Merge, SitesMatchByIdentityWithinAndAcrossInputs) {
  TempDir dir;
  Profile p = new_process(0);
  p.modules = {kApp, kLibc, kApp};
  p.sites = {{AllocApi::Malloc, 0, {{0, 0x100}, {1, 0x50}}, 2, 200},
             {AllocApi::Malloc, kSiteSampled, {{2, 0x100}, {1, 0x50}}, 3, 300},
             {AllocApi::Malloc, 0, {{0, 0x100}, {1, 0x50}}, 4, 400, "grid.dat"},
             {AllocApi::Calloc, 0, {{0, 0x100}, {1, 0x50}}, 1, 100}};
  Tree t = new_tree(1);
  heap_sample(t, 0, {{0, 0x900}}, 1);
  p.trees = {t};
  Profile q = new_process(1);
  q.modules = {kLibc, kApp};
  q.sites = {{AllocApi::Malloc, 0, {{1, 0x100}, {0, 0x50}}, 10, 1000, "grid.dat"},
             {AllocApi::Malloc, 0, {{1, 0x100}, {0, 0x50}}, 20, 2000}};
  Tree u = new_tree(2);
  heap_sample(u, 1, {{1, 0x900}}, 1);
  q.trees = {u};
  write_or_fail(p, dir.file("app-0.hpcl"));
  write_or_fail(q, dir.file("app-1.hpcl"));
  MergeOutcome out = merge(dir, 1);
  ASSERT_EQ(out.error, "");
  const Profile& db = out.database;
  ASSERT_EQ(db.sites.size(), 3u);
  uint64_t plain = 0, named = 0, calloc = 0;
  for (const AllocSite& s : db.sites) {
    EXPECT_EQ(s.frames, (std::vector<Frame>{{0, 0x100}, {1, 0x50}}));
    if (s.api == AllocApi::Calloc) calloc += s.allocations;
    else if (s.name == "grid.dat") named += s.allocations;
    else plain += s.allocations;
  }
  EXPECT_EQ(plain, 2u + 3u + 20u);
  EXPECT_EQ(named, 4u + 10u);
  EXPECT_EQ(calloc, 1u);
}

// Stack slots (format 1.10) merge like frames: the owner's module is remapped, equal (owner,
// slot) pairs of two inputs are one node, and the owner frames are symbolized.
TEST(Merge, StackSlotsMergeAcrossInputsWithTheirModules) {
  TempDir dir;
  auto stack_path = [](Tree& t, uint32_t module, uint64_t samples) {
    TreeBuilder b(t);
    uint32_t n = b.child(b.child(0, NodeKind::UnknownRoot, 0, 0), NodeKind::UnknownClass, 0, 0);
    n = b.child(n, NodeKind::StackOwner, module, 0x120);
    n = b.child(n, NodeKind::StackSlot, 8, static_cast<uint64_t>(int64_t{-24}));
    n = b.child(n, NodeKind::Frame, module, 0x124);
    t.nodes[n].add_metric(kMetricSamples, samples);
  };
  Profile p = new_process(0);
  p.modules = {kApp, kLibc};
  Tree t = new_tree(1);
  stack_path(t, 0, 2);
  p.trees = {t};
  Profile q = new_process(1);
  q.modules = {kLibc, kApp};
  Tree u = new_tree(2);
  stack_path(u, 1, 3);
  q.trees = {u};
  write_or_fail(p, dir.file("app-0.hpcl"));
  write_or_fail(q, dir.file("app-1.hpcl"));
  MergeOutcome out = merge(dir, 1);
  ASSERT_EQ(out.error, "");
  const Profile& db = out.database;
  uint32_t owners = 0, slots = 0;
  for (const Node& n : db.trees[0].nodes) {
    if (n.kind == NodeKind::StackOwner) {
      ++owners;
      ASSERT_LT(n.a, db.modules.size());
      EXPECT_EQ(db.modules[n.a].path, kApp.path);
      EXPECT_EQ(n.b, 0x120u);
    }
    if (n.kind == NodeKind::StackSlot) {
      ++slots;
      EXPECT_EQ(n.a, 8u);
      EXPECT_EQ(static_cast<int64_t>(n.b), -24);
      EXPECT_EQ(db.trees[0].nodes[n.parent].kind, NodeKind::StackOwner);
    }
    if (n.kind == NodeKind::Frame && n.metric(kMetricSamples) > 0) {
      EXPECT_EQ(n.metric(kMetricSamples), 5u);
    }
  }
  EXPECT_EQ(owners, 1u);
  EXPECT_EQ(slots, 1u);
  bool owner_symbolized = false;
  for (const Symbolized& s : db.symbols) owner_symbolized |= s.frame.offset == 0x120;
  EXPECT_TRUE(owner_symbolized);
  EXPECT_TRUE(db.stack_slots.empty()) << "the module does not exist: no DWARF, no names";
}

TEST(Merge, SymbolsCoverEveryFrameAndMissingModulesWarnOnce) {
  TempDir dir;
  write_three(dir);
  MergeOutcome out = merge(dir, 1);
  ASSERT_EQ(out.error, "");
  const Profile& db = out.database;
  // Tree frames: 0x900 0x910 0x920 0x930 0x940 0x950 0x960 (app), 0x20 (libm);
  // site frames: app 0x100 0x200 0x300 0x500, libc 0x50, libm 0x10.
  EXPECT_EQ(db.symbols.size(), 7u + 1u + 4u + 1u + 1u);
  for (size_t i = 0; i < db.symbols.size(); ++i) {
    ASSERT_EQ(db.symbols[i].locs.size(), 1u);
    EXPECT_EQ(db.symbols[i].locs[0].function, "");
    if (i > 0) {
      EXPECT_LT(db.symbols[i - 1].frame, db.symbols[i].frame);
    }
  }
  ASSERT_EQ(out.warnings.size(), 3u);
  EXPECT_EQ(out.warnings[0], kApp.path + " not found; its frames keep module+offset");
}

TEST(Merge, DamagedFilesAreSkippedAndRecorded) {
  TempDir dir;
  write_three(dir);
  { std::ofstream(dir.file("garbage.hpcl")) << "this is not a profile"; }
  std::vector<uint8_t> bytes = encode_profile(process0(), 0);
  bytes.resize(bytes.size() / 2);
  {
    std::ofstream f(dir.file("truncated.hpcl"), std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  Profile dbfile = process2();
  dbfile.kind = FileKind::Database;
  write_or_fail(dbfile, dir.file("zz-database.hpcl"));
  { std::ofstream(dir.file("notes.txt")) << "ignored: not *.hpcl"; }

  MergeOutcome out = merge(dir, 3);
  ASSERT_EQ(out.error, "");
  EXPECT_EQ(out.found, 6u);
  EXPECT_EQ(out.merged, 3u);
  ASSERT_EQ(out.skipped.size(), 3u);
  EXPECT_EQ(out.skipped[0].path, dir.file("garbage.hpcl"));
  EXPECT_EQ(out.skipped[1].path, dir.file("truncated.hpcl"));
  EXPECT_EQ(out.skipped[2].path, dir.file("zz-database.hpcl"));
  EXPECT_EQ(out.skipped[2].reason, "not a process profile (a database?)");
  for (const SkippedInput& s : out.skipped) EXPECT_NE(s.reason, "");
  EXPECT_EQ(inclusive_metric(out.database.trees[0], kMetricSamples)[0], 44u);
  std::string skipped = meta(out.database, "skipped");
  EXPECT_NE(skipped.find(dir.file("garbage.hpcl") + ": "), std::string::npos);
  EXPECT_NE(skipped.find(";" + dir.file("truncated.hpcl") + ": "), std::string::npos);
  EXPECT_EQ(meta(out.database, "processes"), "3");
}

TEST(Merge, OutputDoesNotDependOnThreadCount) {
  TempDir dir;
  write_three(dir);
  // More files than workers, with overlapping content, so each worker's partial differs.
  for (int r = 3; r < 8; ++r) {
    Profile p = r % 2 ? process1() : process0();
    p.set_meta("rank", std::to_string(r));
    std::swap(p.trees[0], p.trees[1]);
    write_or_fail(p, dir.file("app-" + std::to_string(r) + ".hpcl"));
  }
  // The per-rank summaries (BALANCE) must not depend on the split either: a forked child writes
  // a second profile of rank 1 (sorted far from the first, so a worker boundary falls between
  // them), and a process without a rank is a group of its own.
  Profile child = process1();
  child.set_meta("pid", "4242");
  write_or_fail(child, dir.file("zz-child-of-1.hpcl"));
  Profile rankless = process0();
  rankless.set_meta("rank", "-1");
  write_or_fail(rankless, dir.file("tool.hpcl"));
  std::vector<uint8_t> reference;
  for (unsigned jobs : {1u, 3u, 2u, 8u, 10u}) {
    MergeOutcome out = merge(dir, jobs);
    ASSERT_EQ(out.error, "");
    EXPECT_EQ(out.merged, 10u);
    EXPECT_EQ(out.database.balance.rank_groups, 9u) << "ranks 0-7 and the process without a rank";
    EXPECT_EQ(out.database.balance.thread_groups, 19u);
    std::vector<uint8_t> bytes = encode_profile(out.database, 0);
    if (reference.empty()) {
      reference = bytes;
    } else {
      EXPECT_EQ(bytes, reference) << "-j " << jobs << " differs from -j 1";
    }
  }
}

TEST(Merge, FatalErrorsNameTheInput) {
  TempDir dir;
  MergeOutcome empty = merge(dir, 1);
  EXPECT_EQ(empty.merged, 0u);
  EXPECT_EQ(empty.error, "no profiles (*.hpcl) in " + dir.path());

  MergeOutcome missing = merge_directory(dir.file("nope"), MergeOptions{});
  EXPECT_EQ(missing.error, dir.file("nope") + ": no such directory");

  { std::ofstream(dir.file("a.hpcl")) << "x"; }
  { std::ofstream(dir.file("b.hpcl")) << "HPCLITE"; }
  MergeOutcome damaged = merge(dir, 2);
  EXPECT_EQ(damaged.merged, 0u);
  EXPECT_EQ(damaged.skipped.size(), 2u);
  EXPECT_NE(damaged.error.find("none of the 2 profiles in " + dir.path()), std::string::npos);
}

}  // namespace
}  // namespace hpcl::analysis
