// The terminal report: a short header with the caveats and what the samples cover, then an aligned
// table of the top variables (data view) or source locations (code view) that fits the terminal,
// and for variables with an offset histogram a line saying which part of them is hot.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "hpcl/text/cxx_names.h"
#include "hpcl/text/format_common.h"
#include "formatters.h"
#include "text_evidence.h"
#include "model/stats.h"
#include "hpcl/text/table_names.h"
#include "hpcl/text/words.h"

namespace hpcl::analysis {
namespace {

struct Column {
  const char* header;
  bool right;        // numbers align right
  size_t min_width;  // 0: never shortened; else cells are shortened down to this many columns
  int drop_order;    // 0: always shown; else dropped (lowest first) when the table cannot fit
  // How hard the column holds on to its width when the table must narrow: columns give way in
  // proportion, so the row's name (3) keeps more than the columns beside it (2).
  int weight = 2;
};

constexpr size_t kGap = 2;  // spaces between columns

size_t table_width(const std::vector<size_t>& width, const std::vector<bool>& shown) {
  size_t total = 0, n = 0;
  for (size_t c = 0; c < width.size(); ++c)
    if (shown[c]) total += width[c], ++n;
  return total + (n > 0 ? (n - 1) * kGap : 0);
}

// Prints header and rows with each column as wide as its widest cell, within `limit` columns
// (0 = none): the widest shortenable column gives way first, so long names share the room
// evenly; when all are at their minimum, optional columns are dropped.
// The last column is not padded, so lines carry no trailing spaces. Returns which columns were
// shown.
std::vector<bool> print_table(const std::vector<Column>& cols, std::vector<std::vector<std::string>> rows,
                 size_t limit, std::ostream& out) {
  const size_t n = cols.size();
  // One row, one line: a name holding a line break would start a row of its own.
  for (auto& row : rows)
    for (std::string& cell : row) cell = printable_line(cell);
  std::vector<size_t> width(n);
  std::vector<bool> shown(n, true);
  for (size_t c = 0; c < n; ++c) {
    width[c] = display_width(cols[c].header);
    for (const auto& row : rows) width[c] = std::max(width[c], display_width(row[c]));
  }
  const std::vector<size_t> natural = width;
  // The row's name (the heaviest column) keeps 3/10 of the table, or its natural width, while an
  // optional column can still be dropped: squeezed to its minimum beside all the others, it read
  // worse at 120 columns than at 80, where the others were dropped (CP2K's stripped names: 23
  // columns at 120, 31 at 80).
  // When even that is too wide (the columns that always stay: an estimate "273 (≈221)", the sort
  // column), shortenable columns go below their minimum, down to kLastResortWidth: a short name
  // reads better than a table wider than the terminal, whose lines the terminal folds.
  constexpr size_t kLastResortWidth = 12;
  int heaviest = 0;
  for (const Column& c : cols) heaviest = std::max(heaviest, c.weight);
  bool relaxed = false, last_resort = false;
  auto floor_of = [&](size_t c) {
    const size_t least = last_resort ? std::min(cols[c].min_width, kLastResortWidth) : cols[c].min_width;
    size_t f = std::max(least, display_width(cols[c].header));
    if (!relaxed && cols[c].weight == heaviest && heaviest > 2)
      f = std::max(f, std::min(natural[c], limit * 3 / 10));
    return f;
  };
  while (limit > 0 && table_width(width, shown) > limit) {
    size_t give = n;
    for (size_t c = 0; c < n; ++c)
      if (shown[c] && cols[c].min_width > 0 && width[c] > floor_of(c) &&
          (give == n || width[c] * size_t(cols[give].weight) > width[give] * size_t(cols[c].weight)))
        give = c;
    if (give != n) {
      --width[give];
      continue;
    }
    size_t drop = n;  // nothing left to shorten: drop an optional column and start again
    for (size_t c = 0; c < n; ++c)
      if (shown[c] && cols[c].drop_order > 0 && (drop == n || cols[c].drop_order < cols[drop].drop_order))
        drop = c;
    if (drop == n) {
      if (last_resort) break;  // as narrow as it gets
      // Every optional column is gone: the name gives way too, then all go below their minimum.
      if (relaxed) last_resort = true;
      relaxed = true;
      continue;
    }
    shown[drop] = false;
    width = natural;
  }
  // Shortened cells are often narrower than their column (a name loses its namespaces, not one
  // character at a time): the room they leave goes to the columns still cut, a few times over.
  std::vector<std::vector<std::string>> fitted(n);
  auto fit = [&](size_t c) {
    std::vector<std::string> cells;
    for (const auto& row : rows) cells.push_back(row[c]);
    fitted[c] = fit_column(cells, width[c]);
    size_t used = display_width(cols[c].header);
    for (const std::string& cell : fitted[c]) used = std::max(used, display_width(cell));
    return used;
  };
  for (size_t c = 0; c < n; ++c)
    if (shown[c] && cols[c].min_width > 0) width[c] = fit(c);
  for (int round = 0; round < 4 && limit > 0 && table_width(width, shown) < limit; ++round) {
    size_t spare = limit - table_width(width, shown), cut = 0;
    for (size_t c = 0; c < n; ++c) cut += shown[c] && cols[c].min_width > 0 && width[c] < natural[c];
    if (cut == 0) break;
    for (size_t c = 0; c < n && spare > 0; ++c) {
      if (!shown[c] || cols[c].min_width == 0 || width[c] >= natural[c]) continue;
      const size_t more = std::min(natural[c] - width[c], (spare + cut - 1) / cut);
      --cut;
      const size_t before = width[c];
      width[c] += more;
      width[c] = fit(c);
      spare -= std::min(spare, width[c] > before ? width[c] - before : 0);
    }
  }
  for (size_t c = 0; c < n; ++c)
    if (shown[c] && cols[c].min_width > 0)
      for (size_t r = 0; r < rows.size(); ++r) rows[r][c] = std::move(fitted[c][r]);
  size_t last = 0;
  for (size_t c = 0; c < n; ++c)
    if (shown[c]) last = c;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    bool first = true;
    for (size_t c = 0; c < n; ++c) {
      if (!shown[c]) continue;
      if (!first) s += std::string(kGap, ' ');
      first = false;
      s += cols[c].right ? pad_left(cells[c], width[c]) : c == last ? cells[c] : pad_right(cells[c], width[c]);
    }
    out << s << '\n';
  };
  std::vector<std::string> headers;
  for (const Column& c : cols) headers.emplace_back(c.header);
  line(headers);
  for (const auto& row : rows) line(row);
  return shown;
}

// "(hidden at this width: allocator / module, hottest access; --wide shows them)", or
// "" when print_table showed every column.
std::string hidden_columns_note(const std::vector<Column>& cols, const std::vector<bool>& shown,
                                size_t limit) {
  std::string names;
  size_t hidden = 0;
  for (size_t c = 0; c < cols.size(); ++c) {
    if (shown[c]) continue;
    names += std::string(hidden++ ? ", " : "") + cols[c].header;
  }
  if (hidden == 0) return "";
  // Wrapped as the notes are: three columns named take 88 columns on one line.
  std::ostringstream note;
  print_wrapped("(hidden at this width:", names + "; --wide shows " + (hidden == 1 ? "it" : "them") + ")",
                limit, note);
  return note.str();
}

void print_note(const std::string& note, size_t limit, std::ostream& out) {
  print_wrapped("Note:", note, limit, out);
}

std::string fraction_of(uint64_t part, uint64_t whole) {
  return percent(whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0);
}

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// On a one-node machine every page is local by construction: the text leaves NUMA out.
bool numa_worth_showing(const ReportModel& m) { return m.numa_nodes != 1; }

// The memory lines under the header, as `perf mem` and VTune summarise a run: mean latency,
// where the data came from, TLB misses, remote NUMA pages; then the assessment (slide 12 of
// HPCToolkit's SC'13 talk). Only for a database with memory metrics: a soft-source report keeps
// its header, whose "with a data address" share is what the soft source can say.
void print_memory_header(const ReportModel& m, size_t limit, std::ostream& out) {
  const MemoryStats& s = m.memory;
  if (!s.present()) return;
  const bool numa = numa_worth_showing(m);
  const size_t width = limit == 0 ? 100 : limit;
  if (s.has_mean_latency)
    out << "latency: mean " << fixed(s.mean_latency, 1) << " cycles over "
        << count_of(s.sum(kMetricLatencySamples), "sampled access", "sampled accesses") << "\n";
  if (!s.levels.empty()) {
    std::string line = "data sources:";
    const std::string tail = "  (" + count_of(s.level_samples, "sample") + ")";
    size_t shown = 0;
    for (const LevelShare& l : s.levels) {
      std::string item = "  " + memory_metric_name(l.id) + " " + percent(l.share);
      std::string more = "  +" + std::to_string(s.levels.size() - shown - 1) + " more";
      if (display_width(line + item + (shown + 1 < s.levels.size() ? more : "") + tail) > width) break;
      line += item;
      ++shown;
    }
    if (shown < s.levels.size()) line += "  +" + std::to_string(s.levels.size() - shown) + " more";
    out << line << tail << '\n';
  }
  if (s.has_tlb || (numa && s.has_numa)) {
    std::string line;
    if (s.has_tlb)
      line += "TLB miss: " + percent(s.tlb_miss_rate) + " of " +
              count_of(s.sum(kMetricTlbHit) + s.sum(kMetricTlbMiss), "sample");
    if (numa && s.has_numa)
      line += std::string(line.empty() ? "" : "   ") + "remote NUMA: " + percent(s.numa_remote_share) +
              " of " + count_of(s.sum(kMetricNumaLocal) + s.sum(kMetricNumaRemote), "sample");
    out << line << '\n';
  }
  const MemoryAssessment& a = m.assessment;
  std::string text;
  if (a.verdict != Boundness::Unknown) {
    text = std::string(boundness_name(a.verdict)) + ": " + fixed(a.latency_per_instruction, 3) +
           " cycles of access latency per instruction (" +
           (a.verdict == Boundness::MemoryBound ? "above " : "at most ") +
           fixed(kMemoryBoundLatencyPerInstruction, 1) + ")";
    if (a.cycles_per_instruction > 0) text += "; CPI " + fixed(a.cycles_per_instruction, 2);
    text += ".";
  } else if (!a.has_latency) {
    text = "no access latency in this database (source " + (m.source.empty() ? "unknown" : m.source) +
           "), so memory- vs CPU-bound is not known; " + percent(a.memory_instruction_share) +
           " of the samples were on memory instructions (with a data address, above).";
  } else {
    text = "latency per instruction not known: the database lacks";
    for (size_t i = 0; i < a.missing.size(); ++i)
      text += std::string(i == 0 ? " " : " and ") +
              (a.missing[i] == "period" ? "the source's period (META rate of a hardware source)"
                                        : "the program's instruction count (META instructions)");
    text += "; mean latency per sampled access above.";
  }
  print_wrapped("assessment:", text, limit, out);
}

// Which ranks used which source when they did not all use one, and why a process or a thread
// sampled with another source than it asked for.
void print_sources(const ReportModel& m, size_t limit, std::ostream& out) {
  if (m.source_ranks.size() > 1) {
    std::string text;
    for (const auto& [source, who] : m.source_ranks) {
      const bool several = who.find_first_of(",-") != std::string::npos || who.find("processes") != std::string::npos;
      const bool ranks = who.find("process") == std::string::npos;
      text += (text.empty() ? "" : ", ") + source + " on " + (ranks ? several ? "ranks " : "rank " : "") + who;
    }
    print_wrapped("sources:", text, limit, out);
  }
  for (const SourceFallback& f : m.source_fallbacks)
    print_wrapped("fallback:", f.process + " asked for " + f.requested + ": " + f.reason, limit, out);
  if (m.hw_fallback_threads > 0)
    print_wrapped("fallback:", std::to_string(m.hw_fallback_threads) + " thread" +
                  (m.hw_fallback_threads == 1 ? "" : "s") +
                  " sampled with soft: the hardware source's events could not start there", limit, out);
}

void print_header(const ReportModel& m, const char* view, size_t limit, std::ostream& out) {
  out << "hpcprof-lite report, " << view << " view\n";
  // The soft source's rate sets the precision of every share below (and runs at two rates are
  // compared by diff on one rate): "soft at 500/s".
  out << "source: " << (m.source.empty() ? "unknown" : m.source);
  if (m.soft_rate > 0) out << " at " << m.soft_rate << "/s";
  out << "   processes: " << m.processes << "   threads: " << m.threads;
  if (m.ranks > 0) out << "   ranks: " << m.ranks;  // 0 without MPI
  out << '\n';
  print_sources(m, limit, out);
  const uint64_t total = m.total_samples;
  out << "samples: " << total << "   with a data address: " << m.data_samples << " ("
      << fraction_of(m.data_samples, total) << ")   without: " << m.no_data_samples << " ("
      << fraction_of(m.no_data_samples, total) << ")\n";
  out << "untracked data: " << m.unknown_samples << " (" << fraction_of(m.unknown_samples, total)
      << ": [stack], [untracked heap], [unknown data]";
  if (m.samples_unresolved > 0) out << "; " << m.samples_unresolved << " unresolved";
  out << ")\n";
  if (m.stack_samples > 0)
    out << "stack data: " << m.stack_samples + m.stack_unplaced << " ("
        << fraction_of(m.stack_samples + m.stack_unplaced, total) << "): " << m.stack_samples
        << " named by frame, " << m.stack_unplaced << " not placed ([stack], "
        << fraction_of(m.stack_unplaced, total) << ")\n";
  if (m.samples_in_runtime > 0)
    out << "in the profiler's own work: " << m.samples_in_runtime << " ("
        << fraction_of(m.samples_in_runtime, total) << ", code time, no data address)\n";
  if (m.samples_dropped > 0 || m.has_sample_details) {
    out << "dropped: " << m.samples_dropped;
    if (m.samples_taken > 0)
      out << " of " << m.samples_taken << " taken (" << fraction_of(m.samples_dropped, m.samples_taken) << ')';
    if (m.samples_dropped > m.samples_dropped_nested) out << ", the thread's tree was full";
    if (m.samples_dropped_nested > 0)
      out << ", " << m.samples_dropped_nested << " inside PAPI overflow handlers";
    out << '\n';
  }
  if (m.has_page_faults) {
    out << "page faults (first touch): " << m.page_faults;
    if (m.page_faults_lost > 0) out << "; " << m.page_faults_lost << " lost (ring buffer full)";
    if (m.page_faults_throttled > 0)
      out << "; throttled " << m.page_faults_throttled << " times by the kernel (faults missed)";
    out << '\n';
  }
  for (const Counter& c : m.counters) {
    out << "counter " << c.event << ": " << c.total << " events";
    if (c.period > 0) out << " (one sample every " << c.period << "; the code view shows where)";
    out << '\n';
  }
  print_memory_header(m, limit, out);
  for (const std::string& note : m.notes) print_note(note, limit, out);
  out << '\n';
}

// "12.3% ±0.8": the share and the larger side of its 95% interval, in percentage points.
std::string share_cell(const Variable& v) {
  double pm = std::max(v.share - v.share_low, v.share_high - v.share) * 100.0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s ±%.1f", percent(v.share).c_str(), pm);
  return buf;
}

// The raw samples, and beside them the estimate when it differs by a sample or more: "13 (≈208)"
// for a sampled variable standing for all its blocks, "1358 (≈411)" for [untracked heap], which
// gives up what the estimates claim. The share and the order follow the estimate, so a row of 13
// raw samples can rank above one of 146: the cell says why.
std::string samples_cell(const Variable& v, bool* differs) {
  std::string cell = std::to_string(v.samples);
  const double est = v.samples_estimated;
  if (std::abs(est - static_cast<double>(v.samples)) >= 0.5) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " (\u2248%.0f)", est);
    cell += buf;
    *differs = true;
  }
  return cell;
}

