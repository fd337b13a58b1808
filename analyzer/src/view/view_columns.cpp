// The viewer's metric columns (see view_columns.h).
#include "hpcl/view/view_columns.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "hpcl/text/format_common.h"
#include "model/memory_model.h"
#include "model/watch_summary.h"
#include "hpcl/view/view_tree.h"

namespace hpcl::analysis {

std::vector<Column> available_columns(const ReportModel& m) {
  std::vector<Column> cols;
  cols.push_back({"samples", ColumnKind::Metric, kMetricSamples, static_cast<double>(m.total_samples), true});
  // The samples column counts a sampled variable by its estimate (as the report's share and
  // order do); the report's samples column is the raw count. Where they differ, both.
  for (const Variable& v : m.variables)
    if (std::abs(v.samples_estimated - static_cast<double>(v.samples)) >= 0.5) {
      cols.push_back({"raw samples", ColumnKind::RawSamples, kMetricSamples, 0, true});
      break;
    }
  if (m.has_page_faults)
    cols.push_back({"page faults", ColumnKind::Metric, kMetricPageFaults, static_cast<double>(m.page_faults), true});
  if (m.memory.has_mean_latency) cols.push_back({"latency", ColumnKind::MeanLatency, 0, 0, true});
  for (const Metric& s : m.memory.sums) {
    if (s.id == kMetricLatency || s.id == kMetricLatencySamples) continue;  // the mean says it
    cols.push_back({memory_metric_name(s.id), ColumnKind::Metric, s.id, static_cast<double>(s.value), false});
  }
  for (const Counter& c : m.counters)
    cols.push_back({c.event, ColumnKind::Metric, c.metric, static_cast<double>(c.total), false});
  bool sharing = false, reuse = false;
  for (const Variable& v : m.variables) {
    sharing = sharing || v.watch.sharing.present;
    reuse = reuse || v.watch.reuse.present;
  }
  if (sharing) cols.push_back({"false shar", ColumnKind::FalseSharing, 0, 0, true});
  if (reuse) cols.push_back({"reuse med", ColumnKind::ReuseMedian, 0, 0, true});
  // The access pattern, when the report read the binaries of some variable's accesses.
  if (std::any_of(m.variables.begin(), m.variables.end(),
                  [](const Variable& v) { return v.evidence.analysed && !v.evidence.unreadable; }))
    cols.push_back({"pattern", ColumnKind::Pattern, 0, 0, true});
  if (m.balance_ranks > 1) {
    cols.push_back({"rank min", ColumnKind::RankMin, 0, 0, false});
    cols.push_back({"rank mean", ColumnKind::RankMean, 0, 0, false});
    cols.push_back({"rank max", ColumnKind::RankMax, 0, 0, false});
    cols.push_back({"imbalance", ColumnKind::RankImbalance, 0, 0, true});
  }
  return cols;
}

// A metric: "58.5% 999999" (percentage 6, count 6); a change or a ratio: "+999999", "123.45x";
// narrow enough that a diff's four columns and a 24-column name fit 80 columns.
size_t cell_width(const Column& c) {
  switch (c.kind) {
    case ColumnKind::Metric:
    case ColumnKind::Pattern: return 13;  // "sequential", "strided 100%"
    case ColumnKind::Delta:
    case ColumnKind::Ratio: return 8;
    case ColumnKind::RawSamples: return 11;  // its header
    default: return 10;
  }
}

namespace {

// At most 6 columns: "999999", "12.3M", "999.9M", "12.3G".
std::string count_text(double v) {
  char buf[32];
  if (v < 999999.5) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (v < 999.95e6) std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
  else if (v < 999.95e9) std::snprintf(buf, sizeof buf, "%.1fG", v / 1e9);
  else std::snprintf(buf, sizeof buf, "%.0fG", v / 1e9);
  return buf;
}

}  // namespace

std::string format_cell(const Column& c, double value) {
  const size_t w = cell_width(c);
  if (!has_value(value)) return std::string(w, ' ');
  char buf[64];
  switch (c.kind) {
    case ColumnKind::Metric: {
      std::string pct = c.total > 0 ? percent(value / c.total) : "";
      return pad_left(pad_left(pct, 6) + " " + pad_left(count_text(value), 6), w);
    }
    case ColumnKind::MeanLatency:
    case ColumnKind::RankMin:
    case ColumnKind::RankMean:
    case ColumnKind::RankMax:
      std::snprintf(buf, sizeof buf, "%.1f", value);
      return pad_left(buf, w);
    case ColumnKind::RankImbalance:
    case ColumnKind::Ratio:
      // A ratio too large for two decimals in the cell keeps its integer part, never a cut one.
      std::snprintf(buf, sizeof buf, value < 999.995 ? "%.2fx" : value < 9999999.5 ? "%.0fx" : "%.1ex", value);
      return pad_left(buf, w);
    case ColumnKind::FalseSharing:
      return pad_left(value > 0 ? "YES" : "no", w);
    case ColumnKind::ReuseMedian:
      return pad_left(duration_text(value), w);
    case ColumnKind::Delta:
      return pad_left((value > 0 ? "+" : value < 0 ? "-" : "") + count_text(value < 0 ? -value : value), w);
    case ColumnKind::RawSamples:
      return pad_left(count_text(value), w);
    case ColumnKind::Pattern:
      break;  // row_cell: the text is the row's pattern
  }
  return std::string(w, ' ');
}

double pattern_value(const PatternView& p) {
  if (!p.analysed || p.unreadable) return kNoValue;
  switch (p.kind) {
    case PatternKind::Sequential:
    case PatternKind::Strided: return p.has_line_use ? 1.0 - p.line_use : kNoValue;
    case PatternKind::Indirect:
    case PatternKind::Dependent: return 1.0;
    case PatternKind::Unknown: break;
  }
  return kNoValue;
}

std::string row_cell(const Column& c, const ViewNode& row, double value) {
  if (c.kind != ColumnKind::Pattern) return format_cell(c, value);
  const PatternView& p = row.pattern;
  if (!p.analysed || p.unreadable) return std::string(cell_width(c), ' ');
  std::string text = pattern_kind_name(p.kind);
  if (p.kind == PatternKind::Strided && p.has_line_use) {
    char buf[16];
    std::snprintf(buf, sizeof buf, " %.0f%%", p.line_use * 100.0);
    text += buf;
  }
  return pad_left(text, cell_width(c));
}

std::string format_header(const Column& c, bool sorted) {
  std::string name = printable_line(c.name);
  if (sorted) name += "\xe2\x96\xbc";  // ▼
  if (display_width(name) > cell_width(c)) name = shorten_label(name, cell_width(c));
  return pad_left(name, cell_width(c));
}

double variable_value(const Variable& v, const Column& c) {
  switch (c.kind) {
    case ColumnKind::Metric:
      if (c.metric == kMetricSamples) return v.samples_estimated > 0 ? v.samples_estimated
                                                                     : static_cast<double>(v.samples);
      if (c.metric == kMetricPageFaults) return static_cast<double>(v.page_faults);
      if (is_memory_metric(c.metric)) return static_cast<double>(v.memory.sum(c.metric));
      return kNoValue;  // counters count code, never a variable
    case ColumnKind::MeanLatency:
      return v.memory.has_mean_latency ? v.memory.mean_latency : kNoValue;
    case ColumnKind::RankMin: return v.has_balance ? v.ranks.min : kNoValue;
    case ColumnKind::RankMean: return v.has_balance ? v.ranks.mean : kNoValue;
    case ColumnKind::RankMax: return v.has_balance ? v.ranks.max : kNoValue;
    case ColumnKind::RankImbalance: return v.has_balance ? v.ranks.imbalance : kNoValue;
    case ColumnKind::FalseSharing:
      return v.watch.sharing.present ? (v.watch.sharing.false_sharing ? 1.0 : 0.0) : kNoValue;
    case ColumnKind::ReuseMedian:
      return v.watch.reuse.samples > 0 ? v.watch.reuse.median_ns : kNoValue;
    case ColumnKind::RawSamples: return static_cast<double>(v.samples);
    case ColumnKind::Pattern:
      return v.accesses.empty() ? kNoValue : pattern_value(v.accesses.front().pattern);
    case ColumnKind::Delta:
    case ColumnKind::Ratio: return kNoValue;
  }
  return kNoValue;
}

}  // namespace hpcl::analysis
