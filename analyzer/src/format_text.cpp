// The terminal report: a short header with the caveats, then an aligned table of the top
// variables (data view) or source locations (code view).
#include <algorithm>
#include <sstream>
#include <vector>

#include "format_common.h"
#include "formatters.h"

namespace hpcl::analysis {
namespace {

struct Column {
  const char* header;
  bool right;        // numbers align right
  size_t max_width;  // cells are shortened beyond this (0 = never)
};

// Prints header and rows with each column as wide as its widest cell; the last column is not
// padded, so lines carry no trailing spaces.
void print_table(const std::vector<Column>& cols, std::vector<std::vector<std::string>> rows,
                 std::ostream& out) {
  std::vector<size_t> width(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) width[c] = display_width(cols[c].header);
  for (auto& row : rows)
    for (size_t c = 0; c < cols.size(); ++c) {
      if (cols[c].max_width != 0) row[c] = truncate_middle(row[c], cols[c].max_width);
      width[c] = std::max(width[c], display_width(row[c]));
    }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c > 0) s += "  ";
      bool last = c + 1 == cols.size();
      s += cols[c].right ? pad_left(cells[c], width[c]) : last ? cells[c] : pad_right(cells[c], width[c]);
    }
    out << s << '\n';
  };
  std::vector<std::string> headers;
  for (const Column& c : cols) headers.emplace_back(c.header);
  line(headers);
  for (const auto& row : rows) line(row);
}

// Word-wraps a note to about 100 columns, continuation lines indented under the text.
void print_note(const std::string& note, std::ostream& out) {
  const size_t kWidth = 100;
  std::istringstream words(note);
  std::string word, line = "Note:";
  while (words >> word) {
    if (display_width(line) + 1 + display_width(word) > kWidth && line.size() > 6) {
      out << line << '\n';
      line = "     ";
    }
    line += " " + word;
  }
  out << line << '\n';
}

void print_header(const ReportModel& m, const char* view, std::ostream& out) {
  out << "hpcprof-lite report, " << view << " view\n";
  out << "source: " << (m.source.empty() ? "unknown" : m.source) << "   processes: " << m.processes
      << "   threads: " << m.threads;
  if (m.ranks > 0) out << "   ranks: " << m.ranks;  // 0 without MPI
  out << '\n';
  double data = m.total_samples > 0 ? static_cast<double>(m.data_samples) / m.total_samples : 0;
  out << "samples: " << m.total_samples << "   with a data address: " << m.data_samples << " ("
      << percent(data) << ")\n";
  for (const std::string& note : m.notes) print_note(note, out);
  out << '\n';
}

void print_more(size_t shown, size_t total, const char* what, std::ostream& out) {
  if (shown < total)
    out << "(" << shown << " of " << total << " " << what << " shown; --top 0 shows all)\n";
}

void write_data(const ReportModel& m, size_t top, std::ostream& out) {
  print_header(m, "data", out);
  const std::vector<Column> cols = {
      {"#", true, 0},        {"variable", false, 40},         {"kind", false, 0},
      {"share", true, 0},    {"samples", true, 0},            {"bytes", true, 0},
      {"allocation site / module", false, 56}, {"hottest access", false, 48}};
  size_t n = rows_to_print(m.variables.size(), top);
  bool any_sampled = false;
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < n; ++i) {
    const Variable& v = m.variables[i];
    std::string kind = kind_name(v.kind);
    if (v.sampled) kind += "*";
    if (v.tls) kind += " tls";
    any_sampled |= v.sampled;
    std::string site = v.kind == VariableKind::Heap     ? v.allocation_site
                       : v.kind == VariableKind::Static ? std::string(basename_of(v.module))
                                                        : "-";
    rows.push_back({std::to_string(i + 1), v.name, kind, percent(v.share), std::to_string(v.samples),
                    v.kind == VariableKind::Unknown ? "-" : human_bytes(v.bytes), site,
                    v.hottest_access.empty() ? "-" : v.hottest_access});
  }
  if (rows.empty()) {
    out << "No variables.\n";
    return;
  }
  print_table(cols, std::move(rows), out);
  if (any_sampled) out << "* sampled small allocations: see the note above\n";
  print_more(n, m.variables.size(), "variables", out);
}

void write_code(const ReportModel& m, size_t top, std::ostream& out) {
  print_header(m, "code", out);
  const std::vector<Column> cols = {{"#", true, 0},       {"share", true, 0},
                                    {"samples", true, 0}, {"data samples", true, 0},
                                    {"module", false, 32}, {"location", false, 0}};
  size_t n = rows_to_print(m.locations.size(), top);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < n; ++i) {
    const CodeLocation& c = m.locations[i];
    rows.push_back({std::to_string(i + 1), percent(c.share), std::to_string(c.samples),
                    std::to_string(c.data_samples),
                    c.where.module.empty() ? "-" : std::string(basename_of(c.where.module)),
                    truncate_middle(c.label, 100)});
  }
  if (rows.empty()) {
    out << "No samples.\n";
    return;
  }
  print_table(cols, std::move(rows), out);
  print_more(n, m.locations.size(), "locations", out);
}

}  // namespace

void write_text(const ReportModel& model, const ReportOptions& options, std::ostream& out) {
  if (options.view == View::Data) write_data(model, options.top, out);
  else write_code(model, options.top, out);
}

}  // namespace hpcl::analysis
