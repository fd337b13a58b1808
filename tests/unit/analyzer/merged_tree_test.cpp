// The merge's tree (merge/merged_tree.h) against hpcl::TreeBuilder, the format library's plain
// find-or-create by (parent, key), on random trees with wide and deep sibling sets; and the rule
// it enforces for the scanner: two children of one parent with one key refuse the file, which
// then leaves no trace, while two keys that the merge maps to one (a module listed twice) add up.
#include <map>
#include <random>

#include "merge/accumulator.h"
#include "merge/merge.h"
#include "profile_builder.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

const Module kApp{"/nonexistent/bin/app", "aa11", 0x5555000};
const Module kLibc{"/nonexistent/lib/libc.so.6", "cc22", 0x7f0000};

// Every path of `t` from the root, as its keys, with the metrics at its end.
std::map<std::vector<std::tuple<NodeKind, uint32_t, uint64_t>>, std::vector<std::pair<uint16_t, uint64_t>>>
paths(const Tree& t) {
  std::vector<std::vector<std::tuple<NodeKind, uint32_t, uint64_t>>> path(t.nodes.size());
  std::map<std::vector<std::tuple<NodeKind, uint32_t, uint64_t>>, std::vector<std::pair<uint16_t, uint64_t>>> out;
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    if (i > 0) path[i] = path[n.parent];
    path[i].emplace_back(n.kind, n.a, n.b);
    auto& metrics = out[path[i]];
    EXPECT_TRUE(metrics.empty()) << "two nodes with one path";
    for (const Metric& m : n.metrics) metrics.emplace_back(m.id, m.value);
  }
  return out;
}

// A thread of a made-up program: paths under the four kind roots through frames of two modules
// (and none), with fan-outs from 2 to 400 so that sibling sets are both long and many.
Tree random_tree(std::mt19937_64& rng, uint32_t tid) {
  Tree t = new_tree(tid);
  TreeBuilder b(t);
  for (int path = 0; path < 600; ++path) {
    uint32_t n = b.child(0, NodeKind(1 + rng() % 4), 0, 0);
    if (t.nodes[n].kind == NodeKind::HeapRoot) n = b.child(n, NodeKind::HeapVar, uint32_t(rng() % 2), 0);
    else if (t.nodes[n].kind == NodeKind::StaticRoot) n = b.child(n, NodeKind::StaticVarNode, 0, 0);
    else if (t.nodes[n].kind == NodeKind::UnknownRoot) n = b.child(n, NodeKind::UnknownClass, uint32_t(rng() % 3), 0);
    const int depth = 1 + int(rng() % 9);
    for (int d = 0; d < depth; ++d) {
      const uint32_t fanout = d == 0 ? 2 : d == 1 ? 400 : 8;
      const uint32_t module = rng() % 7 == 0 ? kNoModule : uint32_t(rng() % 2);
      n = b.child(n, NodeKind::Frame, module, 0x400000 + (rng() % fanout) * 0x10 + (uint64_t(rng() % 3) << 40));
    }
    t.nodes[n].add_metric(kMetricSamples, 1 + rng() % 50);
    if (rng() % 5 == 0) t.nodes[n].add_metric(kMetricSamplesEstimated, 1 + rng() % 9);
    if (rng() % 11 == 0) t.nodes[n].add_metric(kMetricLatency, 1 + rng() % 900);
  }
  return t;
}

Profile random_process(std::mt19937_64& rng, int rank) {
  Profile p = new_process(rank);
  // Listed in their canonical order, so the database keeps every index and a path of the
  // database is a path of the inputs.
  p.modules = {kApp, kLibc};
  p.sites = {{AllocApi::Malloc, 0, {{0, 0x100}}, 1, 64}, {AllocApi::Malloc, 0, {{0, 0x200}}, 1, 64}};
  p.statics = {{0, 0x4000, 64, 0, "counter"}};
  p.trees = {random_tree(rng, 100 + rank), random_tree(rng, 200 + rank)};
  return p;
}

