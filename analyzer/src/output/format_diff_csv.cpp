// The CSV diff: a header row and one row per variable, in the text diff's order, with the JSON
// diff's figures (docs/REPORT.md "diff"). Lines end with "\n".
#include <cstdio>
#include <string>
#include <vector>

#include "diff_formatters.h"
#include "hpcl/text/format_common.h"

namespace hpcl::analysis {
namespace {

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

void write_row(const std::vector<std::string>& cells, std::ostream& out) {
  for (size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << csv_field(cells[i]);
  out << "\n";
}

}  // namespace

void write_diff_csv(const DiffModel& m, const DiffReportOptions& options, std::ostream& out) {
  write_row({"match", "kind", "variable", "before_samples", "after_samples", "delta", "ratio",
             "before_share", "after_share", "share_change", "before_low", "before_high", "after_low",
             "after_high", "significant", "top_access_before", "top_access_after"},
            out);
  const size_t rows = rows_to_print(m.variables.size(), options.top);
  for (size_t i = 0; i < rows; ++i) {
    const VariableDiff& v = m.variables[i];
    // The hottest access path of each side.
    const AccessChange *hb = nullptr, *ha = nullptr;
    for (const AccessChange& a : v.accesses) {
      if (a.before > 0 && (hb == nullptr || a.before > hb->before)) hb = &a;
      if (a.after > 0 && (ha == nullptr || a.after > ha->after)) ha = &a;
    }
    write_row({match_name(v.match), kind_name(v.kind), v.name, fixed(v.before.samples, 1),
               fixed(v.after.samples, 1), fixed(v.delta, 1), v.ratio ? fixed(*v.ratio, 4) : "",
               fixed(v.before.share, 6), fixed(v.after.share, 6), fixed(v.share_change, 6),
               fixed(v.before.low, 1), fixed(v.before.high, 1), fixed(v.after.low, 1),
               fixed(v.after.high, 1), v.significant ? "1" : "0", hb ? hb->label : "",
               ha ? ha->label : ""},
              out);
  }
}

}  // namespace hpcl::analysis
