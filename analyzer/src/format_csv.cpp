// CSV report: a header row and one row per variable (data view) or source location (code view),
// with the text table's columns but raw numbers. Fields are quoted as RFC 4180 says: only when
// they contain a comma, a quote or a line break, with quotes doubled. Lines end with "\n".
#include <cstdio>

#include "format_common.h"
#include "formatters.h"

namespace hpcl::analysis {
namespace {

std::string field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

void row(std::ostream& out, std::initializer_list<std::string> cells) {
  bool first = true;
  for (const std::string& c : cells) {
    if (!first) out << ',';
    out << field(c);
    first = false;
  }
  out << '\n';
}

}  // namespace

void write_csv(const ReportModel& m, const ReportOptions& options, std::ostream& out) {
  if (options.view == View::Data) {
    row(out, {"rank", "variable", "kind", "share", "share_low", "share_high", "samples", "bytes",
              "allocations", "sampled", "allocation_site", "module", "hottest_access"});
    size_t n = rows_to_print(m.variables.size(), options.top);
    for (size_t i = 0; i < n; ++i) {
      const Variable& v = m.variables[i];
      row(out, {std::to_string(i + 1), v.name, kind_name(v.kind), fixed(v.share),
                fixed(v.share_low), fixed(v.share_high), std::to_string(v.samples), std::to_string(v.bytes), std::to_string(v.allocations),
                v.sampled ? "1" : "0", v.allocation_site, v.module, v.hottest_access});
    }
  } else {
    row(out, {"rank", "function", "file", "line", "module", "label", "share", "samples",
              "data_samples"});
    size_t n = rows_to_print(m.locations.size(), options.top);
    for (size_t i = 0; i < n; ++i) {
      const CodeLocation& c = m.locations[i];
      row(out, {std::to_string(i + 1), c.where.function, c.where.file, std::to_string(c.where.line),
                c.where.module, c.label, fixed(c.share), std::to_string(c.samples),
                std::to_string(c.data_samples)});
    }
  }
}

}  // namespace hpcl::analysis
