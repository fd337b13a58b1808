// Per-rank values of a merge (see rank_values.h).
#include "rank_values.h"

#include <algorithm>

namespace hpcl::analysis {
namespace {

bool same_triple(const RankValue& x, const RankValue& y) {
  return x.node == y.node && x.rank == y.rank && x.metric == y.metric;
}

// Below this many entries the list is never compacted early: sorting a few thousand entries on
// every input would cost more than the memory it saves.
constexpr size_t kCompactFloor = size_t{1} << 16;

}  // namespace

void RankValueParts::add(uint32_t node, int64_t rank, std::span<const Metric> metrics) {
  for (const Metric& m : metrics)
    if (m.value != 0) values_.push_back(RankValue{node, rank, m.id, m.value});
  compact_if_doubled();
}

std::string RankValueParts::absorb(std::span<const RankValue> values, std::span<const uint32_t> dest) {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].node >= dest.size())
      return "rank value " + std::to_string(i) + " names node " + std::to_string(values[i].node) +
             " of a tree of " + std::to_string(dest.size());
  for (const RankValue& v : values)
    if (v.value != 0) values_.push_back(RankValue{dest[v.node], v.rank, v.metric, v.value});
  compact_if_doubled();
  return "";
}

void RankValueParts::compact_if_doubled() {
  if (values_.size() > std::max(kCompactFloor, 2 * compacted_)) compact();
}

void RankValueParts::compact() {
  // RankValue's order is (node, rank, metric, value): equal triples end up side by side.
  std::sort(values_.begin(), values_.end());
  size_t out = 0;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (out > 0 && same_triple(values_[out - 1], values_[i])) {
      uint64_t& sum = values_[out - 1].value;
      if (__builtin_add_overflow(sum, values_[i].value, &sum)) sum = UINT64_MAX;
    } else {
      values_[out++] = values_[i];
    }
  }
  values_.resize(out);
  compacted_ = out;
}

std::vector<RankValue> RankValueParts::take() {
  compact();
  std::vector<RankValue> out = std::move(values_);
  *this = RankValueParts();
  return out;
}

std::vector<RankValue> RankValueParts::finish(std::span<const uint32_t> new_index) {
  for (RankValue& v : values_) v.node = new_index[v.node];
  return take();
}

}  // namespace hpcl::analysis
