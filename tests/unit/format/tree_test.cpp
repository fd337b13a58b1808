// TreeBuilder (find-or-create, merge with remapping) and inclusive_metric.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "hpcl/tree.h"

namespace hpcl {
namespace {

// node index -> (path from the root as text, metrics), so trees built in different node orders
// can be compared.
std::map<std::string, std::map<uint16_t, uint64_t>> by_path(const Tree& t) {
  std::vector<std::string> path(t.nodes.size());
  std::map<std::string, std::map<uint16_t, uint64_t>> out;
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    // The root's path is "": "/1:0:0" is the HeapRoot, "/1:0:0/6:3:0" site 3 under it.
    std::string p;
    if (i > 0) {
      p = path[n.parent] + "/" + std::to_string(static_cast<int>(n.kind)) + ":" + std::to_string(n.a) +
          ":" + std::to_string(n.b);
    }
    path[i] = p;
    auto& m = out[p];
    EXPECT_TRUE(m.empty()) << "duplicate path " << p;
    for (const Metric& x : n.metrics) m[x.id] = x.value;
  }
  return out;
}

TEST(TreeBuilder, CreatesRootAndFindsOrCreatesChildren) {
  Tree t;
  TreeBuilder b(t);
  ASSERT_EQ(t.nodes.size(), 1u);
  EXPECT_EQ(t.nodes[0].kind, NodeKind::Root);
  EXPECT_EQ(t.nodes[0].parent, kNoParent);

  uint32_t heap = b.child(0, NodeKind::HeapRoot, 0, 0);
  uint32_t v = b.child(heap, NodeKind::HeapVar, 3, 0);
  uint32_t f1 = b.child(v, NodeKind::Frame, 1, 0x10);
  uint32_t f2 = b.child(v, NodeKind::Frame, 1, 0x11);
  uint32_t f3 = b.child(v, NodeKind::Frame, 2, 0x10);
  uint32_t f4 = b.child(heap, NodeKind::Frame, 1, 0x10);  // same key, other parent
  EXPECT_EQ(t.nodes.size(), 7u);
  EXPECT_EQ(b.child(v, NodeKind::Frame, 1, 0x10), f1);
  EXPECT_EQ(b.child(0, NodeKind::HeapRoot, 0, 0), heap);
  EXPECT_NE(f1, f2);
  EXPECT_NE(f1, f3);
  EXPECT_NE(f1, f4);
  EXPECT_EQ(b.child(0, NodeKind::StaticRoot, 0, 0), 7u);  // kind is part of the key
  EXPECT_EQ(t.nodes[f3].parent, v);
  EXPECT_EQ(t.nodes[f3].a, 2u);
  EXPECT_EQ(t.nodes[f3].b, 0x10u);
  EXPECT_TRUE(t.nodes[f3].metrics.empty());
  EXPECT_EQ(&b.tree(), &t);
}

TEST(TreeBuilder, IndexesExistingNodes) {
  Tree t;
  {
    TreeBuilder b(t);
    b.child(b.child(0, NodeKind::NoDataRoot, 0, 0), NodeKind::Frame, 0, 1);
  }
  TreeBuilder again(t);
  EXPECT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(again.child(0, NodeKind::NoDataRoot, 0, 0), 1u);
  EXPECT_EQ(again.child(1, NodeKind::Frame, 0, 1), 2u);
  EXPECT_EQ(t.nodes.size(), 3u);
}

// root -> heap -> var(site) -> frame(module, offset) with `samples` at the frame.
void add_path(TreeBuilder& b, uint32_t site, uint32_t module, uint64_t offset, uint64_t samples) {
  uint32_t n = b.child(b.child(b.child(0, NodeKind::HeapRoot, 0, 0), NodeKind::HeapVar, site, 0),
                       NodeKind::Frame, module, offset);
  b.tree().nodes[n].add_metric(kMetricSamples, samples);
}

TEST(TreeBuilder, MergeSumsOverlappingPaths) {
  Tree x, y;
  TreeBuilder bx(x), by(y);
  add_path(bx, 0, 0, 0x10, 5);
  add_path(bx, 0, 0, 0x20, 1);
  add_path(by, 0, 0, 0x10, 7);
  add_path(by, 1, 0, 0x10, 2);
  y.nodes[0].add_metric(kMetricLatency, 9);  // root metrics merge too

  bx.merge(y);
  auto got = by_path(x);
  EXPECT_EQ(got.size(), 7u);  // root, heap, site 0, its 0x10 and 0x20, site 1, its 0x10
  EXPECT_EQ(got["/1:0:0/6:0:0/5:0:16"][kMetricSamples], 12u);
  EXPECT_EQ(got["/1:0:0/6:0:0/5:0:32"][kMetricSamples], 1u);
  EXPECT_EQ(got["/1:0:0/6:1:0/5:0:16"][kMetricSamples], 2u);
  EXPECT_EQ(x.nodes[0].metric(kMetricLatency), 9u);
  EXPECT_EQ(y.nodes.size(), 6u) << "the source is not modified";
}

TEST(TreeBuilder, MergeAppliesRemapToACopy) {
  Tree dst, src;
  TreeBuilder bd(dst), bs(src);
  add_path(bd, 10, 2, 0x10, 1);
  add_path(bs, 0, 0, 0x10, 4);  // site 0 -> 10, module 0 -> 2: lands on dst's path
  add_path(bs, 0, 1, 0x10, 3);  // module 1 -> 2 as well: two source paths meet
  add_path(bs, 1, 0, 0x30, 5);  // site 1 -> 11
  int calls = 0;
  bd.merge(src, [&](NodeKind kind, uint32_t& a, uint64_t& b) {
    ++calls;
    if (kind == NodeKind::HeapVar) a += 10;
    if (kind == NodeKind::Frame) a = 2;
    (void)b;
  });
  EXPECT_EQ(calls, static_cast<int>(src.nodes.size()) - 1) << "once per non-root node";
  auto got = by_path(dst);
  EXPECT_EQ(got["/1:0:0/6:10:0/5:2:16"][kMetricSamples], 8u);
  EXPECT_EQ(got["/1:0:0/6:11:0/5:2:48"][kMetricSamples], 5u);
  EXPECT_EQ(got.size(), 6u);
  EXPECT_EQ(src.nodes[2].a, 0u) << "remap works on a copy";
}

TEST(TreeBuilder, MergeIntoEmptyAndIntoItself) {
  Tree src;
  TreeBuilder bs(src);
  add_path(bs, 0, 0, 0x10, 4);
  Tree dst;
  TreeBuilder bd(dst);
  bd.merge(src);
  EXPECT_EQ(by_path(dst), by_path(src));
  bd.merge(dst);
  EXPECT_EQ(by_path(dst)["/1:0:0/6:0:0/5:0:16"][kMetricSamples], 8u);
  EXPECT_EQ(dst.nodes.size(), src.nodes.size());
  bd.merge(Tree{});  // nothing to add
  EXPECT_EQ(dst.nodes.size(), src.nodes.size());
}

TEST(TreeBuilder, MergeDropsNodesWhoseParentComesLater) {
  Tree src;
  src.nodes.resize(3);
  src.nodes[1] = Node{2, NodeKind::Frame, 0, 1, {{0, 1}}};  // parent after it: not a valid tree
  src.nodes[2] = Node{0, NodeKind::Frame, 0, 2, {{0, 1}}};
  Tree dst;
  TreeBuilder(dst).merge(src);
  EXPECT_EQ(dst.nodes.size(), 2u);  // root and node 2
}

// Random trees over a small key space so that paths overlap a lot.
Tree random_tree(uint32_t seed) {
  std::mt19937 rng(seed);
  Tree t;
  TreeBuilder b(t);
  for (int i = 0; i < 300; ++i) {
    uint32_t n = 0;
    int depth = 1 + static_cast<int>(rng() % 5);
    for (int d = 0; d < depth; ++d) n = b.child(n, NodeKind::Frame, rng() % 3, rng() % 4);
    b.tree().nodes[n].add_metric(static_cast<uint16_t>(rng() % 3), 1 + rng() % 100);
  }
  return t;
}

TEST(TreeBuilder, MergeIsAssociative) {
  Tree a = random_tree(1), b = random_tree(2), c = random_tree(3);
  Tree left = a;  // (a + b) + c
  {
    TreeBuilder lb(left);
    lb.merge(b);
    lb.merge(c);
  }
  Tree bc = b;  // a + (b + c)
  TreeBuilder(bc).merge(c);
  Tree right = a;
  TreeBuilder(right).merge(bc);
  EXPECT_EQ(by_path(left), by_path(right));
  for (uint16_t id = 0; id < 3; ++id) {
    uint64_t total = inclusive_metric(a, id)[0] + inclusive_metric(b, id)[0] + inclusive_metric(c, id)[0];
    EXPECT_EQ(inclusive_metric(left, id)[0], total) << "metric " << id;
    EXPECT_EQ(inclusive_metric(right, id)[0], total) << "metric " << id;
  }
}

TEST(InclusiveMetric, SumsSubtrees) {
  Tree t;
  TreeBuilder b(t);
  uint32_t heap = b.child(0, NodeKind::HeapRoot, 0, 0);
  uint32_t v = b.child(heap, NodeKind::HeapVar, 0, 0);
  uint32_t f1 = b.child(v, NodeKind::Frame, 0, 1);
  uint32_t f2 = b.child(f1, NodeKind::Frame, 0, 2);
  uint32_t f3 = b.child(v, NodeKind::Frame, 0, 3);
  uint32_t st = b.child(0, NodeKind::StaticRoot, 0, 0);
  t.nodes[f1].add_metric(kMetricSamples, 1);
  t.nodes[f2].add_metric(kMetricSamples, 10);
  t.nodes[f3].add_metric(kMetricSamples, 100);
  t.nodes[f3].add_metric(kMetricLatency, 7);
  t.nodes[st].add_metric(kMetricSamples, 1000);
  std::vector<uint64_t> s = inclusive_metric(t, kMetricSamples);
  ASSERT_EQ(s.size(), t.nodes.size());
  EXPECT_EQ(s[0], 1111u);
  EXPECT_EQ(s[heap], 111u);
  EXPECT_EQ(s[v], 111u);
  EXPECT_EQ(s[f1], 11u);
  EXPECT_EQ(s[f2], 10u);
  EXPECT_EQ(s[f3], 100u);
  EXPECT_EQ(s[st], 1000u);
  EXPECT_EQ(inclusive_metric(t, kMetricLatency)[0], 7u);
  EXPECT_EQ(inclusive_metric(t, 99), std::vector<uint64_t>(t.nodes.size(), 0));
  EXPECT_TRUE(inclusive_metric(Tree{}, 0).empty());
}

}  // namespace
}  // namespace hpcl