TEST(MergedTree, SameTreeAsTreeBuilderOnRandomTrees) {
  std::mt19937_64 rng(7);
  Accumulator acc;
  Tree reference = new_tree(0);
  TreeBuilder builder(reference);
  for (int rank = 0; rank < 40; ++rank) {
    Profile p = random_process(rng, rank);
    ASSERT_EQ(acc.add_process(p), "");
    for (const Tree& t : p.trees) builder.merge(t);
  }
  Profile db = acc.finish();
  ASSERT_EQ(db.trees.size(), 1u);
  EXPECT_GT(db.trees[0].nodes.size(), 40000u) << "large enough to grow the index many times";
  EXPECT_EQ(paths(db.trees[0]), paths(reference));
}

// A process whose first tree has two children of one parent with one key, and a site, a
// static and a module no other input has.
Profile with_duplicate_children() {
  Profile p = new_process(5);
  p.modules = {kApp, Module{"/nonexistent/lib/only-here.so", "ee55", 0}};
  p.sites = {{AllocApi::New, 0, {{1, 0x10}}, 1, 4096}};
  p.statics = {{1, 0x20, 8, 0, "only_here"}};
  Tree t = new_tree(51);
  heap_sample(t, 0, {{0, 0x900}, {1, 0x30}}, 3);
  static_sample(t, 0, {{1, 0x40}}, 2);
  Node copy = t.nodes[3];  // a Frame under the heap variable: its twin becomes node 8
  t.nodes.push_back(copy);
  p.trees = {new_tree(50), t};
  return p;
}

TEST(MergedTree, ChildrenWithOneKeyRefuseTheFileWhichLeavesNoTrace) {
  std::mt19937_64 rng(3);
  Profile good = random_process(rng, 0);
  Profile bad = with_duplicate_children();
  std::vector<uint8_t> bytes = encode_profile(bad, 0);
  ReadResult read = read_profile_bytes(bytes.data(), bytes.size(), "bad");
  ASSERT_FALSE(read.ok);
  ASSERT_NE(read.error.find("with the same kind and payload"), std::string::npos) << read.error;

  Accumulator only_good, both;
  ASSERT_EQ(only_good.add_process(good), "");
  ASSERT_EQ(both.add_process(good), "");
  EXPECT_EQ("bad: " + both.add_process(bad), read.error) << "the reader's words";
  EXPECT_EQ(both.processes(), 1u);
  EXPECT_EQ(encode_profile(both.finish(), 0), encode_profile(only_good.finish(), 0));

  // Through the files, as merge reads them: skipped with the reader's reason.
  TempDir dir;
  write_or_fail(good, dir.file("good.hpcl"));
  write_or_fail(bad, dir.file("bad.hpcl"));
  MergeOptions options;
  options.symbolize = false;
  MergeOutcome out = merge_directory(dir.path(), options);
  ASSERT_EQ(out.skipped.size(), 1u);
  EXPECT_EQ(out.skipped[0].path + ": " + out.skipped[0].reason,
            read_profile_file(dir.file("bad.hpcl")).error);
  EXPECT_EQ(out.merged, 1u);
}

TEST(MergedTree, OneModuleListedTwiceAddsUp) {
  // Modules 0 and 1 are one module: frames (0, 0x900) and (1, 0x900) are one merged frame.
  Profile p = new_process(0);
  p.modules = {kApp, kApp};
  Tree t = new_tree(1);
  nodata_sample(t, {{0, 0x900}}, 3);
  nodata_sample(t, {{1, 0x900}}, 4);
  p.trees = {t};
  Accumulator acc;
  ASSERT_EQ(acc.add_process(p), "");
  Profile db = acc.finish();
  ASSERT_EQ(db.modules.size(), 1u);
  ASSERT_EQ(db.trees[0].nodes.size(), 3u);  // root, no-data root, one frame
  EXPECT_EQ(db.trees[0].nodes[2].metric(kMetricSamples), 7u);

  // Behind such a pair, a true twin of the second is still found: the stamp remembers only the
  // first node that reached the merged frame, so the reader's own check must decide.
  Node twin = p.trees[0].nodes.back();
  p.trees[0].nodes.push_back(twin);
  std::vector<uint8_t> bytes = encode_profile(p, 0);
  ReadResult read = read_profile_bytes(bytes.data(), bytes.size(), "twin");
  ASSERT_FALSE(read.ok);
  Accumulator again;
  EXPECT_EQ("twin: " + again.add_process(p), read.error);
}

}  // namespace
}  // namespace hpcl::analysis
