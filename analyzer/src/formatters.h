// Renderers of the report model: a terminal table, JSON (schema in docs/REPORT.md) and CSV.
// They only read the model, so every output states the same facts.
#pragma once

#include <cstddef>
#include <ostream>

#include "report_model.h"

namespace hpcl::analysis {

enum class View { Data, Code };

struct ReportOptions {
  View view = View::Data;
  size_t top = 20;  // rows (variables or locations) to print; 0 = all
};

void write_text(const ReportModel& model, const ReportOptions& options, std::ostream& out);
void write_json(const ReportModel& model, const ReportOptions& options, std::ostream& out);
void write_csv(const ReportModel& model, const ReportOptions& options, std::ostream& out);

}  // namespace hpcl::analysis
