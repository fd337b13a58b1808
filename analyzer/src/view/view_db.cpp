// The viewer's index of the database tree (see view_db.h).
#include "hpcl/view/view_db.h"

#include <algorithm>

#include "hpcl/tree.h"
#include "symbols/naming.h"
#include "symbols/symbolize.h"

namespace hpcl::analysis {

DbIndex::DbIndex(const Profile& db) : db_(db) {
  if (db.trees.empty()) {
    first_.assign(1, 0);
    return;
  }
  tree_ = &db.trees[0];
  const size_t n = tree_->nodes.size();
  // Counting sort by parent: parents precede children, so each list keeps tree order.
  first_.assign(n + 1, 0);
  for (size_t i = 1; i < n; ++i) ++first_[tree_->nodes[i].parent + 1];
  for (size_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
  child_.resize(n > 0 ? n - 1 : 0);
  std::vector<uint32_t> next(first_.begin(), first_.end() - 1);
  for (size_t i = 1; i < n; ++i) child_[next[tree_->nodes[i].parent]++] = static_cast<uint32_t>(i);
}

std::span<const uint32_t> DbIndex::children(uint32_t i) const {
  if (i >= size()) return {};
  return std::span<const uint32_t>(child_.data() + first_[i], first_[i + 1] - first_[i]);
}

uint64_t DbIndex::inclusive(uint16_t metric, uint32_t i) const {
  if (i >= size()) return 0;
  auto it = inclusive_.find(metric);
  if (it == inclusive_.end()) it = inclusive_.emplace(metric, inclusive_metric(*tree_, metric)).first;
  return it->second[i];
}

Location DbIndex::location(uint32_t i) const { return inline_chain(i).front(); }

std::vector<Location> DbIndex::inline_chain(uint32_t i) const {
  const Node& n = node(i);
  Location loc;
  loc.module = n.a < db_.modules.size() ? db_.modules[n.a].path : std::string();
  loc.offset = n.b;
  loc.has_address = true;
  const Frame frame{n.a, n.b};
  auto it = std::lower_bound(db_.symbols.begin(), db_.symbols.end(), frame,
                             [](const Symbolized& s, const Frame& f) { return s.frame < f; });
  if (it == db_.symbols.end() || it->frame != frame || it->locs.empty()) return {loc};
  std::vector<Location> chain;
  chain.reserve(it->locs.size());
  for (const SourceLoc& s : it->locs) {
    Location l = loc;
    FunctionName name = display_function_name(s.function);
    l.function = std::move(name.name);
    l.omp_region = name.omp_region;
    l.file = s.file;
    l.line = s.line;
    l.unnamed_function = unnamed_function_start(s.function, &l.function_start);
    chain.push_back(std::move(l));
  }
  return chain;
}

uint32_t DbIndex::variable_of(uint32_t i) const {
  for (; i < size() && i != 0; i = tree_->nodes[i].parent) {
    NodeKind k = tree_->nodes[i].kind;
    if (k == NodeKind::HeapVar || k == NodeKind::StaticVarNode || k == NodeKind::UnknownClass ||
        k == NodeKind::StackSlot)
      return i;
  }
  return kNoParent;
}

}  // namespace hpcl::analysis
