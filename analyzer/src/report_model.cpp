// Builds the report model from a merged database (see report_model.h).
#include "report_model.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "hpcl/tree.h"
#include "debug_hints.h"
#include "naming.h"
#include "path_expander.h"
#include "symbolize.h"
#include "runtime_libs.h"
#include "stats.h"

namespace hpcl::analysis {
namespace {

uint64_t meta_u64(const Profile& db, const char* key) {
  const std::string* s = db.find_meta(key);
  uint64_t v = 0;
  if (s != nullptr) std::from_chars(s->data(), s->data() + s->size(), v);
  return v;
}

std::string meta_str(const Profile& db, const char* key) {
  const std::string* s = db.find_meta(key);
  return s != nullptr ? *s : std::string();
}

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

std::string unknown_class_name(uint32_t a) {
  if (a == static_cast<uint32_t>(UnknownClass::Stack)) return "[stack]";
  if (a == static_cast<uint32_t>(UnknownClass::Other)) return "[unknown data]";
  if (a == static_cast<uint32_t>(UnknownClass::UntrackedHeap)) return "[untracked heap]";
  return "[unknown data class " + std::to_string(a) + "]";
}

// Heap variables, named once every site is known: the wrapper rule needs all allocation paths,
// and making labels distinct needs all labels.
void add_heap_variables(const Profile& db, const PathExpander& expand, const ReportModelOptions& options,
                        std::vector<Variable>& out) {
  std::vector<std::vector<Location>> paths(db.sites.size());
  for (size_t s = 0; s < db.sites.size(); ++s)
    expand.append_path(db.sites[s].frames, /*allocation=*/true, paths[s]);
  AllocWrappers wrappers(options.alloc_wrappers, options.detect_alloc_wrappers);
  wrappers.learn(paths);

  std::vector<std::string> labels(db.sites.size()), callers(db.sites.size());
  std::vector<size_t> named(db.sites.size());
  for (size_t s = 0; s < db.sites.size(); ++s) {
    std::vector<Location>& frames = paths[s];
    named[s] = heap_site_frame(frames, &wrappers);
    for (size_t j = 0; j < frames.size() && j <= named[s]; ++j)
      frames[j].wrapper = !is_allocator_or_runtime(frames[j]) && wrappers.is_wrapper(frames[j]);
    if (named[s] < frames.size()) {
      labels[s] = heap_site_context_label(frames, named[s]);
      if (named[s] + 1 < frames.size()) callers[s] = heap_site_label(frames[named[s] + 1]);
    } else {
      labels[s] = std::string("[") + alloc_api_name(db.sites[s].api) + " from an unknown context]";
    }
  }
  // Sites with the same frames (they differ in API or sampling only) are one place of the
  // program: they keep one label, and only distinct places are told apart.
  std::map<std::vector<Frame>, size_t> place;
  std::vector<size_t> first(db.sites.size());
  std::vector<std::string> place_labels, place_callers;
  for (size_t s = 0; s < db.sites.size(); ++s) {
    auto [it, fresh] = place.try_emplace(db.sites[s].frames, place_labels.size());
    if (fresh) {
      place_labels.push_back(labels[s]);
      place_callers.push_back(callers[s]);
    }
    first[s] = it->second;
  }
  disambiguate_labels(place_labels, place_callers);
  for (size_t s = 0; s < db.sites.size(); ++s) labels[s] = place_labels[first[s]];

  for (size_t s = 0; s < db.sites.size(); ++s) {
    const AllocSite& site = db.sites[s];
    Variable v;
    v.kind = VariableKind::Heap;
    v.allocator = alloc_api_name(site.api);
    v.sampled = (site.flags & kSiteSampled) != 0;
    v.allocations = site.allocations;
    v.bytes = site.bytes;
    v.name = std::move(labels[s]);
    v.allocation_site = v.allocator + " in " + v.name;
    v.allocation_path.push_back(Location{v.allocator, {}, 0, {}, 0, false});
    v.label_frame = named[s] < paths[s].size() ? named[s] + 1 : 0;
    if (named[s] < paths[s].size()) v.data_module = paths[s][named[s]].module;
    v.allocation_path.insert(v.allocation_path.end(), std::make_move_iterator(paths[s].begin()),
                             std::make_move_iterator(paths[s].end()));
    out.push_back(std::move(v));
  }
}

// Modules whose code is Fortran: a symbolized frame in a Fortran source file, or a gfortran
// module symbol among their statics. Their `name_` statics are shown as COMMON blocks.
std::vector<bool> fortran_modules(const Profile& db) {
  std::vector<bool> fortran(db.modules.size(), false);
  for (const Symbolized& s : db.symbols)
    if (s.frame.module < fortran.size() && !fortran[s.frame.module])
      for (const SourceLoc& l : s.locs)
        if (is_fortran_source(l.file)) fortran[s.frame.module] = true;
  for (const StaticVar& v : db.statics)
    if (v.module < fortran.size() && v.name.starts_with("__") &&
        v.name.find("_MOD_") != std::string::npos)
      fortran[v.module] = true;
  return fortran;
}

// Per Fortran module: the COMMON blocks its DWARF declares, or nullopt (no DWARF, no file, or
// not Fortran), when the `name_` heuristic decides alone.
using CommonBlocks = std::vector<std::optional<std::set<std::string>>>;
CommonBlocks common_blocks(const Profile& db, const std::vector<bool>& fortran) {
  CommonBlocks blocks(db.modules.size());
  for (size_t m = 0; m < db.modules.size(); ++m)
    if (fortran[m]) blocks[m] = dwarf_common_blocks(db.modules[m].path);
  return blocks;
}

Variable static_variable(const StaticVar& s, const Profile& db, const std::vector<bool>& fortran,
                         const CommonBlocks& blocks) {
  Variable v;
  v.kind = VariableKind::Static;
  v.name = static_display_name(s.name);
  if (s.module < fortran.size() && fortran[s.module]) {
    const std::optional<std::set<std::string>>& declared = blocks[s.module];
    std::string common = fortran_common_block_name(s.name);
    if (declared && declared->count(s.name) != 0 && common.empty())
      common = "/" + s.name.substr(0, s.name.size() - (s.name.ends_with('_') ? 1 : 0)) + "/";
    if (declared && declared->count(s.name) == 0) common.clear();
    if (!common.empty()) v.name = std::move(common);
  }
  v.symbol = s.name;
  v.module = s.module < db.modules.size() ? db.modules[s.module].path : std::string();
  v.data_module = v.module;
  v.bytes = s.size;
  v.tls = (s.flags & kStaticTls) != 0;
  return v;
}

// The samples the heap estimates add beyond their raw counts fell, as raw samples, in the
// untracked blocks of their sites: in [untracked heap] when the heap's extent was known, else in
// [unknown data]. Those classes give them up, [untracked heap] first, neither below zero; the
// variance of what they give up is the matching share of the estimates' variance.
void take_estimates_from_unattributed(ReportModel& m, const std::map<uint32_t, size_t>& unknown_var) {
  double claimed = 0, claimed_var = 0;
  for (const Variable& v : m.variables) {
    if (v.kind != VariableKind::Heap) continue;
    claimed += v.samples_estimated - static_cast<double>(v.samples);
    claimed_var += v.samples_estimated_var;
  }
  const double total_claim = claimed;
  for (UnknownClass cls : {UnknownClass::UntrackedHeap, UnknownClass::Other}) {
    auto it = unknown_var.find(static_cast<uint32_t>(cls));
    if (claimed <= 0 || it == unknown_var.end()) continue;
    Variable& v = m.variables[it->second];
    double taken = std::min(claimed, v.samples_estimated);
    v.samples_estimated -= taken;
    v.samples_estimated_var += claimed_var * (taken / total_claim);
    claimed -= taken;
  }
}

// A code location as the code view groups them: interned names compare by pointer.
struct CodeKey {
  InternedString function, file, module;
  uint32_t line = 0;
  uint64_t offset = 0;
  static CodeKey of(const Location& l) { return {l.function, l.file, l.module, l.line, l.offset}; }
  friend bool operator==(const CodeKey&, const CodeKey&) = default;
};
struct CodeKeyHash {
  size_t operator()(const CodeKey& k) const noexcept {
    size_t h = std::hash<InternedString>()(k.function);
    for (size_t x : {std::hash<InternedString>()(k.file), std::hash<InternedString>()(k.module),
                     static_cast<size_t>(k.line), static_cast<size_t>(k.offset)})
      h = (h ^ x) * 0x100000001b3ull;
    return h;
  }
};

bool is_data_root(NodeKind k) {
  return k == NodeKind::HeapRoot || k == NodeKind::StaticRoot || k == NodeKind::UnknownRoot;
}

void add_notes(ReportModel& m, const Profile& db) {
  if (m.source.empty() || m.source == "soft" || m.source == "mixed")
    m.notes.push_back(
        "Soft samples are time-weighted: a variable's share is its share of the time spent "
        "accessing memory, not of the accesses. Data that stays in cache gets fewer samples than "
        "its share of accesses.");
  // Name only the hottest few: an MPI program has hundreds of small sampled sites.
  constexpr size_t kNamed = 3;
  std::string sampled;
  size_t nsampled = 0;
  size_t named = 0;
  for (const Variable& v : m.variables) {  // sorted hottest first
    if (!v.sampled) continue;
    ++nsampled;
    // Those that took samples are worth naming; the rest are only counted.
    if (v.samples > 0 && named < kNamed) {
      sampled += (sampled.empty() ? "" : "; ") + v.name;
      ++named;
    }
  }
  if (nsampled > named)
    sampled += (named ? "; and " : "") + std::to_string(nsampled - named) +
               (named ? " more" : " without samples");
  std::string every = meta_str(db, "small_every");
  if (nsampled > 0)
    m.notes.push_back("Sampled small allocations, " + std::to_string(nsampled) + " variable" +
                      (nsampled == 1 ? "" : "s") + " (blocks under " + meta_str(db, "min_bytes") +
                      " bytes, " +
                      (every == "auto" ? std::string("tracked one in k when the program allocated "
                                                     "faster than the tracking budget")
                                       : "one in " + every + " tracked") +
                      "; their samples, bytes and allocations cover only the tracked blocks, "
                      "samples_estimated all of them, taken from [untracked heap]): " +
                      sampled + ".");
  if (m.samples_in_runtime > 0)
    m.notes.push_back(std::to_string(m.samples_in_runtime) +
                      " samples interrupted the profiler's own allocation tracking; they are code "
                      "time of the interrupted instruction, without a data address.");
  if (m.samples_dropped > m.samples_dropped_nested)
    m.notes.push_back(std::to_string(m.samples_dropped - m.samples_dropped_nested) +
                      " samples were dropped by the runtime (the thread's calling-context tree was "
                      "full) and are not in this report.");
  if (m.samples_dropped_nested > 0)
    m.notes.push_back(std::to_string(m.samples_dropped_nested) +
                      " samples landed while the thread was recording a PAPI counter overflow and "
                      "are not in this report (the profiler's own time).");
  if (m.offsets_lost > 0)
    m.notes.push_back(std::to_string(m.offsets_lost) +
                      " samples are missing from the offset histograms (the runtime's table of "
                      "variables was full, or the sample fell on another thread's TLS).");
  if (m.samples_overflowed > 0)
    m.notes.push_back(std::to_string(m.samples_overflowed) +
                      " samples were lost: the kernel's queue of pending signals was full (the "
                      "user's RLIMIT_SIGPENDING); they are not in this report.");
  if (m.allocs_lost > 0)
    m.notes.push_back(std::to_string(m.allocs_lost) +
                      " allocations were not tracked: the runtime's table of allocation sites or "
                      "its address map was full; samples in those blocks are under [untracked "
                      "heap].");
  if (!m.skipped.empty()) m.notes.push_back("Inputs skipped by the merge: " + m.skipped + ".");
  if (std::string nodebug = meta_str(db, kMetaNoDebugInfo); !nodebug.empty()) {
    // An MPI stack is dozens of libraries: name a few, count the rest.
    constexpr size_t kNamedModules = 6;
    std::string names;
    size_t count = 0;
    for (size_t at = 0; at <= nodebug.size(); ++count) {
      size_t end = std::min(nodebug.find(';', at), nodebug.size());
      if (count < kNamedModules)
        names += (names.empty() ? "" : ", ") + std::string(basename_of(nodebug.substr(at, end - at)));
      at = end + 1;
    }
    if (count > kNamedModules) names += " and " + std::to_string(count - kNamedModules) + " more";
    m.notes.push_back("No debug information for " + names +
                      ": their frames have no file and line (hpcprof-lite merge says how to "
                      "get it).");
  }
}

double as_double(uint64_t v) { return static_cast<double>(v); }

// The share is that of the estimated samples (equal to the raw count for every variable whose
// blocks were all tracked, docs/REPORT.md), and its interval adds the estimate's variance.
void set_interval(Variable& v, uint64_t total) {
  ShareInterval iv = share_interval(v.samples, v.samples_estimated, v.samples_estimated_var, total);
  v.share = iv.share;
  v.share_low = iv.low;
  v.share_high = iv.high;
}

// By the estimated samples, which the share shows (the raw count for every fully tracked
// variable), then the raw count.
bool hotter(const Variable& x, const Variable& y) {
  if (x.samples_estimated != y.samples_estimated) return x.samples_estimated > y.samples_estimated;
  if (x.samples != y.samples) return x.samples > y.samples;
  // Equal samples (often none): first touches rank them, so that with -e page-faults an array
  // that is filled once and never read comes before a table touched once.
  if (x.page_faults != y.page_faults) return x.page_faults > y.page_faults;
  return std::tie(x.name, x.kind) < std::tie(y.name, y.kind);
}

// Folds the variables of runtime libraries into one Group row per family (runtime_libs.h). The
// variables are sorted hottest first, so each group's first member gives its hottest access.
void group_runtime_variables(ReportModel& m) {
  std::map<RuntimeFamily, Variable> groups;
  std::map<std::pair<RuntimeFamily, std::string>, LibraryDetail> libs;
  std::vector<Variable> kept;
  for (Variable& v : m.variables) {
    RuntimeFamily f = v.kind == VariableKind::Unknown ? RuntimeFamily::None
                                                      : runtime_family(v.data_module);
    if (f == RuntimeFamily::None) {
      kept.push_back(std::move(v));
      continue;
    }
    Variable& g = groups[f];
    if (g.name.empty()) {
      g.kind = VariableKind::Group;
      g.name = runtime_family_row(f);
      g.hottest_access = v.hottest_access;
    }
    g.samples += v.samples;
    g.page_faults += v.page_faults;
    g.samples_estimated += v.samples_estimated;
    g.samples_estimated_var += v.samples_estimated_var;
    g.bytes += v.bytes;
    g.allocations += v.allocations;
    g.memory.add(v.memory);
    LibraryDetail& d = libs[{f, v.data_module}];
    d.module = v.data_module;
    d.variables += 1;
    d.samples += v.samples;
    d.bytes += v.bytes;
    ++m.grouped_variables;
  }
  for (auto& [key, d] : libs) {
    d.share = m.total_samples ? as_double(d.samples) / as_double(m.total_samples) : 0;
    groups[key.first].libraries.push_back(std::move(d));
  }
  for (auto& [f, g] : groups) {
    std::stable_sort(g.libraries.begin(), g.libraries.end(),
                     [](const LibraryDetail& x, const LibraryDetail& y) { return x.samples > y.samples; });
    set_interval(g, m.total_samples);
    kept.push_back(std::move(g));
  }
  m.variables = std::move(kept);
  std::stable_sort(m.variables.begin(), m.variables.end(), hotter);
  if (m.grouped_variables > 0)
    m.notes.push_back(std::to_string(m.grouped_variables) +
                      (m.grouped_variables == 1 ? " variable" : " variables") +
                      " of runtime libraries (MPI, OpenMP, C/C++) " +
                      (m.grouped_variables == 1 ? "is" : "are") +
                      " shown as one row per library family; --no-group lists them one by one.");
}

// The model's variable of a BALANCE or FIRST_TOUCH entry; SIZE_MAX when it has none.
size_t variable_of(BalanceOwner owner, uint32_t index, const Profile& db,
                   const std::map<uint32_t, size_t>& unknown_var) {
  if (owner == BalanceOwner::Site) return index;
  if (owner == BalanceOwner::Static) return db.sites.size() + index;
  if (auto it = unknown_var.find(index); owner == BalanceOwner::Unknown && it != unknown_var.end())
    return it->second;
  return SIZE_MAX;
}

// Who first touched each variable with page faults: the threads (FIRST_TOUCH) and the nodes.
void add_first_touch(ReportModel& m, const Profile& db, const std::map<uint32_t, size_t>& unknown_var) {
  const Balance& b = db.balance;
  for (const VariableFirstTouch& e : b.first_touch) {
    const size_t i = variable_of(e.owner, e.index, db, unknown_var);
    if (i >= m.variables.size() || e.threads.sum == 0) continue;
    FirstTouch& t = m.variables[i].first_touch;
    t.has_threads = true;
    t.threads = e.threads.groups;
    t.run_threads = b.thread_groups;
    t.top_share = static_cast<double>(e.threads.max) / static_cast<double>(e.threads.sum);
    t.top_thread = e.threads.max_group;
    t.serial = t.threads == 1 && t.run_threads > 1 && e.threads.sum >= kSerialMinFaults;
  }
}

// Every variable but a Group row gets its spread over ranks and threads; one without an entry
// had no samples anywhere.
void add_balance(ReportModel& m, const Profile& db, const std::map<uint32_t, size_t>& unknown_var) {
  const Balance& b = db.balance;
  if (!b.present()) return;
  m.balance_ranks = b.rank_groups;
  m.balance_threads = b.thread_groups;
  for (Variable& v : m.variables) {
    v.has_balance = true;
    v.ranks = describe(Spread{}, b.rank_groups);
    v.threads = describe(Spread{}, b.thread_groups);
  }
  for (const VariableBalance& e : b.variables) {
    const size_t i = variable_of(e.owner, e.index, db, unknown_var);
    if (i >= m.variables.size()) continue;
    m.variables[i].ranks = describe(e.ranks, b.rank_groups);
    m.variables[i].threads = describe(e.threads, b.thread_groups);
  }
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

}  // namespace

void sort_variables(ReportModel& m, VariableOrder order) {
  if (order == VariableOrder::Samples) return;
  const bool threads = order == VariableOrder::ThreadImbalance;
  // Only the program's variables are ranked: `[unknown data]` and `[stack]` gather unrelated
  // data, and the imbalance of such a mix (often MPI's or OpenMP's polling) names nothing to fix.
  auto ranked = [&](const Variable& v) {
    return v.has_balance && v.share >= kImbalanceMinShare &&
           (v.kind == VariableKind::Heap || v.kind == VariableKind::Static);
  };
  auto imbalance = [&](const Variable& v) {
    return threads ? v.threads.imbalance : v.ranks.imbalance;
  };
  std::stable_sort(m.variables.begin(), m.variables.end(), [&](const Variable& x, const Variable& y) {
    if (ranked(x) != ranked(y)) return ranked(x);
    if (ranked(x) && imbalance(x) != imbalance(y)) return imbalance(x) > imbalance(y);
    return hotter(x, y);
  });
}

const std::vector<Location>& ReportModel::access_path(const AccessPath& a,
                                                     std::vector<Location>& scratch) const {
  if (a.expanded || expander == nullptr) return a.path;
  scratch.clear();
  expander->append_access_path(a.leaf, scratch);
  return scratch;
}

const char* kind_name(VariableKind kind) {
  switch (kind) {
    case VariableKind::Heap: return "heap";
    case VariableKind::Static: return "static";
    case VariableKind::Unknown: return "unknown";
    case VariableKind::Group: return "group";
  }
  return "unknown";
}

ReportModel build_report_model(const Profile& db, const ReportModelOptions& options) {
  ReportModel m;
  m.source = meta_str(db, "source");
  m.processes = meta_u64(db, "processes");
  m.threads = meta_u64(db, "threads");
  m.ranks = meta_u64(db, "ranks");
  m.samples_dropped = meta_u64(db, "samples_dropped");
  m.samples_in_runtime = meta_u64(db, "samples_in_runtime");
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

  m.expander = std::make_shared<const PathExpander>(db);
  const PathExpander& expand = *m.expander;
  add_heap_variables(db, expand, options, m.variables);
  const std::vector<bool> fortran = fortran_modules(db);
  const CommonBlocks blocks = common_blocks(db, fortran);
  for (const StaticVar& s : db.statics) m.variables.push_back(static_variable(s, db, fortran, blocks));
  std::map<uint32_t, size_t> unknown_var;
  for (const OffsetHistogram& h : db.offsets) {
    size_t i = h.owner == OffsetOwner::Site ? h.index : db.sites.size() + h.index;
    if (i >= m.variables.size()) continue;
    Variable& v = m.variables[i];
    v.has_offsets = true;
    v.offset_bins = h.bins;
    v.offset_min = h.min;
    v.offset_max = h.max;
  }
  attach_watch(db, m.variables);

  if (db.trees.empty()) return m;
  const Tree& tree = db.trees[0];
  const size_t n = tree.nodes.size();
  m.counters = counters_of(db);
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
  constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<NodeKind> category(n, NodeKind::Root);
  std::vector<size_t> var(n, kNone);
  for (size_t i = 1; i < n; ++i) {
    const Node& node = tree.nodes[i];
    category[i] = node.parent == 0 ? node.kind : category[node.parent];
    var[i] = var[node.parent];
    // (A variable node below a variable would be malformed: the outer one keeps the subtree.)
    if (var[i] != kNone) {
    } else if (node.kind == NodeKind::HeapVar) {
      var[i] = node.a;
    } else if (node.kind == NodeKind::StaticVarNode) {
      var[i] = db.sites.size() + node.a;
    } else if (node.kind == NodeKind::UnknownClass) {
      auto [it, fresh] = unknown_var.try_emplace(node.a, m.variables.size());
      if (fresh) {
        Variable v;
        v.name = unknown_class_name(node.a);
        m.variables.push_back(std::move(v));
      }
      var[i] = it->second;
    }
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
  add_balance(m, db, unknown_var);
  add_first_touch(m, db, unknown_var);

  // Code locations: symbolized ones aggregate over addresses, unsymbolized ones stay per
  // address. A first pass finds them (and counts each variable's leaves), so the model's vectors
  // are allocated once at their size: on a database of a million nodes, vectors grown by
  // doubling would hold up to twice what they need at the peak.
  auto code_where = [&](size_t i) {
    Location where = *expand.access_leaf(static_cast<uint32_t>(i));
    if (!where.function.empty()) {
      where.offset = 0;
      where.has_address = false;
    }
    return where;
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
    auto at = std::upper_bound(list.begin(), list.end(), a.samples,
                               [](uint64_t s, const AccessPath& x) { return s > x.samples; });
    list.insert(at, std::move(a));
    if (list.size() > kept_max) list.pop_back();
  };
  auto listed = [&](const Node& node, uint64_t samples) {
    return samples > 0 || (!m.counters.empty() && has_counter(node));
  };
  {
    std::unordered_map<CodeKey, uint32_t, CodeKeyHash> code_index;
    std::vector<Location> wheres;
    std::vector<size_t> leaves(m.variables.size()), touches(m.variables.size());
    for (size_t i = 1; i < n; ++i) {
      const Node& node = tree.nodes[i];
      const uint64_t samples = node.metric(kMetricSamples);
      if (var[i] != kNone) {
        if (node.metric(kMetricPageFaults) > 0) ++touches[var[i]];
        if (samples > 0) ++leaves[var[i]];
      }
      if (!options.code_locations || node.kind != NodeKind::Frame || !listed(node, samples)) continue;
      Location where = code_where(i);
      if (code_index.try_emplace(CodeKey::of(where), static_cast<uint32_t>(wheres.size())).second)
        wheres.push_back(where);
    }
    for (size_t v = 0; v < m.variables.size(); ++v) {
      m.variables[v].accesses.reserve(std::min(leaves[v], kept_max));
      m.variables[v].first_touches.reserve(std::min(touches[v], kept_max));
    }
    if (!options.code_locations) wheres.clear();
    m.locations.reserve(wheres.size());
    for (const Location& where : wheres) {
      m.locations.push_back(CodeLocation{where, location_label(where), 0, 0, 0, {}});
      m.locations.back().counters.assign(m.counters.size(), 0);
    }
    std::vector<Location>().swap(wheres);

    for (size_t i = 1; i < n; ++i) {
      const Node& node = tree.nodes[i];
      if (uint64_t f = node.metric(kMetricPageFaults); f > 0 && var[i] != kNone)
        keep(m.variables[var[i]].first_touches, AccessPath{{}, f, static_cast<uint32_t>(i), false});
      uint64_t samples = node.metric(kMetricSamples);
      if (!listed(node, samples)) continue;
      const bool data = is_data_root(category[i]);
      if (data) m.data_samples += samples;
      if (category[i] == NodeKind::NoDataRoot) m.no_data_samples += samples;
      if (category[i] == NodeKind::UnknownRoot) m.unknown_samples += samples;

      if (options.code_locations && node.kind == NodeKind::Frame) {
        CodeLocation& loc = m.locations[code_index.at(CodeKey::of(code_where(i)))];
        loc.samples += samples;
        if (data) loc.data_samples += samples;
        for (size_t k = 0; k < m.counters.size(); ++k) loc.counters[k] += node.metric(m.counters[k].metric);
      }
      if (samples == 0) continue;

      if (var[i] == kNone) continue;
      // Only the leaf and its samples for now: paths are expanded after sorting, and only as
      // many as the report asks for.
      AccessPath path;
      path.samples = samples;
      path.leaf = static_cast<uint32_t>(i);
      keep(m.variables[var[i]].accesses, std::move(path));
    }
  }

  const double total = static_cast<double>(m.total_samples);
  for (Variable& v : m.variables) {
    m.estimated_data_samples += v.samples_estimated;
    set_interval(v, m.total_samples);
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
    if (!v.accesses.empty())
      if (const Location* leaf = expand.access_leaf(v.accesses[0].leaf)) v.hottest_access = location_label(*leaf);
  }
  for (CodeLocation& c : m.locations)
    c.share = total > 0 ? static_cast<double>(c.samples) / total : 0;

  std::stable_sort(m.variables.begin(), m.variables.end(), hotter);
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
  derive_memory(db, m);
  return m;
}

}  // namespace hpcl::analysis
