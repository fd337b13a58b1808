// The per-rank values of a merge (`merge --per-rank`, docs/FORMAT.md RANK_VALUES): each merged
// node's metrics summed over the trees of one rank's processes. A partial merge collects
// (node, rank, metric, value) entries as its inputs arrive, numbered as its MergedTree numbers
// nodes; entries of one triple are summed when the list has doubled since it was last compacted,
// so a rank that wrote one profile per thread costs one entry per node, not one per thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl::analysis {

class RankValueParts {
 public:
  // Adds the metrics of one input node that landed on merged node `node`; zeros are left out.
  void add(uint32_t node, int64_t rank, std::span<const Metric> metrics);
  // Adds the entries of a partial merge whose node i landed on merged node dest[i]. Returns ""
  // or which entry names a node the partial does not have (then nothing was added).
  std::string absorb(std::span<const RankValue> values, std::span<const uint32_t> dest);
  // Sorted by (node, rank, metric), each triple once: what a partial carries (to_partial). The
  // parts are empty afterwards.
  std::vector<RankValue> take();
  // The database's section: nodes renumbered by new_index (the canonical preorder), sorted.
  std::vector<RankValue> finish(std::span<const uint32_t> new_index);
  bool empty() const { return values_.empty(); }

 private:
  // Sorts and sums equal triples (a sum that would overflow stays at the largest value).
  void compact();
  // compact() once the list has doubled since the last time (and holds kCompactFloor or more).
  void compact_if_doubled();
  std::vector<RankValue> values_;
  size_t compacted_ = 0;  // size after the last compact()
};

}  // namespace hpcl::analysis
