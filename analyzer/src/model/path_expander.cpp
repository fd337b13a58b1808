// Frame expansion with a cache per frame (see path_expander.h).
#include "path_expander.h"

#include <algorithm>

#include "heap_naming.h"
#include "symbols/naming.h"
#include "symbols/symbolize.h"

namespace hpcl::analysis {

PathExpander::PathExpander(const Profile& db) : db_(db) {}

// SYMBOLS is sorted by frame (validate_profile checks it): a binary search needs no index.
const Symbolized* PathExpander::symbolized(const Frame& f) const {
  auto it = std::lower_bound(db_.symbols.begin(), db_.symbols.end(), f,
                             [](const Symbolized& s, const Frame& x) { return s.frame < x; });
  return it != db_.symbols.end() && it->frame == f ? &*it : nullptr;
}

PathExpander::Slot PathExpander::slot(const Frame& f) const {
  auto [it, fresh] = cache_.try_emplace(f);
  Slot& e = it->second;
  if (!fresh) return e;
  e.first = static_cast<uint32_t>(arena_.size());
  InternedString module = f.module < db_.modules.size() ? db_.modules[f.module].path : std::string();
  const Symbolized* s = symbolized(f);
  if (s == nullptr || s->locs.empty()) {
    arena_.push_back(Location{{}, {}, 0, module, f.offset, true});
  } else {
    for (const SourceLoc& l : s->locs) {
      FunctionName name = display_function_name(l.function);
      Location loc{name.name, l.file, l.line, module, f.offset, true};
      loc.omp_region = name.omp_region;
      loc.unnamed_function = unnamed_function_start(l.function, &loc.function_start);
      arena_.push_back(loc);
    }
  }
  e.count = static_cast<uint32_t>(arena_.size() - e.first);
  if (s != nullptr && !s->callee.function.empty()) {
    e.has_callee = true;
    e.callee_allocates = is_allocation_function(s->callee.function);
    // Compared and shown as the other frames are: with Fortran and OpenMP names made readable.
    FunctionName callee = display_function_name(s->callee.function);
    Location loc{callee.name, s->callee.file, s->callee.line, module, 0, false};
    loc.omp_region = callee.omp_region;
    loc.tail_call = true;
    // A callee known only by its bounds (stripped code: "cp2k.psmp!0x3f100") is an address, not
    // a name: it must not be shown as a caller one can recognise (heap_naming.cpp).
    loc.unnamed_function = unnamed_function_start(s->callee.function, &loc.function_start);
    arena_.push_back(loc);
  }
  return e;
}

void PathExpander::append(const Frame& f, std::vector<Location>& out) const {
  const Slot e = slot(f);
  out.insert(out.end(), arena_.begin() + e.first, arena_.begin() + e.first + e.count);
}

void PathExpander::append_path(const std::vector<Frame>& frames, bool allocation,
                               std::vector<Location>& out) const {
  for (size_t i = 0; i < frames.size(); ++i) {
    const Slot e = slot(frames[i]);
    // `inward` is the outermost location of the next frame inward (its physical function), or
    // nullptr for the allocator.
    const Location* inward = i > 0 && !out.empty() ? &out.back() : nullptr;
    if ((i > 0 || allocation) && e.has_callee) {
      const Location& c = arena_[e.first + e.count];
      const bool skip = inward == nullptr ? e.callee_allocates
                                          : inward->module == c.module && inward->function == c.function;
      if (!skip) out.push_back(c);
    }
    out.insert(out.end(), arena_.begin() + e.first, arena_.begin() + e.first + e.count);
  }
}

void PathExpander::append_access_path(uint32_t leaf, std::vector<Location>& out) const {
  const std::vector<Node>& nodes = db_.trees[0].nodes;
  frames_.clear();
  for (size_t j = leaf; j < nodes.size() && nodes[j].kind == NodeKind::Frame; j = nodes[j].parent)
    frames_.push_back(Frame{nodes[j].a, nodes[j].b});
  append_path(frames_, /*allocation=*/false, out);
}

const Location* PathExpander::access_leaf(uint32_t leaf) const {
  const std::vector<Node>& nodes = db_.trees[0].nodes;
  if (leaf >= nodes.size() || nodes[leaf].kind != NodeKind::Frame) return nullptr;
  const Slot e = slot(Frame{nodes[leaf].a, nodes[leaf].b});
  return e.count == 0 ? nullptr : &arena_[e.first];
}

}  // namespace hpcl::analysis
