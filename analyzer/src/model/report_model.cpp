// Builds the report model from a merged database (see report_model.h), in phases: the run's
// figures, the rows, one forward pass over the tree that attributes every node to its variable,
// the access leaves and code locations, then order and notes. The rows, their grouping and the
// notes are built in the files report_parts.h lists.
#include "report_model.h"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "hpcl/tree.h"
#include "path_expander.h"
#include "report_parts.h"
#include "runtime_libs.h"
#include "stats.h"
#include "symbols/script_code.h"

namespace hpcl::analysis {
namespace {

// The counters the database names (META counter.<k>.event), with their totals.
std::vector<Counter> counters_of(const Profile& db) {
  std::vector<Counter> out;
  for (uint16_t id = kMetricCounterBase; id < kMetricCounterEnd; ++id) {
    const std::string key = "counter." + std::to_string(id - kMetricCounterBase);
    const std::string* event = db.find_meta((key + ".event").c_str());
    if (event == nullptr) continue;
    Counter c;
    c.metric = id;
    c.event = *event;
    c.period = meta_u64(db, (key + ".period").c_str());
    if (!db.trees.empty())
      for (const Node& node : db.trees[0].nodes) c.total += node.metric(id);
    out.push_back(std::move(c));
  }
  return out;
}

bool has_counter(const Node& node) {
  for (const Metric& x : node.metrics)
    if (x.id >= kMetricCounterBase && x.id < kMetricCounterEnd) return true;
  return false;
}

// The samples the heap estimates add beyond their raw counts fell, as raw samples, in the
// untracked blocks of their sites: in [untracked heap] when the heap's extent was known, else in
// [unknown data]. Those classes give them up, [untracked heap] first, neither below zero; the
// variance of what they give up is the matching share of the estimates' variance. What they
// cannot give (an estimate above its truth, by its noise or by a bug) is taken back from the
// estimates, each scaled by one factor, so that the shares never add up to more than 100%.
void take_estimates_from_unattributed(ReportModel& m, const std::map<uint32_t, size_t>& unknown_var) {
  double claimed = 0, claimed_var = 0;
  for (const Variable& v : m.variables) {
    if (v.kind != VariableKind::Heap) continue;
    claimed += v.samples_estimated - static_cast<double>(v.samples);
    claimed_var += v.samples_estimated_var;
  }
  const double total_claim = claimed;
  for (uint32_t cls : {static_cast<uint32_t>(UnknownClass::UntrackedHeap),
                       static_cast<uint32_t>(UnknownClass::UntrackedHeap) | kReadByMpi,
                       static_cast<uint32_t>(UnknownClass::Other),
                       static_cast<uint32_t>(UnknownClass::Other) | kReadByMpi}) {
    auto it = unknown_var.find(cls);
    if (claimed <= 0 || it == unknown_var.end()) continue;
    Variable& v = m.variables[it->second];
    double taken = std::min(claimed, v.samples_estimated);
    v.samples_estimated -= taken;
    v.samples_estimated_var += claimed_var * (taken / total_claim);
    claimed -= taken;
  }
  if (claimed <= 1e-9 || total_claim <= 0) return;
  m.estimates_excess = claimed;
  m.estimates_excess_noise = 4 * std::sqrt(claimed_var);
  const double keep = (total_claim - claimed) / total_claim;
  for (Variable& v : m.variables) {
    if (v.kind != VariableKind::Heap) continue;
    const double extra = v.samples_estimated - static_cast<double>(v.samples);
    v.samples_estimated = static_cast<double>(v.samples) + extra * keep;
  }
}

// A code location as the code view groups them: interned names compare by pointer.
struct CodeKey {
  InternedString function, file, module;
  uint32_t line = 0;
  uint64_t offset = 0;
  uint32_t caller = 0;  // index of CodeLocation::caller among those seen, 0 for none
  static CodeKey of(const Location& l, uint32_t caller) {
    return {l.function, l.file, l.module, l.line, l.offset, caller};
  }
  friend bool operator==(const CodeKey&, const CodeKey&) = default;
};
struct CodeKeyHash {
  size_t operator()(const CodeKey& k) const noexcept {
    size_t h = std::hash<InternedString>()(k.function);
    for (size_t x : {std::hash<InternedString>()(k.file), std::hash<InternedString>()(k.module),
                     static_cast<size_t>(k.line), static_cast<size_t>(k.offset), static_cast<size_t>(k.caller)})
      h = (h ^ x) * 0x100000001b3ull;
    return h;
  }
};

bool is_data_root(NodeKind k) {
  return k == NodeKind::HeapRoot || k == NodeKind::StaticRoot || k == NodeKind::UnknownRoot;
}

// Every memory metric of every node, into the program's sums and its variable's: exclusive values
// summed over a subtree are the inclusive sums, and no id needs to be known in advance.
void add_memory_sums(const Tree& tree, const std::vector<size_t>& var, ReportModel& m) {
  for (size_t i = 0; i < tree.nodes.size(); ++i)
    for (const Metric& metric : tree.nodes[i].metrics) {
      if (!is_memory_metric(metric.id)) continue;
      m.memory.add(metric.id, metric.value);
      if (var[i] != static_cast<size_t>(-1)) m.variables[var[i]].memory.add(metric.id, metric.value);
    }
}

void derive_memory(const Profile& db, ReportModel& m) {
  if (!m.memory.present()) return;
  const MemoryContext context = memory_context(db);
  m.memory.derive(context);
  for (Variable& v : m.variables)
    if (v.memory.present()) v.memory.derive(context);
  m.assessment = assess_memory(db, context, m.memory, m.data_samples, m.total_samples);
}

// The run's figures from META.
// META "a:x;b:y" into (a, x), (b, y); fields of an entry split by `sep` into `out`.
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(sep, start)) != std::string::npos; start = at + 1)
    parts.push_back(text.substr(start, at - start));
  if (start < text.size()) parts.push_back(text.substr(start));
  return parts;
}

