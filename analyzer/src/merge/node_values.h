// Values a merge keeps per tree node and group, beside the tree's sums: each merged node's
// metrics per rank (`merge --per-rank`, docs/FORMAT.md RANK_VALUES) and each stack node's
// samples per thread (STACK_THREADS). A partial merge collects entries as its inputs arrive,
// numbered as its MergedTree numbers nodes; entries of one key are summed when the list has
// doubled since it was last compacted, so a rank that wrote one profile per thread costs one
// rank value per node, not one per thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl::analysis {

// Entry: a format record whose fields are (node, the group and what it measures..., value), its
// operator< in that order, so that entries of one key sort side by side; Value names its value.
template <typename Entry, uint64_t Entry::*Value>
class NodeValues {
 public:
  void add(const Entry& e) {
    if (e.*Value == 0) return;
    values_.push_back(e);
    compact_if_doubled();
  }
  // "" or which of `values` (each a `noun`) names no node of a tree of `nodes`.
  static std::string out_of_range(std::span<const Entry> values, size_t nodes, std::string_view noun);
  // Adds the entries of a partial merge whose node i landed on merged node dest[i]; none is
  // out_of_range of dest.
  void absorb(std::span<const Entry> values, std::span<const uint32_t> dest);
  // Sorted, each key once: what a partial carries (to_partial). Empty afterwards.
  std::vector<Entry> take();
  // The database's section: nodes renumbered by new_index (the canonical preorder), sorted.
  std::vector<Entry> finish(std::span<const uint32_t> new_index);
  bool empty() const { return values_.empty(); }

 private:
  // Sorts and sums the entries of one key (a sum that would overflow stays at the largest value).
  void compact();
  // compact() once the list has doubled since the last time (and holds kCompactFloor or more).
  void compact_if_doubled();
  std::vector<Entry> values_;
  size_t compacted_ = 0;  // size after the last compact()
};

// merge --per-rank: adds the metrics of one input node that landed on merged node `node`.
class RankValueParts : public NodeValues<RankValue, &RankValue::value> {
 public:
  void add_metrics(uint32_t node, int64_t rank, std::span<const Metric> metrics) {
    for (const Metric& m : metrics) add(RankValue{node, rank, m.id, m.value});
  }
};
using StackThreadParts = NodeValues<StackThreadValue, &StackThreadValue::samples>;

extern template class NodeValues<RankValue, &RankValue::value>;
extern template class NodeValues<StackThreadValue, &StackThreadValue::samples>;

}  // namespace hpcl::analysis
