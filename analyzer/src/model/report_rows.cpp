// The order and grouping of the report's rows: intervals of the shares, hottest first, the
// runtime libraries' variables folded into one row per family, --sort by imbalance, and each
// variable's spread over ranks and threads (see report_parts.h).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <tuple>

#include "report_parts.h"
#include "runtime_libs.h"
#include "stats.h"

namespace hpcl::analysis {
namespace {

double as_double(uint64_t v) { return static_cast<double>(v); }

}  // namespace

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

void stable_sort_rows(std::vector<Variable>& rows, const std::function<bool(const Variable&, const Variable&)>& less) {
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return less(rows[x], rows[y]); });
  // Position i takes row order[i]: follow each cycle of the permutation with one row in hand.
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] == i || order[i] == SIZE_MAX) continue;
    Variable held = std::move(rows[i]);
    size_t j = i;
    while (order[j] != i) {
      const size_t from = order[j];
      rows[j] = std::move(rows[from]);
      order[j] = SIZE_MAX;
      j = from;
    }
    rows[j] = std::move(held);
    order[j] = SIZE_MAX;
  }
}

// Folds the variables of runtime libraries into one Group row per family (runtime_libs.h). The
// variables are sorted hottest first, so each group's first member gives its hottest access.
// The rows kept move down in place: a second vector of them doubled the peak under --all.
namespace {

RuntimeFamily family_of(const Variable& v) {
  // Unknown data belongs to no library, but what MPI's code read of it ("[unknown data read by
  // MPI]") is MPI's own.
  return v.kind == VariableKind::Unknown && v.data_module.empty() ? RuntimeFamily::None
                                                                  : runtime_family(v.data_module);
}

}  // namespace

std::string runtime_group_of(const Variable& v) {
  const RuntimeFamily f = family_of(v);
  return f == RuntimeFamily::None ? "" : runtime_family_row(f);
}