// "1.33 r1": max / mean over the ranks and the rank of the max ("pid 42" without a rank);
// "-" for a Group row or a variable without samples.
std::string imbalance_cell(const Variable& v) {
  if (!v.has_balance || v.ranks.with == 0) return "-";
  const GroupId& g = v.ranks.max_group;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s%s", v.ranks.imbalance, g.rank >= 0 ? "r" : "",
                group_label(g, false).c_str());
  return buf;
}

}  // namespace

// "/dev/shm/vader_segment.vm.0.1 3.1%, [untracked heap read by MPI] 2.0%, and 230 more": the
// hottest variables a group row folds in, with their shares of all samples. "" for other rows.
std::string group_parts_summary(const Variable& v, uint64_t total_samples) {
  if (v.kind != VariableKind::Group || v.parts.empty() || total_samples == 0) return {};
  std::vector<std::string> names;
  for (const GroupPart& p : v.parts) names.push_back(p.name);
  simplify_names(names);
  std::string out;
  size_t listed = 0;
  for (size_t i = 0; i < v.parts.size(); ++i) {
    const double share = v.parts[i].samples_estimated / static_cast<double>(total_samples);
    if (share < 0.0005) break;  // would print as 0.0%: among "the more"
    if (listed++ > 0) out += ", ";
    out += shorten_label(names[i], 60) + " " + percent(share);
  }
  if (listed == 0) return {};
  uint64_t all = 0;
  for (const LibraryDetail& d : v.libraries) all += d.variables;
  if (all > listed) out += ", and " + std::to_string(all - listed) + " more";
  return out;
}

