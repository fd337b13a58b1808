// The database tree as the viewer walks it: the children of every node (one O(nodes) pass, so
// that a view builds any node's rows without scanning the tree), the inclusive value of a metric
// (computed once, on first use), and the source location of a frame from the SYMBOLS section.
// Knows nothing of the screen; the view model (view_model.h) builds its rows from it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "hpcl/profile.h"
#include "symbols/location.h"

namespace hpcl::analysis {

class DbIndex {
 public:
  // `db` must be a validated database (load_database) and outlive the index.
  explicit DbIndex(const Profile& db);

  size_t size() const { return tree_ != nullptr ? tree_->nodes.size() : 0; }
  const Node& node(uint32_t i) const { return tree_->nodes[i]; }
  std::span<const uint32_t> children(uint32_t i) const;
  bool has_children(uint32_t i) const { return i < size() && first_[i + 1] > first_[i]; }
  // The metric summed over node i's subtree.
  uint64_t inclusive(uint16_t metric, uint32_t i) const;
  // The innermost source location of a Frame node after inline expansion (the sampled
  // instruction's or the call's own line), with Fortran and OpenMP names made readable.
  Location location(uint32_t i) const;
  // Every source location of a Frame node after inline expansion, innermost first: the frame's
  // own (as location()), then the functions it was inlined into, each at its call line. One
  // entry (the node's address alone) without symbols.
  std::vector<Location> inline_chain(uint32_t i) const;
  // The variable node (HeapVar, StaticVarNode, UnknownClass, or a stack local's StackSlot) at or
  // above node i; kNoParent when there is none (the no-data root's paths).
  uint32_t variable_of(uint32_t i) const;

 private:
  const Profile& db_;
  const Tree* tree_ = nullptr;
  std::vector<uint32_t> first_;  // children of i: child_[first_[i] .. first_[i + 1])
  std::vector<uint32_t> child_;
  mutable std::map<uint16_t, std::vector<uint64_t>> inclusive_;
};

}  // namespace hpcl::analysis
