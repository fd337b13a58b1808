// Frame expansion with a cache per frame (see path_expander.h).
#include "path_expander.h"

#include "naming.h"
#include "symbolize.h"

namespace hpcl::analysis {

PathExpander::PathExpander(const Profile& db) : db_(db) {
  symbols_.reserve(db.symbols.size());
  for (const Symbolized& s : db.symbols) symbols_.emplace(s.frame, &s);
}

const PathExpander::Entry& PathExpander::entry(const Frame& f) const {
  auto [it, fresh] = cache_.try_emplace(f);
  Entry& e = it->second;
  if (!fresh) return e;
  std::string module = f.module < db_.modules.size() ? db_.modules[f.module].path : std::string();
  auto sym = symbols_.find(f);
  const Symbolized* s = sym == symbols_.end() ? nullptr : sym->second;
  if (s == nullptr || s->locs.empty()) {
    e.locs.push_back(Location{{}, {}, 0, module, f.offset, true});
  } else {
    for (const SourceLoc& l : s->locs) {
      FunctionName name = display_function_name(l.function);
      Location loc{std::move(name.name), l.file, l.line, module, f.offset, true};
      loc.omp_region = name.omp_region;
      loc.unnamed_function = unnamed_function_start(l.function, &loc.function_start);
      e.locs.push_back(std::move(loc));
    }
  }
  if (s != nullptr && !s->callee.function.empty()) {
    e.callee_allocates = is_allocation_function(s->callee.function);
    // Compared and shown as the other frames are: with Fortran and OpenMP names made readable.
    FunctionName callee = display_function_name(s->callee.function);
    Location loc{std::move(callee.name), s->callee.file, s->callee.line, module, 0, false};
    loc.omp_region = callee.omp_region;
    loc.tail_call = true;
    e.callee = std::move(loc);
  }
  return e;
}

void PathExpander::append(const Frame& f, std::vector<Location>& out) const {
  const Entry& e = entry(f);
  out.insert(out.end(), e.locs.begin(), e.locs.end());
}

void PathExpander::append_path(const std::vector<Frame>& frames, bool allocation,
                               std::vector<Location>& out) const {
  for (size_t i = 0; i < frames.size(); ++i) {
    const Entry& e = entry(frames[i]);
    // `inward` is the outermost location of the next frame inward (its physical function), or
    // nullptr for the allocator.
    const Location* inward = i > 0 && !out.empty() ? &out.back() : nullptr;
    if ((i > 0 || allocation) && e.callee) {
      const Location& c = *e.callee;
      const bool skip = inward == nullptr ? e.callee_allocates
                                          : inward->module == c.module && inward->function == c.function;
      if (!skip) out.push_back(c);
    }
    out.insert(out.end(), e.locs.begin(), e.locs.end());
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
  const Entry& e = entry(Frame{nodes[leaf].a, nodes[leaf].b});
  return e.locs.empty() ? nullptr : &e.locs.front();
}

}  // namespace hpcl::analysis