// "hot: 0-25% of the block (bytes 0-16383 sampled)": the smallest range of the variable that holds
// 80% of its samples. "" when the variable has no histogram.
std::string hot_summary(const Variable& v) {
  if (!v.has_offsets || v.offset_bins.empty()) return {};
  HotRange r = hot_range(v.offset_bins, 0.8);
  if (r.count == 0) return {};
  const double nbins = static_cast<double>(v.offset_bins.size());
  char buf[160];
  const char* extent = v.kind == VariableKind::Heap    ? "the block"
                       : v.kind == VariableKind::Stack ? "the local"
                       : v.name.starts_with("[")       ? "the module's data"
                                                       : "the symbol";
  std::snprintf(buf, sizeof buf, "hot: %.0f-%.0f%% of %s (bytes %llu-%llu sampled)",
                r.first * 100.0 / nbins, (r.last + 1) * 100.0 / nbins, extent,
                static_cast<unsigned long long>(v.offset_min),
                static_cast<unsigned long long>(v.offset_max));
  return buf;
}

// "first touched by 1 of 4 threads (serial initialization), on node 0": who took the variable's
// page faults, by thread and by the NUMA node of the CPU; "" without page faults.
std::string first_touch_summary(const Variable& v) {
  if (v.page_faults == 0 || v.kind == VariableKind::Group) return {};
  const FirstTouch& t = v.first_touch;
  std::string s = std::to_string(v.page_faults) + " page fault" + (v.page_faults == 1 ? "" : "s");
  if (t.has_threads) {
    s += ", first touched by " + std::to_string(t.threads) + " of " + std::to_string(t.run_threads) +
         " thread" + (t.run_threads == 1 ? "" : "s");
    if (t.serial) s += " (serial initialization)";
    else if (t.threads > 1)
      s += ", the largest " + percent(t.top_share) + " (thread " + group_label(t.top_thread, true) + ")";
  }
  if (!t.nodes.empty()) {
    uint64_t with_node = 0;
    for (const auto& [node, faults] : t.nodes) with_node += faults;
    if (t.nodes.size() == 1) {
      s += ", on node " + std::to_string(t.nodes[0].first);
    } else {
      s += ", on nodes";
      for (size_t i = 0; i < t.nodes.size(); ++i)
        s += (i ? ", " : " ") + std::to_string(t.nodes[i].first) + " (" +
             percent(static_cast<double>(t.nodes[i].second) / static_cast<double>(with_node)) + ")";
    }
  }
  return s;
}

