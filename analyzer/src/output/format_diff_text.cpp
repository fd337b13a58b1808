// The text diff: the run totals before and after, then the variables by absolute change, each
// with its hottest access paths on both sides (so a loop that went away and the one that came
// are side by side), then the new and gone variables and the notes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>

#include "diff_formatters.h"
#include "hpcl/text/format_common.h"
#include "hpcl/text/table_names.h"

namespace hpcl::analysis {
namespace {

constexpr size_t kNum = 10;    // a samples column
constexpr size_t kRatio = 7;
constexpr size_t kShare = 16;  // "72.9% -> 3.5%"
constexpr size_t kKind = 12;  // "unknown gone"

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

// The variables new in AFTER or gone from it, hottest first, wrapped to the report's width: the
// first kListed of them (two CP2K runs had 20 of each, one line of 1,500 characters); JSON's
// "new" and "gone" list every one.
void names(const DiffModel& m, MatchKind match, const char* title, size_t width, std::ostream& out) {
  constexpr size_t kListed = 10;
  std::string line;
  size_t listed = 0, more = 0;
  for (const VariableDiff& v : m.variables) {
    if (v.match != match) continue;
    if (listed++ >= kListed) {
      ++more;
      continue;
    }
    const DiffSide& s = match == MatchKind::New ? v.after : v.before;
    line += (line.empty() ? "" : "; ") + v.name + " (" + diff_samples(m, s.samples) + ")";
  }
  if (more > 0) line += "; and " + std::to_string(more) + " more (--format json lists them)";
  print_wrapped(title, line.empty() ? "none" : line, width, out);
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
  out << "\n";
  print_wrapped("", std::string("Variables by absolute change") +
                                 (m.after_scale != 1 ? " (AFTER on BEFORE's sampling rate)" : "") +
                                 "; ~ marks a change within noise (the two 95% intervals overlap)",
                options.width, out);
  const size_t rows = rows_to_print(m.variables.size(), options.top);
  // Each row's cells, then the columns: as wide as the constants, or, in a table too narrow for
  // them and a name (80 columns: 71 + 20), as wide as their widest cell.
  struct Cells { std::string change, before, after, ratio, share, kind; };
  std::vector<Cells> row_cells(rows);
  size_t num = std::string_view("change").size(), ratio_w = std::string_view("ratio").size();
  size_t share_w = std::string_view("share").size(), kind_w = std::string_view("kind").size();
  for (size_t i = 0; i < rows; ++i) {
    const VariableDiff& v = m.variables[i];
    Cells& c = row_cells[i];
    c.change = (v.significant ? "" : "~") + signed_text(m, v.delta);
    c.before = v.before.present ? diff_samples(m, v.before.samples) : "-";
    c.after = v.after.present ? diff_samples(m, v.after.samples) : "-";
    c.ratio = "-";
    if (v.ratio) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", *v.ratio);
      c.ratio = buf;
    }
    c.share = percent(v.before.share) + " -> " + percent(v.after.share);
    c.kind = kind_name(v.kind);
    if (v.match != MatchKind::Exact) c.kind += std::string(" ") + match_name(v.match);
    num = std::max({num, c.change.size(), c.before.size(), c.after.size()});
    ratio_w = std::max(ratio_w, c.ratio.size());
    share_w = std::max(share_w, c.share.size());
    kind_w = std::max(kind_w, c.kind.size());
  }
  constexpr size_t kMinName = 20;
  size_t col_num = kNum, col_ratio = kRatio, col_share = kShare, col_kind = kKind;
  if (options.width > 0 && options.width < 3 * kNum + kRatio + kShare + kKind + 6 + kMinName) {
    col_num = std::min(kNum, num + 2);
    col_ratio = std::min(kRatio, ratio_w + 2);
    col_share = std::min(kShare, share_w);
    col_kind = std::min(kKind, kind_w);
  }
  const size_t fixed_cols = 3 * col_num + col_ratio + col_share + col_kind + 6;
  const size_t name_width = options.width == 0 ? 0 : options.width > fixed_cols + kMinName ? options.width - fixed_cols : kMinName;
  out << pad_left("change", col_num) << pad_left("before", col_num) << pad_left("after", col_num)
      << pad_left("ratio", col_ratio) << "  " << pad_right("share", col_share) << "  " << pad_right("kind", col_kind)
      << "  variable\n";
  // Names as the text report cuts them: rows that differ keep looking different (table_names.h).
  std::vector<std::string> cells;
  for (size_t i = 0; i < rows; ++i) cells.push_back(m.variables[i].name);
  if (name_width > 0) cells = fit_column(cells, name_width);
  for (size_t i = 0; i < rows; ++i) {
    const VariableDiff& v = m.variables[i];
    const Cells& c = row_cells[i];
    out << pad_left(c.change, col_num) << pad_left(c.before, col_num) << pad_left(c.after, col_num)
        << pad_left(c.ratio, col_ratio) << "  " << pad_right(c.share, col_share) << "  "
        << pad_right(c.kind, col_kind) << "  " << cells[i] << "\n";
    const size_t paths = rows_to_print(v.accesses.size(), options.access_paths);
    // The leaf, then its callers, cut as a column: two paths of one leaf keep what tells them
    // apart (their callers), an OpenMP region suffix goes before the leaf's line. Their figures
    // stand under before and after.
    const size_t indent = col_num;
    const size_t room = options.width == 0 ? 0 : options.width > indent + 2 * col_num + 22 ? options.width - indent - 2 * col_num - 2 - 9 : 20;
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
      out << std::string(indent, ' ') << pad_left(diff_samples(m, a.before), col_num)
          << pad_left(diff_samples(m, a.after), col_num) << "  " << where << mark << "\n";
    }
  }
  if (rows < m.variables.size())
    out << "(" << m.variables.size() - rows << " more variables; --top 0 lists all)\n";
  out << "\n";
  names(m, MatchKind::New, "new in AFTER:", options.width, out);
  names(m, MatchKind::Gone, "gone from AFTER:", options.width, out);
  for (const std::string& n : m.notes) print_wrapped("note:", n, options.width, out);
}
}  // namespace

}  // namespace hpcl::analysis
