// Per-node values of a merge (see node_values.h).
#include "node_values.h"

#include <algorithm>

namespace hpcl::analysis {
namespace {

// Below this many entries the list is never compacted early: sorting a few thousand entries on
// every input would cost more than the memory it saves.
constexpr size_t kCompactFloor = size_t{1} << 16;

// Two entries of one key: equal but for their values.
template <typename Entry, uint64_t Entry::*Value>
bool same_key(Entry x, Entry y) {
  x.*Value = y.*Value = 0;
  return x == y;
}

}  // namespace

template <typename Entry, uint64_t Entry::*Value>
std::string NodeValues<Entry, Value>::out_of_range(std::span<const Entry> values, size_t nodes,
                                                   std::string_view noun) {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].node >= nodes)
      return std::string(noun) + " " + std::to_string(i) + " names node " + std::to_string(values[i].node) +
             " of a tree of " + std::to_string(nodes);
  return "";
}

template <typename Entry, uint64_t Entry::*Value>
void NodeValues<Entry, Value>::absorb(std::span<const Entry> values, std::span<const uint32_t> dest) {
  for (Entry v : values) {
    if (v.*Value == 0) continue;
    v.node = dest[v.node];
    values_.push_back(v);
  }
  compact_if_doubled();
}

template <typename Entry, uint64_t Entry::*Value>
void NodeValues<Entry, Value>::compact_if_doubled() {
  if (values_.size() > std::max(kCompactFloor, 2 * compacted_)) compact();
}

template <typename Entry, uint64_t Entry::*Value>
void NodeValues<Entry, Value>::compact() {
  // The value is the last field of the order: entries of one key end up side by side.
  std::sort(values_.begin(), values_.end());
  size_t out = 0;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (out > 0 && same_key<Entry, Value>(values_[out - 1], values_[i])) {
      uint64_t& sum = values_[out - 1].*Value;
      if (__builtin_add_overflow(sum, values_[i].*Value, &sum)) sum = UINT64_MAX;
    } else {
      values_[out++] = values_[i];
    }
  }
  values_.resize(out);
  compacted_ = out;
}

template <typename Entry, uint64_t Entry::*Value>
std::vector<Entry> NodeValues<Entry, Value>::take() {
  compact();
  std::vector<Entry> out = std::move(values_);
  *this = NodeValues();
  return out;
}

template <typename Entry, uint64_t Entry::*Value>
std::vector<Entry> NodeValues<Entry, Value>::finish(std::span<const uint32_t> new_index) {
  for (Entry& v : values_) v.node = new_index[v.node];
  return take();
}

template class NodeValues<RankValue, &RankValue::value>;
template class NodeValues<StackThreadValue, &StackThreadValue::samples>;

}  // namespace hpcl::analysis