void group_runtime_variables(ReportModel& m) {
  std::map<RuntimeFamily, Variable> groups;
  std::map<std::pair<RuntimeFamily, std::string>, LibraryDetail> libs;
  size_t kept = 0;
  for (size_t i = 0; i < m.variables.size(); ++i) {
    Variable& v = m.variables[i];
    const RuntimeFamily f = family_of(v);
    if (f == RuntimeFamily::None) {
      if (kept != i) m.variables[kept] = std::move(v);
      ++kept;
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
    // Hottest first: the first kGroupParts with samples are the group's parts.
    if (g.parts.size() < kGroupParts && v.samples_estimated > 0)
      g.parts.push_back({std::move(v.name), v.samples, v.samples_estimated, v.bytes});
    ++m.grouped_variables;
  }
  // The variables without anything measured add their count, bytes and allocations; a group of
  // such alone is a row without samples, as it was when they were built.
  for (const QuietVariable& q : m.quiet) {
    const std::string& module = m.quiet_modules[q.module];
    RuntimeFamily f = runtime_family(module);
    if (f == RuntimeFamily::None) {
      ++m.variables_not_built;
      continue;
    }
    Variable& g = groups[f];
    if (g.name.empty()) {
      g.kind = VariableKind::Group;
      g.name = runtime_family_row(f);
    }
    g.bytes += q.bytes;
    g.allocations += q.allocations;
    LibraryDetail& d = libs[{f, module}];
    d.module = module;
    d.variables += 1;
    d.bytes += q.bytes;
    ++m.grouped_variables;
  }
  std::vector<QuietVariable>().swap(m.quiet);
  for (auto& [key, d] : libs) {
    d.share = m.total_samples ? as_double(d.samples) / as_double(m.total_samples) : 0;
    groups[key.first].libraries.push_back(std::move(d));
  }
  // MPI's own data as one fact: while ranks wait for each other, MPI polls it.
  if (auto mpi = groups.find(RuntimeFamily::Mpi); mpi != groups.end() && m.total_samples > 0 &&
                                                  mpi->second.samples_estimated > 0) {
    char text[512];
    std::snprintf(text, sizeof text,
                  "MPI: %.1f%% of the samples were taken in MPI's code, %.1f%% on its own data "
                  "([MPI runtime data]: its shared-memory segments, queues and free lists, and the untracked "
                  "memory its code read). Ranks waiting for each other poll there: the imbalance column "
                  "tells which of the program's variables have more work on one rank.",
                  100.0 * as_double(m.samples_in_mpi_code) / as_double(m.total_samples),
                  100.0 * mpi->second.samples_estimated / as_double(m.total_samples));
    m.notes.push_back(text);
  }
  m.variables.erase(m.variables.begin() + static_cast<std::ptrdiff_t>(kept), m.variables.end());
  for (auto& [f, g] : groups) {
    std::stable_sort(g.libraries.begin(), g.libraries.end(),
                     [](const LibraryDetail& x, const LibraryDetail& y) { return x.samples > y.samples; });
    set_interval(g, m.total_samples);
    m.variables.push_back(std::move(g));
  }
  stable_sort_rows(m.variables, hotter);
  if (m.grouped_variables > 0)
    m.notes.push_back(std::to_string(m.grouped_variables) +
                      (m.grouped_variables == 1 ? " variable" : " variables") +
                      " of runtime libraries (MPI, OpenMP, C/C++, Fortran, numerical libraries, allocators) " +
                      (m.grouped_variables == 1 ? "is" : "are") +
                      " shown as one row per library family; --no-group lists them one by one.");
}

namespace {

// The model's variable of a BALANCE or FIRST_TOUCH entry; SIZE_MAX when it has none.
size_t variable_of(BalanceOwner owner, uint32_t index, const Profile& db, const RowMap& rows,
                   const std::map<uint32_t, size_t>& unknown_var) {
  const size_t k = owner == BalanceOwner::Site ? index : db.sites.size() + index;
  if (owner == BalanceOwner::Site || owner == BalanceOwner::Static)
    return k < rows.size() ? rows[k] : SIZE_MAX;
  if (auto it = unknown_var.find(index); owner == BalanceOwner::Unknown && it != unknown_var.end())
    return it->second;
  return SIZE_MAX;
}

}  // namespace

// Who first touched each variable with page faults: the threads (FIRST_TOUCH) and the nodes.
void add_first_touch(ReportModel& m, const Profile& db, const RowMap& rows,
                     const std::map<uint32_t, size_t>& unknown_var) {
  const Balance& b = db.balance;
  for (const VariableFirstTouch& e : b.first_touch) {
    const size_t i = variable_of(e.owner, e.index, db, rows, unknown_var);
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
// had no samples anywhere. Not a stack variable: BALANCE has no entry for the locals, which the
// merge names only after it summed the ranks and threads; theirs come from STACK_THREADS
// (add_stack_balance).
void add_balance(ReportModel& m, const Profile& db, const RowMap& rows,
                 const std::map<uint32_t, size_t>& unknown_var) {
  const Balance& b = db.balance;
  if (!b.present()) return;
  m.balance_ranks = b.rank_groups;
  m.balance_threads = b.thread_groups;
  for (Variable& v : m.variables) {
    if (v.kind == VariableKind::Stack) continue;
    v.has_balance = true;
    v.ranks = describe(Spread{}, b.rank_groups);
    v.threads = describe(Spread{}, b.thread_groups);
  }
  for (const VariableBalance& e : b.variables) {
    const size_t i = variable_of(e.owner, e.index, db, rows, unknown_var);
    if (i >= m.variables.size()) continue;
    m.variables[i].ranks = describe(e.ranks, b.rank_groups);
    m.variables[i].threads = describe(e.threads, b.thread_groups);
  }
}

void sort_variables(ReportModel& m, VariableOrder order) {
  m.order = order;
  if (order == VariableOrder::Samples) return;
  const bool threads = order == VariableOrder::ThreadImbalance;
  // Only the program's variables are ranked: `[unknown data]` and `[stack]` gather unrelated
  // data, and the imbalance of such a mix (often MPI's or OpenMP's polling) names nothing to fix.
  auto ranked = [&](const Variable& v) {
    return v.has_balance && v.share >= kImbalanceMinShare &&
           (v.kind == VariableKind::Heap || v.kind == VariableKind::Static || v.kind == VariableKind::Stack);
  };
  auto imbalance = [&](const Variable& v) {
    return threads ? v.threads.imbalance : v.ranks.imbalance;
  };
  stable_sort_rows(m.variables, [&](const Variable& x, const Variable& y) {
    if (ranked(x) != ranked(y)) return ranked(x);
    if (ranked(x) && imbalance(x) != imbalance(y)) return imbalance(x) > imbalance(y);
    return hotter(x, y);
  });
}

const char* kind_name(VariableKind kind) {
  switch (kind) {
    case VariableKind::Heap: return "heap";
    case VariableKind::Static: return "static";
    case VariableKind::Unknown: return "unknown";
    case VariableKind::Group: return "group";
    case VariableKind::Stack: return "stack";
  }
  return "unknown";
}

}  // namespace hpcl::analysis