namespace {

// "l3 45% local_dram 30%": the two levels that served most of the variable's samples.
std::string sources_cell(const MemoryStats& s) {
  std::string cell;
  for (size_t i = 0; i < s.levels.size() && i < 2; ++i) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f%%", s.levels[i].share * 100.0);
    cell += (i > 0 ? " " : "") + memory_metric_name(s.levels[i].id) + " " + pct;
  }
  return cell.empty() ? "-" : cell;
}

// The memory figures of the listed rows that have any, numbered as in the table above; a column
// only for what the database measured.
void print_memory_table(const ReportModel& m, const std::vector<const Variable*>& listed,
                        const std::vector<std::string>& names, size_t limit, std::ostream& out) {
  const MemoryStats& p = m.memory;
  if (!p.present()) return;
  const bool numa = numa_worth_showing(m);
  std::vector<Column> cols = {{"#", true, 0, 0}, {"variable", false, 21, 0, 3}};
  if (p.has_mean_latency) cols.push_back({"latency", true, 0, 0});
  const size_t per_instruction = cols.size();
  if (p.has_latency_per_instruction) cols.push_back({"lat/instr", true, 0, 1});
  if (!p.levels.empty()) cols.push_back({"top data sources", false, 0, 2});
  if (p.has_tlb) cols.push_back({"TLB miss", true, 0, 0});
  if (numa && p.has_numa) cols.push_back({"remote", true, 0, 0});
  if (cols.size() == 2) return;  // nothing measured worth a column
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < names.size(); ++i) {
    const MemoryStats& s = listed[i]->memory;
    if (!s.present()) continue;
    std::vector<std::string> row = {std::to_string(i + 1), names[i]};
    if (p.has_mean_latency) row.push_back(s.has_mean_latency ? fixed(s.mean_latency, 1) : "-");
    if (p.has_latency_per_instruction)
      row.push_back(s.has_latency_per_instruction ? fixed(s.latency_per_instruction, 3) : "-");
    if (!p.levels.empty()) row.push_back(sources_cell(s));
    if (p.has_tlb) row.push_back(s.has_tlb ? percent(s.tlb_miss_rate) : "-");
    if (numa && p.has_numa) row.push_back(s.has_numa ? percent(s.numa_remote_share) : "-");
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return;
  out << "\nMemory accesses (rows of the table above):\n";
  const std::vector<bool> shown = print_table(cols, std::move(rows), limit, out);
  std::string legend;
  if (p.has_mean_latency) legend += "latency: mean cycles per sampled access";
  if (p.has_latency_per_instruction && shown[per_instruction])
    legend += std::string(legend.empty() ? "" : "; ") + "lat/instr: its part of the program's latency per instruction";
  if (p.has_tlb || (numa && p.has_numa))
    legend += std::string(legend.empty() ? "" : "; ") +
              (p.has_tlb && (numa && p.has_numa) ? "TLB miss, remote (NUMA page): shares"
               : p.has_tlb             ? "TLB miss: share"
                                       : "remote (NUMA page): share") +
              " of the samples that recorded it";
  if (!legend.empty()) print_wrapped("", legend + ".", limit, out);
}

