// Building and merging calling-context trees: find-or-create a child by (kind, a, b) under a
// parent, and add a whole tree into another with its payload ids remapped (module, site and
// static-variable indices differ between files). Used by the analyzer and by tests.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl {

class TreeBuilder {
 public:
  // Indexes the nodes already in `tree`; creates the Root if the tree is empty.
  explicit TreeBuilder(Tree& tree);

  // The child of `parent` with this key, created (with no metrics) if absent.
  uint32_t child(uint32_t parent, NodeKind kind, uint32_t a, uint64_t b);

  // Adds every node of `src` under the matching path of this tree and sums metrics.
  // `remap` rewrites a copy of each source node's payload (a, b) before it is matched.
  void merge(const Tree& src, const std::function<void(NodeKind, uint32_t&, uint64_t&)>& remap = {});

  Tree& tree() { return tree_; }

 private:
  // Open addressing over node indices, with a tag of the hash so most probes of other keys are
  // rejected without touching the node: a merge of many profiles does millions of lookups in an
  // index far larger than the caches, where a node-based map spent most of the merge time.
  struct Slot {
    uint32_t node_plus_1;  // 0 = empty
    uint32_t tag;
  };
  static uint64_t hash(uint32_t parent, NodeKind kind, uint32_t a, uint64_t b);
  void insert_slot(uint32_t node, uint64_t h);
  void grow();

  Tree& tree_;
  std::vector<Slot> slots_;  // power-of-two size, at most half full
};

// Sum of one metric over a node and all its descendants, for every node (index = node).
std::vector<uint64_t> inclusive_metric(const Tree& tree, uint16_t metric_id);

}  // namespace hpcl
