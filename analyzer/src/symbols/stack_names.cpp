// See stack_names.h.
#include "symbols/stack_names.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "symbols/stack_locals.h"
#include "symbols/symbolize.h"

namespace hpcl::analysis {

namespace {

// The (owner, slot) pairs of the tree, sorted by owner and lo, each once.
std::vector<StackSlotName> slots_of(const Profile& db) {
  std::vector<StackSlotName> slots;
  for (const Tree& t : db.trees)
    for (const Node& n : t.nodes) {
      if (n.kind != NodeKind::StackSlot || n.parent >= t.nodes.size()) continue;
      const Node& owner = t.nodes[n.parent];
      if (owner.kind != NodeKind::StackOwner || owner.a >= db.modules.size()) continue;
      slots.push_back({Frame{owner.a, owner.b}, static_cast<int64_t>(n.b), n.a, 0});
    }
  auto key = [](const StackSlotName& s) { return std::tie(s.owner, s.lo); };
  std::sort(slots.begin(), slots.end(), [&](const auto& x, const auto& y) { return key(x) < key(y); });
  slots.erase(std::unique(slots.begin(), slots.end(),
                          [&](const auto& x, const auto& y) { return key(x) == key(y); }),
              slots.end());
  return slots;
}

}  // namespace

void name_stack_slots(Profile& db) {
  db.stack_vars.clear();
  db.stack_slots.clear();
  const std::vector<StackSlotName> slots = slots_of(db);
  // A variable is one storage of one function: the same local seen from several pcs, or through
  // slots of several sizes, is one entry.
  std::map<std::tuple<hpcl::StackVarKind, std::string, std::string, std::string, uint32_t>, uint32_t> vars;
  for (size_t i = 0; i < slots.size();) {
    const uint32_t m = slots[i].owner.module;
    size_t end = i;
    while (end < slots.size() && slots[end].owner.module == m) ++end;
    const Module& mod = db.modules[m];
    if (is_script_module(mod)) {
      i = end;
      continue;
    }
    ModuleSymbols syms(mod.path, mod.build_id);
    if (!syms.ok() || !syms.has_debug_info()) {
      i = end;
      continue;
    }
    StackLocals locals(syms.dwfl_module(), syms.bias());
    for (; i < end; ++i) {
      const StackSlotName& s = slots[i];
      std::optional<StackLocal> found = locals.at(s.owner.offset, s.lo, s.width);
      if (!found) continue;
      StackVar v{found->kind, std::move(found->name), std::move(found->function),
                 std::move(found->file), found->line, found->lo, found->size, std::move(found->type)};
      auto [it, fresh] = vars.try_emplace(std::tie(v.kind, v.name, v.function, v.file, v.line),
                                          static_cast<uint32_t>(db.stack_vars.size()));
      if (fresh) db.stack_vars.push_back(std::move(v));
      db.stack_slots.push_back({s.owner, s.lo, s.width, it->second});
    }
  }
}

}  // namespace hpcl::analysis
