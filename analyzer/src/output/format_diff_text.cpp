// The text diff: the run totals before and after, then the variables by absolute change, each
// with its hottest access paths on both sides (so a loop that went away and the one that came
// are side by side), then the new and gone variables and the notes.
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>

#include "diff_formatters.h"
#include "format_common.h"
#include "table_names.h"

namespace hpcl::analysis {
namespace {

constexpr size_t kNum = 10;    // a samples column
constexpr size_t kRatio = 7;
constexpr size_t kShare = 16;  // "72.9% -> 3.5%"
constexpr size_t kKind = 12;  // "unknown gone"
constexpr size_t kIndent = kNum;  // access paths: their figures under before and after

std::string signed_text(const DiffModel& m, double v) {
  return (v > 0 ? "+" : "") + diff_samples(m, v);
}

std::string change_percent(double before, double after) {
  if (before <= 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (after / before - 1) * 100);
  return buf;
}

void totals(const DiffModel& m, std::ostream& out) {
  const RunTotals& b = m.before;
  const RunTotals& a = m.after;
  auto row = [&](const std::string& what, const std::string& x, const std::string& y, const std::string& c) {
    out << pad_right(what, 24) << pad_left(x, 14) << pad_left(y, 14) << (c.empty() ? "" : "  " + c) << "\n";
  };
  out << pad_right("run", 24) << pad_left("before", 14) << pad_left("after", 14) << "  change\n";
  row(m.per_process ? "samples per process" : "samples", diff_samples(m, b.samples), diff_samples(m, a.samples),
      change_percent(b.samples, a.samples));
  if (b.cpu_seconds && a.cpu_seconds) {
    char x[32], y[32];
    std::snprintf(x, sizeof x, "%.2f s", *b.cpu_seconds);
    std::snprintf(y, sizeof y, "%.2f s", *a.cpu_seconds);
    row(m.per_process ? "CPU time per process" : "CPU time", x, y, change_percent(*b.cpu_seconds, *a.cpu_seconds));
  }
  row("with a data address", percent(b.data_share), percent(a.data_share), "");
  row("processes x threads", std::to_string(b.processes) + " x " + std::to_string(b.threads),
      std::to_string(a.processes) + " x " + std::to_string(a.threads), "");
  row("source, rate", b.source + " " + b.rate, a.source + " " + a.rate, "");
}

void names(const DiffModel& m, MatchKind match, const char* title, std::ostream& out) {
  std::string line;
  for (const VariableDiff& v : m.variables) {
    if (v.match != match) continue;
    const DiffSide& s = match == MatchKind::New ? v.after : v.before;
    line += (line.empty() ? "" : "; ") + v.name + " (" + diff_samples(m, s.samples) + ")";
  }
  out << title << (line.empty() ? "none" : line) << "\n";
}

}  // namespace

std::string diff_samples(const DiffModel& m, double v) {
  char buf[48];
  const bool whole = m.after_scale == 1 && !m.per_process;
  std::snprintf(buf, sizeof buf, whole ? "%.0f" : "%.1f", v);
  return buf;
}

namespace {
// How table_names.h marks the caller part of a label; shown as " < " in the diff.
constexpr const char* kCallerArrow = " \u2190 ";

void write_diff_text_raw(const DiffModel& m, const DiffReportOptions& options, std::ostream& out);
}  // namespace

void write_diff_text(const DiffModel& m, const DiffReportOptions& options, std::ostream& out) {
  std::ostringstream text;
  write_diff_text_raw(m, options, text);
  out << printable_for_terminal(text.str());  // format_common.h: a profile is data
}

namespace {
void write_diff_text_raw(const DiffModel& m, const DiffReportOptions& options, std::ostream& out) {
  totals(m, out);
  out << "\nVariables by absolute change";
  if (m.after_scale != 1) out << " (AFTER on BEFORE's sampling rate)";
  out << "; ~ marks a change within noise (the two 95% intervals overlap)\n";
  const size_t fixed_cols = 3 * kNum + kRatio + kShare + kKind + 6;
  const size_t name_width = options.width == 0 ? 0 : options.width > fixed_cols + 20 ? options.width - fixed_cols : 20;
  out << pad_left("change", kNum) << pad_left("before", kNum) << pad_left("after", kNum)
      << pad_left("ratio", kRatio) << "  " << pad_right("share", kShare) << "  " << pad_right("kind", kKind)
      << "  variable\n";
  const size_t rows = rows_to_print(m.variables.size(), options.top);
  // Names as the text report cuts them: rows that differ keep looking different (table_names.h).
  std::vector<std::string> cells;
  for (size_t i = 0; i < rows; ++i) cells.push_back(m.variables[i].name);
  if (name_width > 0) cells = fit_column(cells, name_width);
  for (size_t i = 0; i < rows; ++i) {
    const VariableDiff& v = m.variables[i];
    std::string ratio = "-";
    if (v.ratio) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", *v.ratio);
      ratio = buf;
    }
    std::string kind = kind_name(v.kind);
    if (v.match != MatchKind::Exact) kind += std::string(" ") + match_name(v.match);
    const std::string& name = cells[i];
    out << pad_left((v.significant ? "" : "~") + signed_text(m, v.delta), kNum)
        << pad_left(v.before.present ? diff_samples(m, v.before.samples) : "-", kNum)
        << pad_left(v.after.present ? diff_samples(m, v.after.samples) : "-", kNum) << pad_left(ratio, kRatio)
        << "  " << pad_right(percent(v.before.share) + " -> " + percent(v.after.share), kShare) << "  "
        << pad_right(kind, kKind) << "  " << name << "\n";
    const size_t paths = rows_to_print(v.accesses.size(), options.access_paths);
    // The leaf, then its callers, cut as a column: two paths of one leaf keep what tells them
    // apart (their callers), an OpenMP region suffix goes before the leaf's line.
    const size_t room = options.width == 0 ? 0 : options.width > kIndent + 2 * kNum + 22 ? options.width - kIndent - 2 * kNum - 2 - 9 : 20;
    std::vector<std::string> wheres;
    for (size_t k = 0; k < paths; ++k) {
      const AccessChange& a = v.accesses[k];
      wheres.push_back(a.callers.empty() ? a.label : a.label + kCallerArrow + a.callers);
    }
    if (room > 0) wheres = fit_column(wheres, room);
    for (size_t k = 0; k < paths; ++k) {
      const AccessChange& a = v.accesses[k];
      const char* mark = a.before == 0 ? "   [came]" : a.after == 0 ? "   [gone]" : "";
      std::string where = wheres[k];
      if (size_t arrow = where.find(kCallerArrow); arrow != std::string::npos)
        where.replace(arrow, std::string_view(kCallerArrow).size(), " < ");
      out << std::string(kIndent, ' ') << pad_left(diff_samples(m, a.before), kNum)
          << pad_left(diff_samples(m, a.after), kNum) << "  " << where << mark << "\n";
    }
  }
  if (rows < m.variables.size())
    out << "(" << m.variables.size() - rows << " more variables; --top 0 lists all)\n";
  out << "\n";
  names(m, MatchKind::New, "new in AFTER: ", out);
  names(m, MatchKind::Gone, "gone from AFTER: ", out);
  for (const std::string& n : m.notes) out << "note: " << n << "\n";
}
}  // namespace

}  // namespace hpcl::analysis
