// The rows of the stack's variables (format 1.10): a sample the runtime placed in a frame's
// storage (node kinds StackOwner, then StackSlot) belongs to the local that the merge found
// there (STACK_NAMES), else to its owning function's frame as a whole.
#include <algorithm>
#include <tuple>

#include "hpcl/text/cxx_names.h"
#include "report_parts.h"
#include "symbols/naming.h"

namespace hpcl::analysis {

namespace {

// "grid_kernel", "main [omp region 0]", "fields::total": the owner as the code view names it.
struct OwnerName {
  std::string name;
  bool omp_region = false;
};
OwnerName owner_name(std::string_view function) {
  FunctionName fn = display_function_name(function);
  if (fn.name.find('(') != std::string::npos) fn.name = qualified_base_name(fn.name);
  return {std::move(fn.name), fn.omp_region};
}

std::string declared_at(const StackVar& v) {
  if (v.file.empty()) return {};
  std::string at(basename_of(v.file));
  return v.line ? at + ":" + std::to_string(v.line) : at;
}

const char* role_of(hpcl::StackVarKind kind, bool omp_region) {
  switch (kind) {
    case hpcl::StackVarKind::Local: return omp_region ? "private" : "local";
    case hpcl::StackVarKind::Parameter: return "argument";
    case hpcl::StackVarKind::Automatic: return "automatic array";
    case hpcl::StackVarKind::Temporary: return "array temporary";
    case hpcl::StackVarKind::Frame: break;
  }
  return "frame";
}

}  // namespace

StackRows::StackRows(const Profile& db, const PathExpander& expand) : db_(db), expand_(expand) {}

size_t StackRows::row(const Tree& tree, size_t i, ReportModel& m) {
  const Node& node = tree.nodes[i];
  const Node* owner = nullptr;
  uint32_t var_index = kNoVar;
  if (node.kind == NodeKind::StackSlot && node.parent < tree.nodes.size() &&
      tree.nodes[node.parent].kind == NodeKind::StackOwner) {
    owner = &tree.nodes[node.parent];
    const StackSlotName key{Frame{owner->a, owner->b}, static_cast<int64_t>(node.b), 0, 0};
    auto by_place = [](const StackSlotName& x, const StackSlotName& y) {
      return std::tie(x.owner, x.lo) < std::tie(y.owner, y.lo);
    };
    auto it = std::lower_bound(db_.stack_slots.begin(), db_.stack_slots.end(), key, by_place);
    if (it != db_.stack_slots.end() && !by_place(key, *it) && it->var < db_.stack_vars.size() &&
        db_.stack_vars[it->var].kind != hpcl::StackVarKind::Frame)
      var_index = it->var;
  }
  if (owner == nullptr) return kNoRow;
  // A tree has a node per owner and slot, a row per local or owning frame: each row is worked
  // out once, at its first node.
  const Frame frame{owner->a, owner->b};
  if (auto known = var_index != kNoVar ? by_var_.find(var_index) : by_var_.end(); known != by_var_.end())
    return known->second;
  if (auto known = var_index == kNoVar ? by_owner_.find(frame) : by_owner_.end(); known != by_owner_.end())
    return known->second;
  const StackVar* var = var_index != kNoVar ? &db_.stack_vars[var_index] : nullptr;
  Variable v;
  v.kind = VariableKind::Stack;
  if (owner->a < db_.modules.size()) v.module = db_.modules[owner->a].path;
  v.data_module = v.module;
  if (var != nullptr) {
    OwnerName fn = owner_name(var->function);
    v.owner = fn.name;
    v.role = role_of(var->kind, fn.omp_region);
    v.declared = declared_at(*var);
    v.type = var->type;
    v.bytes = var->size;
    v.stack_lo = var->lo;
    if (var->kind == hpcl::StackVarKind::Temporary)
      v.name = "[array temporary of " + v.owner + "]";
    else
      v.name = var->name + " (" + v.role + (fn.omp_region ? ", " : " of ") + v.owner +
               (v.declared.empty() ? "" : ", " + v.declared) + ")";
  } else {
    // The frame as a whole: by its function, as the code view names the owning frame's code
    // (outermost of its inlined locations: the function whose frame it is).
    std::vector<Location> locs;
    expand_.append(frame, locs);
    const Location& where = locs.back();
    v.owner = where.function.empty() ? location_label(where) : owner_name(where.function).name;
    v.role = "frame";
    v.name = "[stack of " + v.owner + "]";
  }
  auto [it, fresh] = by_name_.try_emplace(v.name, m.variables.size());
  if (fresh) m.variables.push_back(std::move(v));
  if (var != nullptr) by_var_.emplace(var_index, it->second);
  else by_owner_.emplace(frame, it->second);
  return it->second;
}

void add_stack_offsets(Variable& v, int64_t lo, uint32_t width, uint64_t samples) {
  if (v.bytes == 0 || samples == 0) return;
  // In 128 bits: a damaged database may hold any lo.
  const __int128 size = static_cast<__int128>(v.bytes);
  const __int128 from = static_cast<__int128>(lo) - v.stack_lo;
  const __int128 first = from > 0 ? from : 0;
  const __int128 last = std::min<__int128>(from + width - 1, size - 1);
  if (first > last) return;  // a slot the variable does not cover (the largest overlap won)
  if (!v.has_offsets) {
    v.has_offsets = true;
    v.offset_bins.assign(kOffsetBins, 0);
    v.offset_min = static_cast<uint64_t>(first);
    v.offset_max = static_cast<uint64_t>(last);
  }
  v.offset_min = std::min(v.offset_min, static_cast<uint64_t>(first));
  v.offset_max = std::max(v.offset_max, static_cast<uint64_t>(last));
  // The slot's middle decides its bin: a slot is at most 1/16 of its distance from the CFA, so
  // of a large array it is about one bin or less.
  const __int128 mid = (first + last) / 2;
  v.offset_bins[static_cast<size_t>(mid * kOffsetBins / size)] += samples;
}

void add_stack_balance(ReportModel& m, const Profile& db, const std::vector<size_t>& row_of) {
  const Balance& b = db.balance;
  if (!b.present() || db.stack_threads.empty()) return;
  // By row, then by thread: a row gathers the slots of one local, or the frames of one function
  // from all its pcs, and a thread's share of the row is the sum of its shares of them.
  std::map<size_t, std::map<GroupId, uint64_t>> by_row;
  for (const StackThreadValue& e : db.stack_threads) {
    if (e.node >= row_of.size() || row_of[e.node] >= m.variables.size() ||
        m.variables[row_of[e.node]].kind != VariableKind::Stack)
      continue;
    uint64_t& sum = by_row[row_of[e.node]][e.thread];
    if (__builtin_add_overflow(sum, e.samples, &sum)) sum = UINT64_MAX;
  }
  for (const auto& [row, threads] : by_row) {
    Spread over_threads, over_ranks;
    std::map<GroupId, uint64_t> ranks;
    for (const auto& [thread, samples] : threads) {
      add_group(over_threads, samples, thread);
      uint64_t& sum = ranks[rank_group(thread)];
      if (__builtin_add_overflow(sum, samples, &sum)) sum = UINT64_MAX;
    }
    for (const auto& [rank, samples] : ranks) add_group(over_ranks, samples, rank);
    Variable& v = m.variables[row];
    v.has_balance = true;
    v.ranks = describe(over_ranks, b.rank_groups);
    v.threads = describe(over_threads, b.thread_groups);
  }
}

}  // namespace hpcl::analysis
