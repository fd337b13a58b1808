// Building and merging calling-context trees: find-or-create a child by (kind, a, b) under a
// parent, and add a whole tree into another with its payload ids remapped (module, site and
// static-variable indices differ between files). Used by the analyzer and by tests.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>

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
  struct Key {
    uint32_t parent;
    uint32_t a;
    uint64_t b;
    NodeKind kind;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept;
  };
  Tree& tree_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;
};

// Sum of one metric over a node and all its descendants, for every node (index = node).
std::vector<uint64_t> inclusive_metric(const Tree& tree, uint16_t metric_id);

}  // namespace hpcl
