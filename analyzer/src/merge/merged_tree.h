// The calling-context tree of a partial merge (accumulator.h), built to take in thousands of
// trees of some 20,000 nodes each. A node is found by a hash of its whole path from the root
// (kind, a and b of every node on the way), which an input tree gives for all its nodes before
// any is looked up. So the lookups of one input do not wait for one another: the index slots and
// nodes of the next dozen nodes are fetched from memory while the current one is matched. A
// lookup by (merged parent, key), as hpcl::TreeBuilder does, must know the parent's merged index
// first, and each of its lookups waited for a cache miss (a merged tree of 200,000 nodes is
// larger than the caches): about 190 ns per input node, 44% of a merge.
//
// A match is exact: the slot's tag and then the node's parent and key are compared, so two paths
// whose hashes collide are two nodes. Nodes live in creation order (parents first) in flat
// arrays; their metrics in a pool of cells, a sorted list per node.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hpcl/profile.h"
#include "hpcl/scan.h"

namespace hpcl::analysis {

// How the payload of an input's nodes becomes the merge's: the input's module, site and static
// indices -> the accumulator's.
struct KeyMaps {
  std::span<const uint32_t> modules, sites, statics;
  // The input's script pseudo-module (kNoModule: none) and where its frames (SCRIPT_FRAMES
  // indices) go: a frame's offset there is an index into the input's own list.
  uint32_t script_module = kNoModule;
  std::span<const uint32_t> script_frames = {};
  uint32_t map(NodeKind kind, uint32_t a) const {
    if (kind == NodeKind::Frame || kind == NodeKind::StackOwner)
      return a == kNoModule ? kNoModule : modules[a];
    if (kind == NodeKind::HeapVar) return sites[a];
    if (kind == NodeKind::StaticVarNode) return statics[a];
    return a;
  }
  uint64_t map_b(NodeKind kind, uint32_t a, uint64_t b) const {
    return kind == NodeKind::Frame && a == script_module && a != kNoModule ? script_frames[b] : b;
  }
};

class MergedTree {
 public:
  MergedTree();

  size_t size() const { return nodes_.size(); }

  // Finds or creates the node of each node of `tree`, whose payload `maps` maps: dest[i] for
  // node i. `tree` is checked (hpcl/scan.h) but for children with the same key, which this finds:
  // it returns the reader's message for them (tree `index` of its file), else "". The nodes it
  // created stay; truncate() takes them back. Metrics are not added (add_metrics).
  std::string map(const FlatTree& tree, size_t index, const KeyMaps& maps, std::vector<uint32_t>& dest);
  // Forgets the nodes created after the tree had `size` of them.
  void truncate(size_t size);
  // A node of an input with metrics, the merged variable node above it (or kNoVariable), and
  // the merged StackSlot or StackOwner node nearest above it (or itself; kNoVariable if none).
  static constexpr uint32_t kNoVariable = 0xffffffffu;
  struct Reached {
    uint32_t node;
    uint32_t variable;
    uint32_t stack;
  };
  // Adds the metrics of `tree` to the nodes that map() gave it. Returns its nodes with metrics
  // (valid until the next call): the per-thread balance needs their variables, and finds them
  // here without walking the input's other nodes.
  std::span<const Reached> add_metrics(const FlatTree& tree, const std::vector<uint32_t>& dest);

  uint32_t parent(uint32_t n) const { return nodes_[n].parent; }
  NodeKind kind(uint32_t n) const { return nodes_[n].kind; }
  uint32_t a(uint32_t n) const { return nodes_[n].a; }
  uint64_t b(uint32_t n) const { return nodes_[n].b; }
  // Node n's metrics, sorted by id.
  std::vector<Metric> metrics(uint32_t n) const;
  // The nodes in creation order as a Tree (tid 0).
  Tree to_tree() const;

 private:
  struct Node {
    uint64_t b;
    uint32_t a;
    uint32_t parent;
    uint32_t seen_tree;  // serial of the last input tree that reached this node...
    uint32_t seen_node;  // ...and its node there: two of one tree are two children with one key
    uint32_t metrics;    // first cell, 0 = none
    NodeKind kind;
  };
  struct Slot {
    uint32_t tag;   // high half of the path hash
    uint32_t node;  // + 1; 0 = empty
  };
  struct Cell {
    uint64_t value;
    uint32_t next;  // 0 = last
    uint16_t id;
  };

  uint32_t find_or_add(uint64_t hash, uint32_t parent, NodeKind kind, uint32_t a, uint64_t b);
  void rehash(size_t slots);
  void add_metric(uint32_t node, uint16_t id, uint64_t value);

  std::vector<Node> nodes_;
  std::vector<uint64_t> hash_;  // of each node's path, to rehash without walking paths
  std::vector<uint32_t> var_;   // of each node: the first variable node on its path (it may be
                                // itself), kNoVariable above the variables
  std::vector<uint32_t> stack_;  // of each node: the nearest StackSlot or StackOwner on its path
  std::vector<Slot> slots_;     // power-of-two size, at most half full
  size_t mask_ = 0;
  std::vector<Cell> cells_;     // cells_[0] unused
  uint32_t serial_ = 0;
  // Scratch of map(), kept between calls: each input node's mapped a and path hash.
  std::vector<uint32_t> mapped_a_;
  std::vector<uint64_t> mapped_b_;  // only for inputs with Python frames
  std::vector<uint64_t> input_hash_;
  std::vector<Reached> reached_;  // of add_metrics()
};

}  // namespace hpcl::analysis
