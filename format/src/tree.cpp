// Find-or-create and merge over calling-context trees (hpcl/tree.h). Children are found through
// one open-addressing index keyed by (parent, kind, a, b) instead of per-node child lists, so a
// Tree stays a flat vector that the format writes as is.
#include "hpcl/tree.h"

namespace hpcl {

uint64_t TreeBuilder::hash(uint32_t parent, NodeKind kind, uint32_t a, uint64_t b) {
  // Mix the fields with a 64-bit multiplicative hash; (a, b) alone repeat a lot across parents.
  uint64_t h = parent;
  h = h * 0x9e3779b97f4a7c15ull ^ (static_cast<uint64_t>(a) << 8 | static_cast<uint8_t>(kind));
  h = h * 0x9e3779b97f4a7c15ull ^ b;
  h ^= h >> 29;
  return h * 0xbf58476d1ce4e5b9ull;
}

void TreeBuilder::insert_slot(uint32_t node, uint64_t h) {
  size_t mask = slots_.size() - 1;
  size_t i = static_cast<size_t>(h) & mask;
  while (slots_[i].node_plus_1 != 0) i = (i + 1) & mask;
  slots_[i] = Slot{node + 1, static_cast<uint32_t>(h >> 32)};
}

void TreeBuilder::grow() {
  size_t size = slots_.empty() ? 1024 : slots_.size() * 2;
  slots_.assign(size, Slot{0, 0});
  for (uint32_t i = 1; i < tree_.nodes.size(); ++i) {
    const Node& n = tree_.nodes[i];
    insert_slot(i, hash(n.parent, n.kind, n.a, n.b));
  }
}

TreeBuilder::TreeBuilder(Tree& tree) : tree_(tree) {
  if (tree_.nodes.empty()) tree_.nodes.push_back(Node{});  // the Root, parent kNoParent
  size_t size = 1024;
  while (size < tree_.nodes.size() * 2) size *= 2;
  slots_.assign(size / 2, Slot{0, 0});  // grow() doubles it and indexes the existing nodes
  grow();
}

uint32_t TreeBuilder::child(uint32_t parent, NodeKind kind, uint32_t a, uint64_t b) {
  uint64_t h = hash(parent, kind, a, b);
  uint32_t tag = static_cast<uint32_t>(h >> 32);
  size_t mask = slots_.size() - 1;
  for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.node_plus_1 == 0) break;
    if (s.tag != tag) continue;
    const Node& n = tree_.nodes[s.node_plus_1 - 1];
    if (n.parent == parent && n.kind == kind && n.a == a && n.b == b) return s.node_plus_1 - 1;
  }
  auto id = static_cast<uint32_t>(tree_.nodes.size());
  Node n;
  n.parent = parent;
  n.kind = kind;
  n.a = a;
  n.b = b;
  tree_.nodes.push_back(std::move(n));
  if ((tree_.nodes.size() - 1) * 2 > slots_.size()) grow();  // re-indexes the new node too
  else insert_slot(id, h);
  return id;
}

void TreeBuilder::merge(const Tree& src, const std::function<void(NodeKind, uint32_t&, uint64_t&)>& remap) {
  // Merging a tree into itself would grow the vector being read.
  if (&src == &tree_) {
    Tree copy = src;
    merge(copy, remap);
    return;
  }
  if (src.nodes.empty()) return;
  // dest[i] is where source node i landed; parents come first, so it is set before it is needed.
  // A node whose parent does not come first (a Tree built by hand, never one from the reader) is
  // dropped with its subtree rather than attached somewhere arbitrary.
  constexpr uint32_t kDropped = kNoParent;
  std::vector<uint32_t> dest(src.nodes.size(), kDropped);
  dest[0] = 0;
  for (uint32_t i = 0; i < src.nodes.size(); ++i) {
    const Node& n = src.nodes[i];
    if (i > 0) {
      if (n.parent >= i || dest[n.parent] == kDropped) continue;
      uint32_t a = n.a;
      uint64_t b = n.b;
      if (remap) remap(n.kind, a, b);
      dest[i] = child(dest[n.parent], n.kind, a, b);
    }
    Node& d = tree_.nodes[dest[i]];
    for (const Metric& m : n.metrics) d.add_metric(m.id, m.value);
  }
}

std::vector<uint64_t> inclusive_metric(const Tree& tree, uint16_t metric_id) {
  std::vector<uint64_t> sum(tree.nodes.size());
  for (size_t i = 0; i < tree.nodes.size(); ++i) sum[i] = tree.nodes[i].metric(metric_id);
  // Children have larger indices than their parents: one backward pass adds every subtree up.
  for (size_t i = tree.nodes.size(); i-- > 1;) {
    uint32_t p = tree.nodes[i].parent;
    if (p < i) sum[p] += sum[i];
  }
  return sum;
}

}  // namespace hpcl