void read_sources(const Profile& db, ReportModel& m) {
  for (const std::string& entry : split(meta_str(db, "source_ranks"), ';'))
    if (size_t colon = entry.find(':'); colon != std::string::npos)
      m.source_ranks.emplace_back(entry.substr(0, colon), entry.substr(colon + 1));
  for (const std::string& entry : split(meta_str(db, "source_fallbacks"), ';')) {
    std::vector<std::string> f = split(entry, '\x1f');
    if (f.size() == 3) m.source_fallbacks.push_back({f[0], f[1], f[2]});
  }
  m.hw_fallback_threads = meta_u64(db, "hw_fallback_threads");
}

void read_run(const Profile& db, ReportModel& m) {
  m.source = meta_str(db, "source");
  read_sources(db, m);
  m.processes = meta_u64(db, "processes");
  m.threads = meta_u64(db, "threads");
  m.ranks = meta_u64(db, "ranks");
  m.samples_dropped = meta_u64(db, "samples_dropped");
  m.samples_in_runtime = meta_u64(db, "samples_in_runtime");
  m.dlopen_unsampled_ns = meta_u64(db, "dlopen_unsampled_ns");
  if (m.source == "soft") m.soft_rate = meta_u64(db, "rate");
  m.skipped = meta_str(db, "skipped");
  m.has_sample_details = db.find_meta("samples_dropped_full") != nullptr;
  m.samples_taken = meta_u64(db, "samples_total");
  m.samples_dropped_full = meta_u64(db, "samples_dropped_full");
  m.numa_nodes = meta_u64(db, "numa_nodes");
  m.samples_dropped_nested = meta_u64(db, "samples_dropped_nested");
  m.samples_unresolved = meta_u64(db, "samples_unresolved");
  m.offsets_lost = meta_u64(db, "offsets_lost");
  m.samples_overflowed = meta_u64(db, "samples_overflowed");
  m.allocs_lost = meta_u64(db, "allocs_lost");
  m.has_page_faults = db.find_meta("page_faults_total") != nullptr;
  m.page_faults_lost = meta_u64(db, "page_faults_lost");
  m.page_faults_throttled = meta_u64(db, "page_faults_throttled");
}

constexpr size_t kNone = static_cast<size_t>(-1);