void write_data(const ReportModel& m, const ReportOptions& o, std::ostream& out) {
  print_header(m, "data", o.width, out);
  std::vector<Column> cols = {
      {"#", true, 0, 0},       {"variable", false, 21, 0, 3},
      {"kind", false, 0, 0},   {"share ±95%", true, 0, 0},
      {"samples", true, 0, 0}, {"bytes", true, 0, 0},
      {"allocator / module", false, 12, 1}, {"hottest access", false, 12, 2}};
  // With more than one rank: max / mean over the ranks and the worst rank ("1.33 r1"), kept
  // longer than the allocator and the access when the table must narrow, and always when the
  // rows are sorted by it (--sort imbalance).
  const bool ranks = m.balance_ranks > 1;
  if (ranks)
    cols.insert(cols.begin() + 6,
                Column{"imbalance", false, 0, m.order == VariableOrder::Imbalance ? 0 : 3});
  // First touch: the variable's page faults, a count beside the samples (not in the share).
  const bool faults = m.has_page_faults;
  if (faults) cols.insert(cols.begin() + 5, Column{"faults", true, 0, 0});
  std::vector<const Variable*> listed;
  size_t hidden = m.variables_not_built;
  for (const Variable& v : m.variables) {
    if (v.samples == 0 && v.page_faults == 0 && !o.all) ++hidden;
    else listed.push_back(&v);
  }
  size_t n = rows_to_print(listed.size(), o.top);
  bool any_sampled = false, any_estimate = false;
  std::vector<std::string> names, sites, hottest;
  for (size_t i = 0; i < n; ++i) {
    const Variable& v = *listed[i];
    names.push_back(v.name);
    // A heap variable's name is its allocation site already; the allocator completes it.
    sites.push_back(v.kind == VariableKind::Heap     ? v.allocator
                    : v.kind == VariableKind::Static || v.kind == VariableKind::Stack
                        ? std::string(basename_of(v.module))
                    : v.kind == VariableKind::Group  ? std::to_string(v.libraries.size()) + " librar" +
                                                          (v.libraries.size() == 1 ? "y" : "ies")
                                                     : "-");
    hottest.push_back(v.hottest_access.empty() ? "-" : v.hottest_access);
  }
  simplify_names(names);
  simplify_names(sites);
  simplify_names(hottest);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::pair<size_t, std::string>> hot, touched, watched, held;
  for (size_t i = 0; i < n; ++i) {
    const Variable& v = *listed[i];
    std::string kind = kind_name(v.kind);
    if (v.sampled) kind += "*";
    if (v.tls) kind += " tls";
    any_sampled |= v.sampled;
    // No size: unattributed data, and a stack variable sized at run time (an automatic array).
    const bool sized = v.kind != VariableKind::Unknown && (v.kind != VariableKind::Stack || v.bytes > 0);
    rows.push_back({std::to_string(i + 1), names[i], kind, share_cell(v), samples_cell(v, &any_estimate),
                    sized ? human_bytes(v.bytes) : "-", sites[i],
                    hottest[i]});
    if (ranks) rows.back().insert(rows.back().begin() + 6, imbalance_cell(v));
    if (faults) rows.back().insert(rows.back().begin() + 5, std::to_string(v.page_faults));
    if (std::string h = hot_summary(v); !h.empty()) hot.emplace_back(i + 1, h);
    if (std::string g = group_parts_summary(v, m.total_samples); !g.empty()) held.emplace_back(i + 1, v.name + ": " + g);
    if (std::string t = first_touch_summary(v); !t.empty()) touched.emplace_back(i + 1, t);
    if (std::string t = watch_text(v.watch); !t.empty()) watched.emplace_back(i + 1, t);
  }
  if (rows.empty()) {
    out << "No variables" << (hidden > 0 ? " with samples (--all lists the others)" : "") << ".\n";
    return;
  }
  out << hidden_columns_note(cols, print_table(cols, std::move(rows), o.width, out), o.width);
  if (any_sampled) out << "* sampled small allocations: see the note above\n";
  if (any_estimate)
    print_wrapped("", "samples: raw; (\u2248N) the estimate over all of the variable's blocks, which "
                      "its share and the order of the rows follow", o.width, out);
  if (ranks)
    out << "imbalance: samples on the worst rank (rN) / the mean over all " << m.balance_ranks
        << " ranks\n";
  if (n < listed.size())
    out << "(" << n << " of " << listed.size() << " variables shown; --top 0 shows all)\n";
  if (hidden > 0)
    out << "(" << hidden << " variable" << (hidden == 1 ? "" : "s")
        << " without samples not shown; --all shows them)\n";
  if (!held.empty()) {
    out << "\nGroup rows (what each holds, hottest first; --no-group lists all):\n";
    for (const auto& [row, text] : held) print_wrapped(pad_left(std::to_string(row), 3) + " ", text, o.width, out);
  }
  if (!hot.empty()) {
    out << "\nHot parts (the smallest part of each variable holding 80% of its samples):\n";
    for (const auto& [row, text] : hot) out << pad_left(std::to_string(row), 3) << "  " << text << '\n';
  }
  if (!touched.empty()) {
    out << "\nFirst touch (which threads and NUMA nodes took each variable's page faults):\n";
    for (const auto& [row, text] : touched)
      print_wrapped(pad_left(std::to_string(row), 3) + " ", text, o.width, out);
  }
  if (!watched.empty()) {
    out << "\nSharing and reuse (debug-register watchpoints; FALSE SHARING as docs/REPORT.md defines it):\n";
    for (const auto& [row, text] : watched)
      print_wrapped(pad_left(std::to_string(row), 3) + " ", text, o.width, out);
  }
  print_access_evidence(std::vector<const Variable*>(listed.begin(), listed.begin() + static_cast<std::ptrdiff_t>(n)),
                        names, o.width, out);
  print_memory_table(m, listed, names, o.width, out);
}

