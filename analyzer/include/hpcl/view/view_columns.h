// The metric columns of the viewer: which ones a database has, and how a cell shows a value.
// Samples are always there; page faults, memory metrics (latency, data sources, TLB, NUMA ...),
// PAPI counters and the per-rank statistics only when the database has them, so a database
// without them never shows an empty column. No ncurses here: the text of a cell is plain UTF-8.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "model/report_model.h"

namespace hpcl::analysis {

enum class ColumnKind {
  Metric,         // a metric summed over the row's subtree; % of the program's total and count
  MeanLatency,    // latency / latency samples, cycles per sampled access
  RankMin,        // per-rank statistics of a variable's samples (BALANCE), variables only
  RankMean,
  RankMax,
  RankImbalance,  // max / mean
  FalseSharing,   // watchpoints (-e wp-sharing): 1 flagged as falsely shared, 0 not; variables only
  ReuseMedian,    // watchpoints (-e wp-reuse): median reuse time in ns; variables only
  Delta,          // diff: after - before, signed
  Ratio,          // diff: after / before
  RawSamples,     // the samples counted, where some variable's estimate (the samples column,
                  // which orders the rows) differs from them: the report's samples column
  Pattern,        // the access pattern (model/access_evidence.h): of a variable's hottest access, of
                  // a frame row's sampled instruction; its value sorts the wasteful ones first
};

struct Column {
  std::string name;  // header: "samples", "page_faults", "l1", "latency", "rank max" ...
  ColumnKind kind = ColumnKind::Metric;
  uint16_t metric = 0;  // Metric columns: the metric id (counters: kMetricCounterBase + k)
  double total = 0;     // Metric columns: the program's value, the base of the percentage
  bool shown = false;
};

// A row has no value in a column (a header row, a flat row for a subtree metric, a frame for
// the per-rank statistics): the cell stays blank and the row sorts last.
inline constexpr double kNoValue = NAN;
inline bool has_value(double v) { return !std::isnan(v); }

// The columns of a database, samples first. Shown at start: samples, and page faults, mean
// latency, rank imbalance, false sharing and median reuse when the database has them, and the
// raw samples beside the estimated ones when some variable's two differ.
std::vector<Column> available_columns(const ReportModel& m);

// Cell text, right-aligned in cell_width(c) columns: "12.3%  45678" for a metric, "412.5"
// cycles for a latency, "1.84x" for an imbalance; blanks without a value.
size_t cell_width(const Column& c);
std::string format_cell(const Column& c, double value);
// The header of the column, right-aligned in cell_width(c); `sorted` marks the sort column.
std::string format_header(const Column& c, bool sorted);

// A Variable's value in a column: as the report counts it (samples as the share counts them,
// i.e. with the heap estimates; memory sums and balance from the model).
double variable_value(const Variable& v, const Column& c);

// A pattern's value in the Pattern column: the share of each line its loop leaves unused (1 -
// line use), 1 for indirect and dependent accesses, none for an unknown or unanalysed one.
double pattern_value(const PatternView& p);

struct ViewNode;
// The cell of a row: format_cell of its value, or its pattern's short text ("strided 13%").
std::string row_cell(const Column& c, const ViewNode& row, double value);

}  // namespace hpcl::analysis