// Which database variables (sites, then statics) have anything measured in their subtree: a
// metric that is not zero (samples, estimates, page faults, watch results). The outer variable
// keeps a subtree, as in attribute_nodes.
std::vector<bool> measured_variables(const Profile& db) {
  std::vector<bool> measured(db.sites.size() + db.statics.size(), false);
  if (db.trees.empty()) return measured;
  const Tree& tree = db.trees[0];
  constexpr size_t kOther = kNone - 1;  // an unknown-data class: not a database variable
  std::vector<size_t> var(tree.nodes.size(), kNone);
  for (size_t i = 1; i < tree.nodes.size(); ++i) {
    const Node& node = tree.nodes[i];
    var[i] = node.parent < i ? var[node.parent] : kNone;
    if (var[i] == kNone) {
      if (node.kind == NodeKind::HeapVar) var[i] = node.a;
      else if (node.kind == NodeKind::StaticVarNode) var[i] = db.sites.size() + node.a;
      else if (node.kind == NodeKind::UnknownClass) var[i] = kOther;
    }
    if (var[i] >= measured.size() || measured[var[i]]) continue;
    for (const Metric& metric : node.metrics)
      if (metric.value != 0) measured[var[i]] = true;
  }
  return measured;
}

// Rows appended after the database's variables: the unknown-data classes and the runtime groups.
constexpr size_t kSpareRows = 64;

// A row for every allocation site and static variable with something measured, or every one
// with ReportModelOptions::all_variables (in that order), with where in it the samples fell and
// its watchpoint results. `rows` maps the database's variables to them.
void add_rows(const Profile& db, const PathExpander& expand, const ReportModelOptions& options,
              ReportModel& m, RowMap& rows) {
  const std::vector<bool> measured =
      options.all_variables ? std::vector<bool>() : measured_variables(db);
  rows.assign(db.sites.size() + db.statics.size(), kNoRow);
  // Room for every row at once (the built sites and statics, the unknown-data classes and the
  // group rows appended later): grown by doubling, the rows of CP2K under --all (1.3 KB each)
  // were copied into a buffer twice their size.
  size_t built = 0;
  for (size_t k = 0; k < rows.size(); ++k) built += measured.empty() || measured[k];
  m.variables.reserve(built + kSpareRows);
  add_heap_variables(db, expand, options, measured, m, rows);
  add_static_variables(db, measured, m, rows);
  for (size_t k = 0; k < db.statics.size(); ++k) {
    if (rows[db.sites.size() + k] == kNoRow) continue;
    AccessEvidence& e = m.variables[rows[db.sites.size() + k]].evidence;
    e.is_static = true;
    e.static_module = db.statics[k].module;
    e.static_offset = db.statics[k].offset;
  }
  for (const OffsetHistogram& h : db.offsets) {
    size_t k = h.owner == OffsetOwner::Site ? h.index : db.sites.size() + h.index;
    if (k >= rows.size() || rows[k] == kNoRow) continue;
    Variable& v = m.variables[rows[k]];
    v.has_offsets = true;
    v.offset_bins = h.bins;
    v.offset_min = h.min;
    v.offset_max = h.max;
  }
  attach_watch(db, rows, m.variables);
}


// What the forward pass over the tree learns of each node: its kind root and its variable
// (kNone outside one), and which row stands for each unknown-data class met.
struct Attribution {
  std::vector<NodeKind> category;
  std::vector<size_t> var;
  std::map<uint32_t, size_t> unknown_var;
};

