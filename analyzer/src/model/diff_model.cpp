// Builds the diff model (diff_model.h) from the report models of two databases: matching,
// scaling to one sampling rate, intervals and the significance rule (docs/REPORT.md "diff").
#include "diff_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include "stats.h"
#include "hpcl/text/words.h"

namespace hpcl::analysis {

const char* match_name(MatchKind m) {
  switch (m) {
    case MatchKind::Exact: return "exact";
    case MatchKind::Loose: return "loose";
    case MatchKind::New: return "new";
    case MatchKind::Gone: return "gone";
  }
  return "?";
}

namespace {

std::optional<double> parse_rate(const std::string& s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !(v > 0)) return std::nullopt;
  return v;
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// One frame of an allocation path: function, file and line (loose: the function alone). A frame
// without a name has only its module and offset, and an unnamed function's name holds its start
// address: both move in a rebuilt binary, so the loose key keeps only the module.
std::string frame_key(const Location& l, bool loose) {
  const std::string module(basename_of(l.module));
  if (l.function.empty() || l.unnamed_function)
    return loose ? module : module + "+" + hex(l.offset);
  if (loose) return l.function;
  return l.function + "@" + std::string(basename_of(l.file)) + ":" + std::to_string(l.line);
}

// An access path's key: the function names along it, innermost first.
std::string access_key(const AccessPath& a) {
  std::string key;
  for (const Location& l : a.path) key += frame_key(l, /*loose=*/true) + "\n";
  return key;
}

std::string callers_of(const AccessPath& a) {
  std::string out;
  for (size_t i = 1; i < a.path.size() && i <= 2; ++i) {
    const Location& l = a.path[i];
    out += (i > 1 ? " < " : "") + (l.function.empty() ? std::string(basename_of(l.module)) : l.function.str());
  }
  return out;
}

// What one run contributes: its report model and the factor that puts its samples on the
// common scale (AFTER's rate scaling, and the division by processes).
struct Side {
  ReportModel model;
  double factor = 1;
};

DiffSide side_of(const Variable* v, const Side& s) {
  DiffSide d;
  const uint64_t total = s.model.total_samples;
  ShareInterval i = v != nullptr ? share_interval(v->samples, v->samples_estimated, v->samples_estimated_var, total)
                                 : share_interval(0, 0, 0, total);
  d.present = v != nullptr;
  d.raw_samples = v != nullptr ? v->samples : 0;
  d.samples = (v != nullptr ? v->samples_estimated : 0) * s.factor;
  const double scaled_total = static_cast<double>(total) * s.factor;
  d.low = i.low * scaled_total;
  d.high = i.high * scaled_total;
  d.share = i.share;
  d.share_low = i.low;
  d.share_high = i.high;
  return d;
}

void add_accesses(const Variable* v, const Side& s, bool after, std::map<std::string, AccessChange>* out) {
  if (v == nullptr) return;
  for (const AccessPath& a : v->accesses) {
    AccessChange& c = (*out)[access_key(a)];
    if (c.label.empty() || after) {
      c.label = a.path.empty() ? "?" : location_label(a.path[0]);
      c.callers = callers_of(a);
    }
    (after ? c.after : c.before) += static_cast<double>(a.samples) * s.factor;
  }
}

VariableDiff diff_of(const Variable* b, const Variable* a, MatchKind match, const Side& before,
                     const Side& after, size_t access_paths) {
  VariableDiff d;
  const Variable& named = a != nullptr ? *a : *b;
  d.kind = named.kind;
  d.name = named.name;
  d.match = match;
  d.allocation_path = named.allocation_path;
  d.module = named.module;
  d.before = side_of(b, before);
  d.after = side_of(a, after);
  d.delta = d.after.samples - d.before.samples;
  if (d.before.samples > 0) d.ratio = d.after.samples / d.before.samples;
  d.share_change = d.after.share - d.before.share;
  d.significant = d.after.low > d.before.high || d.after.high < d.before.low;
  std::map<std::string, AccessChange> paths;
  add_accesses(b, before, false, &paths);
  add_accesses(a, after, true, &paths);
  for (auto& [key, c] : paths) d.accesses.push_back(std::move(c));
  std::stable_sort(d.accesses.begin(), d.accesses.end(), [](const AccessChange& x, const AccessChange& y) {
    double mx = std::max(x.before, x.after), my = std::max(y.before, y.after);
    return mx != my ? mx > my : x.label < y.label;
  });
  if (access_paths > 0 && d.accesses.size() > access_paths) d.accesses.resize(access_paths);
  return d;
}

// A site's allocation path as its report's variable has it: the API's pseudo-frame, then the
// frames expanded (match_key reads only these).
void site_path(const AllocSite& site, const PathExpander& expander, Variable& probe) {
  probe.kind = VariableKind::Heap;
  probe.allocation_path.assign(1, Location{alloc_api_name(site.api), {}, 0, {}, 0, false});
  expander.append_path(site.frames, /*allocation=*/true, probe.allocation_path);
}

// One pass over a run's allocation sites, measured or not, each path expanded once as its
// report would. Counts how many of the run's variables have each loose key (by its hash; a
// collision only makes a key look ambiguous): the sites, and the statics of its model. And finds
// the other run's heap variables in `wanted` (exact key -> their index) that have a site here:
// their indices go to `found`, in this run's site order.
using LooseCounts = std::unordered_map<uint64_t, uint32_t>;
LooseCounts scan_sites(const Profile& db, const ReportModel& model, std::map<std::string, size_t> wanted,
                       std::vector<size_t>* found) {
  LooseCounts counts;
  std::hash<std::string> hash;
  Variable probe;
  if (model.expander != nullptr)
    for (const AllocSite& site : db.sites) {
      site_path(site, *model.expander, probe);
      if (std::string k = match_key(probe, true); !k.empty()) ++counts[hash(k)];
      if (wanted.empty()) continue;
      if (auto it = wanted.find(match_key(probe, false)); it != wanted.end()) {
        found->push_back(it->second);
        wanted.erase(it);
      }
    }
  for (const Variable& v : model.variables)
    if (v.kind == VariableKind::Static)
      if (std::string k = match_key(v, true); !k.empty()) ++counts[hash(k)];
  return counts;
}

// Pairs the variables of the two runs whose keys are equal, in the models' order (samples
// descending) among equal keys; marks them used. A loose key pairs only when it is one
// variable's in each whole run (`counts`, loose only): of a stripped program it keeps only the
// modules along the path, and on CP2K thousands of sites shared such keys, so unrelated
// variables were paired as one that had moved.
void pair_by_key(const std::vector<Variable>& bv, const std::vector<Variable>& av, bool loose,
                 std::vector<bool>* b_used, std::vector<bool>* a_used,
                 std::vector<std::pair<size_t, size_t>>* pairs, const LooseCounts* b_counts = nullptr,
                 const LooseCounts* a_counts = nullptr) {
  std::map<std::string, std::vector<size_t>> after_by_key;
  for (size_t i = 0; i < av.size(); ++i) {
    if ((*a_used)[i]) continue;
    std::string k = match_key(av[i], loose);
    if (!k.empty()) after_by_key[k].push_back(i);
  }
  auto unique_in = [](const LooseCounts* counts, const std::string& k) {
    if (counts == nullptr) return true;
    auto it = counts->find(std::hash<std::string>{}(k));
    return it != counts->end() && it->second == 1;
  };
  std::map<std::string, size_t> before_count;
  if (loose)
    for (size_t i = 0; i < bv.size(); ++i)
      if (!(*b_used)[i]) ++before_count[match_key(bv[i], loose)];
  std::map<std::string, size_t> next;
  for (size_t i = 0; i < bv.size(); ++i) {
    if ((*b_used)[i]) continue;
    std::string k = match_key(bv[i], loose);
    auto it = after_by_key.find(k);
    if (k.empty() || it == after_by_key.end()) continue;
    if (loose && (it->second.size() != 1 || before_count[k] != 1 || !unique_in(b_counts, k) ||
                  !unique_in(a_counts, k)))
      continue;
    size_t& n = next[k];
    if (n >= it->second.size()) continue;
    size_t j = it->second[n++];
    (*b_used)[i] = (*a_used)[j] = true;
    pairs->emplace_back(i, j);
  }
}

std::string samples_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string match_key(const Variable& v, bool loose) {
  switch (v.kind) {
    case VariableKind::Heap: {
      // Loosely, a path whose code has no function name (a stripped program) is its modules
      // alone: nothing to tell one site from another, so no loose match.
      if (loose && std::none_of(v.allocation_path.begin(), v.allocation_path.end(), [](const Location& l) {
            return l.has_address && !l.function.empty() && !l.unnamed_function;
          }))
        return "";
      std::string key = "heap";
      for (const Location& l : v.allocation_path) key += "\n" + frame_key(l, loose);
      return key;
    }
    case VariableKind::Static:
      return "static\n" + std::string(basename_of(v.module)) + "\n" + (loose ? v.name : v.symbol);
    case VariableKind::Stack: {
      // Loosely, a local by its name in its function: its declaration's line may move.
      const std::string local = v.name.substr(0, v.name.find(" ("));
      return "stack\n" + std::string(basename_of(v.module)) + "\n" + v.owner + "\n" + (loose ? local : v.name);
    }
    case VariableKind::Unknown:
    case VariableKind::Group:
      // A name is all they have: no looser match.
      return loose ? "" : std::string(kind_name(v.kind)) + "\n" + v.name;
  }
  return "";
}

DiffModel build_diff_model(const Profile& before_db, const Profile& after_db, const DiffOptions& options) {
  DiffModel m;
  m.per_process = options.per_process;
  Side sides[2];
  RunTotals* totals[2] = {&m.before, &m.after};
  const Profile* dbs[2] = {&before_db, &after_db};
  for (int k = 0; k < 2; ++k) {
    ReportModelOptions plain;
    plain.access_evidence = false;  // a diff compares samples, not what the binaries say
    // Only the variables with something measured: every one of CP2K's 212,000 sites built on
    // both sides took 1.7 GB. A variable measured in one run only is looked for among all the
    // other run's sites below.
    plain.all_variables = false;
    sides[k].model = build_report_model(*dbs[k], plain);
    const ReportModel& r = sides[k].model;
    RunTotals& t = *totals[k];
    t.raw_samples = r.total_samples;
    t.data_share = r.total_samples > 0 ? static_cast<double>(r.data_samples) / r.total_samples : 0;
    t.processes = r.processes;
    t.threads = r.threads;
    t.source = r.source;
    if (const std::string* rate = dbs[k]->find_meta("rate")) t.rate = *rate;
  }

  // One sampling rate: the soft source's rate is samples per second (a sample at 2000/s stands
  // for half the time of one at 1000/s); a hardware source's is its period (events per sample).
  auto rb = parse_rate(m.before.rate), ra = parse_rate(m.after.rate);
  const bool same_source = m.before.source == m.after.source && m.before.source != "mixed";
  if (rb && ra && same_source && *rb != *ra) {
    m.after_scale = m.before.source == "soft" ? *rb / *ra : *ra / *rb;
    m.notes.push_back("AFTER was sampled at rate " + m.after.rate + ", BEFORE at " + m.before.rate +
                      ": AFTER's samples are multiplied by " + samples_text(m.after_scale) +
                      " to put them on BEFORE's rate");
  } else if (!(rb && ra && same_source)) {
    m.notes.push_back("the sampling rates cannot be compared (source " + m.before.source + " rate " +
                      m.before.rate + " vs source " + m.after.source + " rate " + m.after.rate +
                      "): samples are compared as they are");
  }
  sides[1].factor = m.after_scale;
  if (options.per_process) {
    for (int k = 0; k < 2; ++k)
      if (totals[k]->processes > 0) sides[k].factor /= static_cast<double>(totals[k]->processes);
  } else if (m.before.processes != m.after.processes) {
    m.notes.push_back("BEFORE ran " + count_of(m.before.processes, "process", "processes") + ", AFTER " +
                      std::to_string(m.after.processes) + ": --per-process compares per-process means");
  }
  for (int k = 0; k < 2; ++k) {
    RunTotals& t = *totals[k];
    t.samples = static_cast<double>(t.raw_samples) * sides[k].factor;
    auto rate = parse_rate(t.rate);
    if (t.source == "soft" && rate) {
      double seconds = static_cast<double>(t.raw_samples) / *rate;
      if (options.per_process && t.processes > 0) seconds /= static_cast<double>(t.processes);
      t.cpu_seconds = seconds;
    }
  }

  const std::vector<Variable>& bv = sides[0].model.variables;
  const std::vector<Variable>& av = sides[1].model.variables;
  std::vector<bool> b_used(bv.size()), a_used(av.size());
  std::vector<std::pair<size_t, size_t>> exact, loose;
  pair_by_key(bv, av, false, &b_used, &a_used, &exact);

  // A static variable lives as long as its module, but a profile names only the statics its
  // samples touched: one with a few samples in one run and none in the other (matrix_walk's
  // 2-sample `last_sum`) would read "gone" though it is still there. When the other run loaded
  // its module, it is matched, with no samples on that side; "gone" and "new" are left to
  // statics of modules one run did not load (and to renamed symbols the loose match missed).
  auto modules_of = [](const Profile& db) {
    std::set<std::string> names;
    for (const Module& mod : db.modules) names.insert(std::string(basename_of(mod.path)));
    return names;
  };
  const std::set<std::string> b_modules = modules_of(before_db), a_modules = modules_of(after_db);
  std::vector<Variable> unsampled;  // the zero-sample counterparts, referred to by index
  std::vector<std::pair<size_t, size_t>> b_only, a_only;  // (index, counterpart in unsampled)
  auto counterpart = [&](const Variable& v) {
    Variable z;
    z.kind = v.kind;
    z.name = v.name;
    z.symbol = v.symbol;
    z.module = v.module;
    z.bytes = v.bytes;
    z.allocator = v.allocator;
    z.allocation_path = v.allocation_path;  // a heap one's key is its path: the same frames
    unsampled.push_back(std::move(z));
    return unsampled.size() - 1;
  };
  auto static_of_loaded = [](const Variable& v, const std::set<std::string>& modules) {
    return v.kind == VariableKind::Static && modules.count(std::string(basename_of(v.module))) > 0;
  };
  // A heap variable measured in one run only whose allocation site the other run has too, with
  // nothing measured (so its model did not build it): matched, with no samples on that side.
  auto wanted_of = [](const std::vector<Variable>& vars, const std::vector<bool>& used) {
    std::map<std::string, size_t> wanted;
    for (size_t i = 0; i < vars.size(); ++i)
      if (!used[i] && vars[i].kind == VariableKind::Heap) wanted.emplace(match_key(vars[i], false), i);
    return wanted;
  };
  std::vector<size_t> b_found, a_found;
  const LooseCounts a_counts = scan_sites(after_db, sides[1].model, wanted_of(bv, b_used), &b_found);
  const LooseCounts b_counts = scan_sites(before_db, sides[0].model, wanted_of(av, a_used), &a_found);
  for (size_t i : b_found) {
    b_used[i] = true;
    b_only.emplace_back(i, counterpart(bv[i]));
  }
  for (size_t j : a_found) {
    a_used[j] = true;
    a_only.emplace_back(j, counterpart(av[j]));
  }
  pair_by_key(bv, av, true, &b_used, &a_used, &loose, &b_counts, &a_counts);
  for (size_t i = 0; i < bv.size(); ++i)
    if (!b_used[i] && static_of_loaded(bv[i], a_modules)) {
      b_used[i] = true;
      b_only.emplace_back(i, counterpart(bv[i]));
    }
  for (size_t j = 0; j < av.size(); ++j)
    if (!a_used[j] && static_of_loaded(av[j], b_modules)) {
      a_used[j] = true;
      a_only.emplace_back(j, counterpart(av[j]));
    }

  std::string loose_names;
  auto keep = [&](const Variable* b, const Variable* a, MatchKind match) {
    if ((b == nullptr || b->samples == 0) && (a == nullptr || a->samples == 0)) return;
    m.variables.push_back(diff_of(b, a, match, sides[0], sides[1], options.access_paths));
    if (match == MatchKind::Loose)
      loose_names += (loose_names.empty() ? "" : "; ") + b->name + " -> " + a->name;
  };
  for (auto [i, j] : exact) keep(&bv[i], &av[j], MatchKind::Exact);
  for (auto [i, j] : loose) keep(&bv[i], &av[j], MatchKind::Loose);
  for (auto [i, z] : b_only) keep(&bv[i], &unsampled[z], MatchKind::Exact);
  for (auto [j, z] : a_only) keep(&unsampled[z], &av[j], MatchKind::Exact);
  for (size_t i = 0; i < bv.size(); ++i)
    if (!b_used[i]) keep(&bv[i], nullptr, MatchKind::Gone);
  for (size_t j = 0; j < av.size(); ++j)
    if (!a_used[j]) keep(nullptr, &av[j], MatchKind::New);
  if (!loose_names.empty())
    m.notes.push_back("matched loosely (same functions, lines or symbol moved): " + loose_names);

  std::stable_sort(m.variables.begin(), m.variables.end(), [](const VariableDiff& x, const VariableDiff& y) {
    double ax = std::fabs(x.delta), ay = std::fabs(y.delta);
    if (ax != ay) return ax > ay;
    return x.name < y.name;
  });
  return m;
}

}  // namespace hpcl::analysis
