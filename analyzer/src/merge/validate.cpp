// Index and shape checks for profiles and databases (see validate.h).
#include "validate.h"

#include <cstdint>

namespace hpcl::analysis {
namespace {

bool module_ok(uint32_t module, size_t nmodules) {
  return module == kNoModule || module < nmodules;
}

std::string check_tree(const Profile& p, size_t t) {
  const Tree& tree = p.trees[t];
  auto where = [&](size_t i) { return "tree " + std::to_string(t) + " node " + std::to_string(i) + ": "; };
  if (tree.nodes.empty()) return "tree " + std::to_string(t) + ": no root node";
  if (tree.nodes[0].kind != NodeKind::Root || tree.nodes[0].parent != kNoParent)
    return where(0) + "node 0 is not a root";
  for (size_t i = 1; i < tree.nodes.size(); ++i) {
    const Node& n = tree.nodes[i];
    if (n.parent >= i) return where(i) + "parent does not precede the node";
    switch (n.kind) {
      case NodeKind::Root:
        return where(i) + "a second root";
      case NodeKind::HeapRoot:
      case NodeKind::StaticRoot:
      case NodeKind::UnknownRoot:
      case NodeKind::NoDataRoot:
      case NodeKind::UnknownClass:
      case NodeKind::StackSlot:
        break;
      case NodeKind::Frame:
      case NodeKind::StackOwner:
        if (!module_ok(n.a, p.modules.size())) return where(i) + "module index out of range";
        break;
      case NodeKind::HeapVar:
        if (n.a >= p.sites.size()) return where(i) + "allocation site index out of range";
        break;
      case NodeKind::StaticVarNode:
        if (n.a >= p.statics.size()) return where(i) + "static variable index out of range";
        break;
      default:
        return where(i) + "unknown node kind " + std::to_string(static_cast<unsigned>(n.kind));
    }
  }
  return {};
}

}  // namespace

std::string validate_profile(const Profile& p) {
  for (size_t s = 0; s < p.sites.size(); ++s)
    for (const Frame& f : p.sites[s].frames)
      if (!module_ok(f.module, p.modules.size()))
        return "site " + std::to_string(s) + ": module index out of range";
  for (size_t s = 0; s < p.statics.size(); ++s)
    if (!module_ok(p.statics[s].module, p.modules.size()))
      return "static " + std::to_string(s) + ": module index out of range";
  for (size_t i = 0; i < p.symbols.size(); ++i)
    if (!module_ok(p.symbols[i].frame.module, p.modules.size()))
      return "symbol " + std::to_string(i) + ": module index out of range";
  for (size_t t = 0; t < p.trees.size(); ++t)
    if (std::string why = check_tree(p, t); !why.empty()) return why;
  return {};
}

}  // namespace hpcl::analysis