// Totals, each variable's inclusive samples, estimates, page faults and memory metrics, and the
// rows of the unknown classes (appended as they are met).
Attribution attribute_nodes(const Profile& db, const Tree& tree, const RowMap& rows,
                            const PathExpander& expand, ReportModel& m) {
  const size_t n = tree.nodes.size();
  Attribution at;
  std::vector<NodeKind>& category = at.category;
  std::vector<size_t>& var = at.var;
  std::map<uint32_t, size_t>& unknown_var = at.unknown_var;
  // A subtree's inclusive value is the sum of its nodes' exclusive values: summing each node
  // into its variable (and everything into the totals) needs no per-node vector of sums.
  struct Sums {
    uint64_t samples = 0, extra = 0, extra_var = 0, faults = 0;
  };
  std::vector<Sums> sums;  // by variable
  for (const Node& node : tree.nodes) {
    m.total_samples += node.metric(kMetricSamples);
    m.page_faults += node.metric(kMetricPageFaults);
  }
  m.has_page_faults |= m.page_faults > 0;

  // Parents precede children, so one forward pass knows each node's kind root and variable.
  category.assign(n, NodeKind::Root);
  var.assign(n, kNone);
  // The unknown-data class of each node's subtree; below a frame of MPI's code, the class's
  // "read by MPI" row (kReadByMpi), which belongs to MPI's module and so to its group row.
  constexpr uint32_t kNoClass = UINT32_MAX;
  std::vector<uint32_t> cls(n, kNoClass);
  std::vector<bool> mpi_module(db.modules.size());
  for (size_t k = 0; k < db.modules.size(); ++k)
    mpi_module[k] = runtime_family(db.modules[k].path) == RuntimeFamily::Mpi;
  auto unknown_row = [&](uint32_t c, const std::string& module) {
    auto [it, fresh] = unknown_var.try_emplace(c, m.variables.size());
    if (fresh) {
      Variable v;
      v.name = unknown_class_name(c);
      v.data_module = module;
      m.variables.push_back(std::move(v));
    }
    return it->second;
  };
  StackRows stack(db, expand);
  bool placed_on_stack = false;
  // Each node's StackSlot above it (or itself), and the samples of each slot's subtree.
  std::vector<uint32_t> slot_of(n, 0);
  std::map<uint32_t, uint64_t> slot_samples;
  for (size_t i = 1; i < n; ++i) {
    const Node& node = tree.nodes[i];
    const bool mpi_frame = node.kind == NodeKind::Frame && node.a < mpi_module.size() && mpi_module[node.a];
    if (mpi_frame) m.samples_in_mpi_code += node.metric(kMetricSamples);
    category[i] = node.parent == 0 ? node.kind : category[node.parent];
    var[i] = var[node.parent];
    cls[i] = cls[node.parent];
    slot_of[i] = node.kind == NodeKind::StackSlot ? static_cast<uint32_t>(i) : slot_of[node.parent];
    // (A variable node below a variable would be malformed: the outer one keeps the subtree.)
    // Stack samples the runtime placed in a frame leave [stack] for that frame's local. The row
    // is the slot's (the runtime records a sample in a slot, below its owner): an owner node is
    // no row of its own, which would be one without samples when all its slots name locals.
    if (node.kind == NodeKind::StackSlot && cls[i] == static_cast<uint32_t>(UnknownClass::Stack)) {
      if (const size_t r = stack.row(tree, i, m); r != kNoRow) {
        var[i] = r;
        placed_on_stack = true;
        m.variables[r].stack_nodes.push_back(static_cast<uint32_t>(i));
      }
    } else if (var[i] != kNone) {
      if (mpi_frame && (cls[i] == static_cast<uint32_t>(UnknownClass::Other) ||
                        cls[i] == static_cast<uint32_t>(UnknownClass::UntrackedHeap))) {
        cls[i] |= kReadByMpi;
        var[i] = unknown_row(cls[i], db.modules[node.a].path);
      }
    } else if (node.kind == NodeKind::HeapVar) {
      var[i] = node.a < db.sites.size() ? rows[node.a] : kNone;
    } else if (node.kind == NodeKind::StaticVarNode) {
      var[i] = node.a < db.statics.size() ? rows[db.sites.size() + node.a] : kNone;
    } else if (node.kind == NodeKind::UnknownClass) {
      cls[i] = node.a;
      var[i] = unknown_row(node.a, std::string());
    }
    if (slot_of[i] != 0)
      if (const uint64_t s = node.metric(kMetricSamples)) slot_samples[slot_of[i]] += s;
    if (var[i] != kNone) {
      if (sums.size() <= var[i]) sums.resize(m.variables.size());
      Sums& x = sums[var[i]];
      x.samples += node.metric(kMetricSamples);
      x.extra += node.metric(kMetricSamplesEstimated);
      x.extra_var += node.metric(kMetricSamplesEstimatedVar);
      x.faults += node.metric(kMetricPageFaults);
    }
  }
  for (size_t k = 0; k < sums.size(); ++k) {
    Variable& v = m.variables[k];
    v.samples += sums[k].samples;
    v.samples_estimated += static_cast<double>(sums[k].samples + sums[k].extra);
    v.samples_estimated_var += static_cast<double>(sums[k].extra_var);
    v.page_faults += sums[k].faults;
  }
  // (A slot outside [stack], as a damaged tree may have one, belongs to no stack row.)
  for (const auto& [slot, samples] : slot_samples)
    if (var[slot] != kNone && m.variables[var[slot]].kind == VariableKind::Stack)
      add_stack_offsets(m.variables[var[slot]], static_cast<int64_t>(tree.nodes[slot].b), tree.nodes[slot].a, samples);
  add_memory_sums(tree, var, m);
  // First touches by node: the exclusive counts of the variable's subtree, summed.
  std::vector<std::map<uint32_t, uint64_t>> touch_nodes(m.variables.size());
  for (size_t i = 1; i < n; ++i)
    for (const Metric& metric : tree.nodes[i].metrics)
      if (var[i] != kNone && metric.id >= kMetricFirstTouchNodeBase && metric.id < kMetricFirstTouchNodeEnd)
        touch_nodes[var[i]][metric.id - kMetricFirstTouchNodeBase] += metric.value;
  for (size_t v = 0; v < touch_nodes.size(); ++v)
    m.variables[v].first_touch.nodes.assign(touch_nodes[v].begin(), touch_nodes[v].end());
  // Static and unknown variables without a tree node (no samples) stay at 0 = samples.
  take_estimates_from_unattributed(m, unknown_var);
  add_balance(m, db, rows, unknown_var);
  add_stack_balance(m, db, var);
  // The BALANCE section counts an unknown class's samples per rank and thread before MPI's part
  // of them was split off: where it was, those counts are not the row's, and it has none; nor
  // has MPI's part, which no BALANCE entry describes (it printed zeros on every rank).
  auto no_balance = [&](size_t row) {
    m.variables[row].has_balance = false;
    m.variables[row].ranks = BalanceStats{};
    m.variables[row].threads = BalanceStats{};
  };
  // [stack] holds what was not placed, and not the counts of the samples its frames' locals took.
  if (auto it = unknown_var.find(static_cast<uint32_t>(UnknownClass::Stack)); it != unknown_var.end()) {
    m.stack_unplaced = m.variables[it->second].samples;
    if (placed_on_stack) no_balance(it->second);
  }
  for (const auto& [c, row] : unknown_var)
    if ((c & kReadByMpi) != 0) {
      no_balance(row);
      if (auto base = unknown_var.find(c & ~kReadByMpi); base != unknown_var.end()) no_balance(base->second);
    }
  add_first_touch(m, db, rows, unknown_var);
  return at;
}

