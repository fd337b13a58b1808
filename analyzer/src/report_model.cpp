// Builds the report model from a merged database (see report_model.h).
#include "report_model.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

#include "hpcl/tree.h"
#include "naming.h"

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

// Frame -> its inline-expanded locations, from the SYMBOLS section.
class Expander {
 public:
  explicit Expander(const Profile& db) : db_(db) {
    for (const Symbolized& s : db.symbols) index_.emplace(s.frame, &s);
  }

  void append(const Frame& f, std::vector<Location>& out) const {
    std::string module = f.module < db_.modules.size() ? db_.modules[f.module].path : std::string();
    auto it = index_.find(f);
    if (it == index_.end() || it->second->locs.empty()) {
      out.push_back(Location{{}, {}, 0, module, f.offset, true});
      return;
    }
    for (const SourceLoc& l : it->second->locs)
      out.push_back(Location{l.function, l.file, l.line, module, f.offset, true});
  }

 private:
  const Profile& db_;
  std::map<Frame, const Symbolized*> index_;
};

std::string unknown_class_name(uint32_t a) {
  if (a == static_cast<uint32_t>(UnknownClass::Stack)) return "[stack]";
  if (a == static_cast<uint32_t>(UnknownClass::Other)) return "[unknown data]";
  if (a == static_cast<uint32_t>(UnknownClass::UntrackedHeap)) return "[untracked heap]";
  return "[unknown data class " + std::to_string(a) + "]";
}

Variable heap_variable(const AllocSite& site, const Expander& expand) {
  Variable v;
  v.kind = VariableKind::Heap;
  v.allocator = alloc_api_name(site.api);
  v.sampled = (site.flags & kSiteSampled) != 0;
  v.allocations = site.allocations;
  v.bytes = site.bytes;
  std::vector<Location> frames;
  for (const Frame& f : site.frames) expand.append(f, frames);
  size_t named = heap_site_frame(frames);
  v.name = named < frames.size() ? location_label(frames[named])
                                 : "[" + v.allocator + " from an unknown context]";
  v.allocation_site = v.allocator + " in " + v.name;
  v.allocation_path.push_back(Location{v.allocator, {}, 0, {}, 0, false});
  v.allocation_path.insert(v.allocation_path.end(), frames.begin(), frames.end());
  return v;
}

Variable static_variable(const StaticVar& s, const Profile& db) {
  Variable v;
  v.kind = VariableKind::Static;
  v.name = static_display_name(s.name);
  v.symbol = s.name;
  v.module = s.module < db.modules.size() ? db.modules[s.module].path : std::string();
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
  if (m.samples_dropped > 0)
    m.notes.push_back(std::to_string(m.samples_dropped) +
                      " samples were dropped by the runtime and are not in this report.");
  if (!m.skipped.empty()) m.notes.push_back("Inputs skipped by the merge: " + m.skipped + ".");
}

}  // namespace