void write_code(const ReportModel& m, const ReportOptions& o, std::ostream& out) {
  print_header(m, "code", o.width, out);
  std::vector<Column> cols = {{"#", true, 0, 0},       {"share", true, 0, 0},
                              {"samples", true, 0, 0}, {"data samples", true, 0, 0}};
  // One column per PAPI counter, named by its event, before the labels.
  for (const Counter& c : m.counters) cols.push_back({c.event.c_str(), true, 0, 0});
  cols.push_back({"module", false, 12, 1});
  cols.push_back({"location", false, 24, 0, 3});
  size_t n = rows_to_print(m.locations.size(), o.top);
  std::vector<std::string> labels;
  for (size_t i = 0; i < n; ++i) labels.push_back(m.locations[i].label);
  simplify_names(labels);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < n; ++i) {
    const CodeLocation& c = m.locations[i];
    std::vector<std::string> row = {std::to_string(i + 1), percent(c.share),
                                    std::to_string(c.samples), std::to_string(c.data_samples)};
    for (uint64_t events : c.counters) row.push_back(std::to_string(events));
    row.push_back(c.where.module.empty() ? "-" : std::string(basename_of(c.where.module)));
    row.push_back(labels[i]);
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    out << "No samples.\n";
    return;
  }
  out << hidden_columns_note(cols, print_table(cols, std::move(rows), o.width, out), o.width);
  if (n < m.locations.size())
    out << "(" << n << " of " << m.locations.size() << " locations shown; --top 0 shows all)\n";
}

}  // namespace

void write_text(const ReportModel& model, const ReportOptions& options, std::ostream& out) {
  std::ostringstream text;
  if (options.view == View::Data) write_data(model, options, text);
  else write_code(model, options, text);
  out << printable_for_terminal(text.str());
}

}  // namespace hpcl::analysis
