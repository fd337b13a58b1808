// Renderers of the diff model (diff_model.h): a terminal table, JSON (schema in docs/REPORT.md,
// "diff") and CSV. Like the report's formatters they only read the model.
#pragma once

#include <cstddef>
#include <ostream>

#include "model/diff_model.h"

namespace hpcl::analysis {

struct DiffReportOptions {
  size_t top = 20;           // variables to print; 0 = all
  size_t width = 120;        // text: the table's width in columns; 0 = no limit
  size_t access_paths = 3;   // text: access paths printed under each variable
};

void write_diff_text(const DiffModel& model, const DiffReportOptions& options, std::ostream& out);
void write_diff_json(const DiffModel& model, const DiffReportOptions& options, std::ostream& out);
void write_diff_csv(const DiffModel& model, const DiffReportOptions& options, std::ostream& out);

// "12", or "12.5" when the model's figures are scaled or per-process means.
std::string diff_samples(const DiffModel& model, double v);

}  // namespace hpcl::analysis
