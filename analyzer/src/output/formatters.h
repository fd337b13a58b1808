// Renderers of the report model: a terminal table, JSON (schema in docs/REPORT.md) and CSV.
// They only read the model, so every output states the same facts.
#pragma once

#include <cstddef>
#include <ostream>
#include <string_view>

#include "model/report_model.h"

namespace hpcl::analysis {

// Accesses: one row per variable and access path (CSV only, exports.h).
enum class View { Data, Code, Accesses };

struct ReportOptions {
  View view = View::Data;
  size_t top = 20;      // rows (variables or locations) to print; 0 = all
  size_t width = 120;   // text: the table's width in columns; 0 = no limit (--wide)
  bool all = false;     // text: also variables without samples (--all)
};

// "hot: 0-25% of the block (bytes 0-16383 sampled)": the smallest run of offset bins holding 80%
// of the variable's samples; "" without an offset histogram.
std::string hot_summary(const Variable& v);
// "2048 page faults, first touched by 1 of 4 threads (serial initialization), on node 0": who
// took the variable's page faults (threads, NUMA nodes); "" without page faults.
std::string first_touch_summary(const Variable& v);

// Whether the writer of `format` ("text", "json", "csv", "folded", "html") reads the heap
// variables' allocation paths (ReportModelOptions::keep_allocation_paths): JSON lists them,
// folded stacks and the HTML flame graph draw them; the text and CSV tables print names only.
inline bool format_reads_allocation_paths(std::string_view format) {
  return format == "json" || format == "folded" || format == "html";
}

void write_text(const ReportModel& model, const ReportOptions& options, std::ostream& out);
void write_json(const ReportModel& model, const ReportOptions& options, std::ostream& out);
void write_csv(const ReportModel& model, const ReportOptions& options, std::ostream& out);

}  // namespace hpcl::analysis