// The modules the samples under the own-work marker interrupted, by samples: the marker is a
// frame under the no-data root, and below it the interrupted instructions (sampler.cpp). Only
// frames under the no-data root are symbolized here.
void collect_own_work_modules(const Tree& tree, const PathExpander& expand, ReportModel& m) {
  if (m.samples_in_runtime == 0) return;
  const size_t n = tree.nodes.size();
  constexpr uint8_t kElsewhere = 0, kNoData = 1, kOwnWork = 2;
  std::vector<uint8_t> state(n, kElsewhere);
  std::map<std::string, uint64_t> by_module;
  for (size_t i = 1; i < n; ++i) {
    const Node& node = tree.nodes[i];
    if (node.kind != NodeKind::Frame || node.parent >= i) continue;
    const uint8_t above = tree.nodes[node.parent].kind == NodeKind::NoDataRoot ? kNoData : state[node.parent];
    if (above == kElsewhere) continue;
    const Location& where = *expand.access_leaf(static_cast<uint32_t>(i));
    if (above == kNoData) {
      state[i] = is_profiler_own_work(where) ? kOwnWork : kNoData;
    } else {
      state[i] = kOwnWork;
      if (const uint64_t s = node.metric(kMetricSamples)) by_module[std::string(basename_of(where.module))] += s;
    }
  }
  m.own_work_modules.assign(by_module.begin(), by_module.end());
  std::stable_sort(m.own_work_modules.begin(), m.own_work_modules.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
}

// The code view's locations and each variable's access leaves (paths are expanded later, and
// only as many as the report asks for). With options.access_evidence, also the sampled
// instructions of the heap and static rows (the first `db_rows`) and of the stack rows.
void collect_accesses(const Tree& tree, const Attribution& at, const PathExpander& expand,
                      const ReportModelOptions& options, size_t db_rows, bool script_frames, ReportModel& m) {
  const bool evidence = options.access_evidence;
  const size_t n = tree.nodes.size();
  const std::vector<NodeKind>& category = at.category;
  const std::vector<size_t>& var = at.var;
  // Code locations: symbolized ones aggregate over addresses, unsymbolized ones stay per
  // address. A first pass finds them (and counts each variable's leaves), so the model's vectors
  // are allocated once at their size: on a database of a million nodes, vectors grown by
  // doubling would hold up to twice what they need at the peak.
  auto leaf_where = [&](size_t i) {
    Location where = *expand.access_leaf(static_cast<uint32_t>(i));
    if (!where.function.empty()) {
      where.offset = 0;
      where.has_address = false;
    }
    return where;
  };
  // Samples that interrupted the profiler's own work hang under its marker frame: the code view
  // counts them at the marker ("[profiler's own work]"), not at the runtime's functions,
  // libunwind's or libc's that it was running. marker[i]: the marker above node i, plus 1.
  std::vector<uint32_t> marker(options.code_locations ? n : 0, 0);
  for (size_t i = 1; i < marker.size(); ++i) {
    const Node& node = tree.nodes[i];
    if (node.kind != NodeKind::Frame) continue;
    if (node.parent < i && marker[node.parent]) marker[i] = marker[node.parent];
    else if (is_profiler_own_work(*expand.access_leaf(static_cast<uint32_t>(i)))) marker[i] = static_cast<uint32_t>(i + 1);
  }
  auto code_node = [&](size_t i) { return marker.empty() || !marker[i] ? i : marker[i] - 1; };
  auto code_where = [&](size_t i) { return leaf_where(code_node(i)); };
  // The Python line above each code location's node (CodeLocation::caller) and each sampled
  // instruction's (AccessEvidence::Instruction::caller), by index into `callers`; only for a
  // database with Python frames.
  std::vector<std::string> callers{""};
  std::unordered_map<std::string, uint32_t> caller_index;
  std::vector<uint32_t> caller_of;
  if (script_frames && (options.code_locations || evidence)) {
    caller_of.assign(n, 0);
    std::vector<Location> path;
    for (size_t i = 1; i < n; ++i) {
      const Node& node = tree.nodes[i];
      if (node.kind != NodeKind::Frame || code_node(i) != i) continue;
      path.clear();
      expand.append_access_path(static_cast<uint32_t>(i), path);
      const Location* py = program_script_frame(path);
      if (!py) continue;
      auto [it, fresh] = caller_index.try_emplace(location_label(*py), static_cast<uint32_t>(callers.size()));
      if (fresh) callers.push_back(it->first);
      caller_of[i] = it->second;
    }
  }
  auto code_key = [&](size_t i) {
    return CodeKey::of(code_where(i), caller_of.empty() ? 0 : caller_of[code_node(i)]);
  };
  // A small max_access_paths (text, CSV: 1; a viewer's first screen) keeps only that many
  // leaves per variable while scanning, in the order the stable sort below would give them;
  // a larger one keeps every leaf, sorted and cut after the scan.
  constexpr size_t kBoundedKeep = 16;
  const bool bounded = options.max_access_paths <= kBoundedKeep;
  const size_t kept_max = bounded ? options.max_access_paths : SIZE_MAX;
  auto keep = [&](std::vector<AccessPath>& list, AccessPath a) {
    if (!bounded) {
      list.push_back(std::move(a));
      return;
    }
    if (kept_max == 0 || (list.size() == kept_max && list.back().samples >= a.samples)) return;
    // After every leaf with as many samples: ties keep tree order.
    auto pos = std::upper_bound(list.begin(), list.end(), a.samples,
                                [](uint64_t s, const AccessPath& x) { return s > x.samples; });
    list.insert(pos, std::move(a));
    if (list.size() > kept_max) list.pop_back();
  };
  auto listed = [&](const Node& node, uint64_t samples) {
    return samples > 0 || (!m.counters.empty() && has_counter(node));
  };
  // The unknown classes' samples by function (few variables: a map each).
  std::unordered_map<size_t, std::unordered_map<std::string, uint64_t>> readers;
  {
    std::unordered_map<CodeKey, uint32_t, CodeKeyHash> code_index;
    std::vector<std::pair<Location, uint32_t>> wheres;  // and the caller
    std::vector<size_t> leaves(m.variables.size()), touches(m.variables.size());
    for (size_t i = 1; i < n; ++i) {
      const Node& node = tree.nodes[i];
      const uint64_t samples = node.metric(kMetricSamples);
      if (var[i] != kNone) {
        if (node.metric(kMetricPageFaults) > 0) ++touches[var[i]];
        if (samples > 0) ++leaves[var[i]];
      }
      if (!options.code_locations || node.kind != NodeKind::Frame || !listed(node, samples)) continue;
      const CodeKey key = code_key(i);
      if (code_index.try_emplace(key, static_cast<uint32_t>(wheres.size())).second)
        wheres.emplace_back(code_where(i), key.caller);
    }
    for (size_t v = 0; v < m.variables.size(); ++v) {
      m.variables[v].accesses.reserve(std::min(leaves[v], kept_max));
      m.variables[v].first_touches.reserve(std::min(touches[v], kept_max));
    }
    if (!options.code_locations) wheres.clear();
    m.locations.reserve(wheres.size());
    for (const auto& [where, caller] : wheres) {
      const std::string& py = callers[caller];
      m.locations.push_back(
          CodeLocation{where, py, location_label(where) + (py.empty() ? "" : " \u2190 " + py), 0, 0, 0, {}});
      m.locations.back().counters.assign(m.counters.size(), 0);
    }
    std::vector<std::pair<Location, uint32_t>>().swap(wheres);

    for (size_t i = 1; i < n; ++i) {
      const Node& node = tree.nodes[i];
      if (uint64_t f = node.metric(kMetricPageFaults); f > 0 && var[i] != kNone)
        keep(m.variables[var[i]].first_touches, AccessPath{{}, f, static_cast<uint32_t>(i), false, {}});
      uint64_t samples = node.metric(kMetricSamples);
      if (!listed(node, samples)) continue;
      const bool data = is_data_root(category[i]);
      if (data) m.data_samples += samples;
      if (category[i] == NodeKind::NoDataRoot) m.no_data_samples += samples;
      if (category[i] == NodeKind::UnknownRoot) {
        const Variable* v = var[i] != kNone ? &m.variables[var[i]] : nullptr;
        if (v != nullptr && v->kind == VariableKind::Stack) m.stack_samples += samples;
        else m.unknown_samples += samples;
      }

      if (options.code_locations && node.kind == NodeKind::Frame) {
        CodeLocation& loc = m.locations[code_index.at(code_key(i))];
        loc.samples += samples;
        if (data) loc.data_samples += samples;
        for (size_t k = 0; k < m.counters.size(); ++k) loc.counters[k] += node.metric(m.counters[k].metric);
      }
      if (samples == 0) continue;

      if (var[i] == kNone) continue;
      if (node.kind == NodeKind::Frame && m.variables[var[i]].kind == VariableKind::Unknown) {
        const Location where = leaf_where(i);
        readers[var[i]][where.function.empty() ? location_label(where) : std::string(where.function)] += samples;
      }
      // Every sampled instruction of a heap, static or stack variable, for its access evidence
      // (stack rows come after the database's: a program may have no other).
      if (evidence && node.kind == NodeKind::Frame &&
          (var[i] < db_rows || m.variables[var[i]].kind == VariableKind::Stack))
        m.variables[var[i]].evidence.instructions.push_back(
            {Frame{node.a, node.b}, samples, static_cast<uint32_t>(i), caller_of.empty() ? "" : callers[caller_of[i]]});
      // Only the leaf and its samples for now: paths are expanded after sorting, and only as
      // many as the report asks for.
      AccessPath path;
      path.samples = samples;
      path.leaf = static_cast<uint32_t>(i);
      keep(m.variables[var[i]].accesses, std::move(path));
    }
  }
  for (auto& [v, by_function] : readers) {
    std::vector<ReaderShare>& out = m.variables[v].read_in;
    for (auto& [function, samples] : by_function) out.push_back(ReaderShare{function, samples});
    std::sort(out.begin(), out.end(), [](const ReaderShare& x, const ReaderShare& y) {
      return x.samples != y.samples ? x.samples > y.samples : x.function < y.function;
    });
  }
}

// Intervals, the hottest first, the kept paths expanded, then the notes and the runtime groups.
void finish(const Profile& db, const PathExpander& expand, const ReportModelOptions& options,
            ReportModel& m) {
  const double total = static_cast<double>(m.total_samples);
  for (Variable& v : m.variables) {
    m.estimated_data_samples += v.samples_estimated;
    set_interval(v, m.total_samples);
    m.share_sum += v.share;
    // Ties keep tree order (the leaves were appended in node order), so output is deterministic.
    for (std::vector<AccessPath>* list : {&v.accesses, &v.first_touches}) {
      std::stable_sort(list->begin(), list->end(), [](const AccessPath& x, const AccessPath& y) {
        return x.samples > y.samples;
      });
      if (list->size() > options.max_access_paths) list->resize(options.max_access_paths);
      for (size_t k = 0; k < list->size() && k < options.expand_access_paths; ++k) {
        AccessPath& a = (*list)[k];
        expand.append_access_path(a.leaf, a.path);
        a.expanded = true;
      }
    }
    if (v.accesses.empty()) continue;
    // Data read by code the Python interpreter ran: the Python function and line that read it
    // ("norm (solver.py:31)") says more than NumPy's loop.
    if (!db.script_frames.empty()) {
      std::vector<Location> path;
      if (!v.accesses[0].expanded) expand.append_access_path(v.accesses[0].leaf, path);
      if (const Location* py = program_script_frame(v.accesses[0].expanded ? v.accesses[0].path : path)) {
        v.hottest_access = location_label(*py);
        continue;
      }
    }
    if (const Location* leaf = expand.access_leaf(v.accesses[0].leaf)) v.hottest_access = location_label(*leaf);
  }
  for (CodeLocation& c : m.locations)
    c.share = total > 0 ? static_cast<double>(c.samples) / total : 0;

  stable_sort_rows(m.variables, hotter);
  std::stable_sort(m.locations.begin(), m.locations.end(),
                   [](const CodeLocation& x, const CodeLocation& y) {
                     if (x.samples != y.samples) return x.samples > y.samples;
                     if (!x.counters.empty() && x.counters[0] != y.counters[0])
                       return x.counters[0] > y.counters[0];
                     return std::tie(x.label, x.where.module) < std::tie(y.label, y.where.module);
                   });
  add_notes(m, db);
  add_memory_notes(db, m.notes);
  if (options.group_runtime) group_runtime_variables(m);
  m.variables_not_built += m.quiet.size();
  std::vector<QuietVariable>().swap(m.quiet);
  std::vector<std::string>().swap(m.quiet_modules);
  derive_memory(db, m);
}

}  // namespace