const char* kind_name(VariableKind kind) {
  switch (kind) {
    case VariableKind::Heap: return "heap";
    case VariableKind::Static: return "static";
    case VariableKind::Unknown: return "unknown";
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

  const Expander expand(db);
  for (const AllocSite& s : db.sites) m.variables.push_back(heap_variable(s, expand));
  for (const StaticVar& s : db.statics) m.variables.push_back(static_variable(s, db));
  std::map<uint32_t, size_t> unknown_var;

  if (db.trees.empty()) return m;
  const Tree& tree = db.trees[0];
  const size_t n = tree.nodes.size();
  const std::vector<uint64_t> inclusive = inclusive_metric(tree, kMetricSamples);
  const std::vector<uint64_t> extra = inclusive_metric(tree, kMetricSamplesEstimated);
  const std::vector<uint64_t> extra_var = inclusive_metric(tree, kMetricSamplesEstimatedVar);
  m.total_samples = n > 0 ? inclusive[0] : 0;

  // Parents precede children, so one forward pass knows each node's kind root and variable.
  constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<NodeKind> category(n, NodeKind::Root);
  std::vector<size_t> var(n, kNone);
  for (size_t i = 1; i < n; ++i) {
    const Node& node = tree.nodes[i];
    category[i] = node.parent == 0 ? node.kind : category[node.parent];
    var[i] = var[node.parent];
    if (var[i] != kNone) continue;  // a variable node below a variable would be malformed
    if (node.kind == NodeKind::HeapVar) var[i] = node.a;
    else if (node.kind == NodeKind::StaticVarNode) var[i] = db.sites.size() + node.a;
    else if (node.kind == NodeKind::UnknownClass) {
      auto [it, fresh] = unknown_var.try_emplace(node.a, m.variables.size());
      if (fresh) {
        Variable v;
        v.name = unknown_class_name(node.a);
        m.variables.push_back(std::move(v));
      }
      var[i] = it->second;
    }
    if (var[i] != kNone) {
      Variable& v = m.variables[var[i]];
      v.samples += inclusive[i];
      v.samples_estimated += static_cast<double>(inclusive[i] + extra[i]);
      v.samples_estimated_var += static_cast<double>(extra_var[i]);
    }
  }
  // Static and unknown variables without a tree node (no samples) stay at 0 = samples.
  take_estimates_from_unattributed(m, unknown_var);

  using CodeKey = std::tuple<std::string, std::string, uint32_t, std::string, uint64_t>;
  std::map<CodeKey, size_t> code_index;
  for (size_t i = 1; i < n; ++i) {
    const Node& node = tree.nodes[i];
    uint64_t samples = node.metric(kMetricSamples);
    if (samples == 0) continue;
    const bool data = is_data_root(category[i]);
    if (data) m.data_samples += samples;

    std::vector<Location> leaf;
    if (node.kind == NodeKind::Frame) {
      expand.append(Frame{node.a, node.b}, leaf);
      Location where = leaf.front();
      // Symbolized locations aggregate over addresses; unsymbolized ones stay per address.
      if (!where.function.empty()) {
        where.offset = 0;
        where.has_address = false;
      }
      CodeKey key{where.function, where.file, where.line, where.module, where.offset};
      auto [it, fresh] = code_index.try_emplace(key, m.locations.size());
      if (fresh) m.locations.push_back(CodeLocation{where, location_label(where), 0, 0, 0});
      m.locations[it->second].samples += samples;
      if (data) m.locations[it->second].data_samples += samples;
    }

    if (var[i] == kNone) continue;
    // Only the leaf and its samples for now: paths are expanded after sorting, and only as many
    // as the report prints.
    AccessPath path;
    path.samples = samples;
    path.leaf = static_cast<uint32_t>(i);
    m.variables[var[i]].accesses.push_back(std::move(path));
  }

  const double total = static_cast<double>(m.total_samples);
  for (Variable& v : m.variables) {
    m.estimated_data_samples += v.samples_estimated;
    v.share = total > 0 ? static_cast<double>(v.samples) / total : 0;
    // Ties keep tree order (the leaves were appended in node order), so output is deterministic.
    std::stable_sort(v.accesses.begin(), v.accesses.end(),
                     [](const AccessPath& x, const AccessPath& y) { return x.samples > y.samples; });
    if (v.accesses.size() > options.max_access_paths) v.accesses.resize(options.max_access_paths);
    for (AccessPath& a : v.accesses) {
      for (size_t j = a.leaf; var[j] != kNone && tree.nodes[j].kind == NodeKind::Frame;
           j = tree.nodes[j].parent)
        expand.append(Frame{tree.nodes[j].a, tree.nodes[j].b}, a.path);
    }
    if (!v.accesses.empty() && !v.accesses[0].path.empty())
      v.hottest_access = location_label(v.accesses[0].path[0]);
  }
  for (CodeLocation& c : m.locations)
    c.share = total > 0 ? static_cast<double>(c.samples) / total : 0;

  std::stable_sort(m.variables.begin(), m.variables.end(), [](const Variable& x, const Variable& y) {
    if (x.samples != y.samples) return x.samples > y.samples;
    return std::tie(x.name, x.kind) < std::tie(y.name, y.kind);
  });
  std::stable_sort(m.locations.begin(), m.locations.end(),
                   [](const CodeLocation& x, const CodeLocation& y) {
                     if (x.samples != y.samples) return x.samples > y.samples;
                     return std::tie(x.label, x.where.module) < std::tie(y.label, y.where.module);
                   });
  add_notes(m, db);
  return m;
}

}  // namespace hpcl::analysis