const std::vector<Location>& ReportModel::access_path(const AccessPath& a,
                                                     std::vector<Location>& scratch) const {
  if (a.expanded || expander == nullptr) return a.path;
  scratch.clear();
  expander->append_access_path(a.leaf, scratch);
  return scratch;
}

ReportModel build_report_model(const Profile& db, const ReportModelOptions& options) {
  ReportModel m;
  read_run(db, m);
  m.expander = std::make_shared<const PathExpander>(db);
  const PathExpander& expand = *m.expander;
  RowMap rows;
  add_rows(db, expand, options, m, rows);
  // The heap and static rows come first; the unknown classes are appended after them.
  const size_t db_rows = m.variables.size();
  if (db.trees.empty()) {
    m.variables_not_built = m.quiet.size();
    std::vector<QuietVariable>().swap(m.quiet);
    return m;
  }
  const Tree& tree = db.trees[0];
  m.counters = counters_of(db);
  const Attribution at = attribute_nodes(db, tree, rows, expand, m);
  std::vector<size_t>().swap(rows);
  collect_accesses(tree, at, expand, options, db_rows, !db.script_frames.empty(), m);
  collect_own_work_modules(tree, expand, m);
  finish(db, expand, options, m);
  if (options.access_evidence) add_access_evidence(db, m, options.evidence_rows, options.evidence_later);
  return m;
}

}  // namespace hpcl::analysis
