// The text report's sections on why a variable is slow, under the table: the access pattern of
// each listed variable's hottest source lines, the fields that carry its samples, and "What to
// try" (model/access_evidence.h). Rows are numbered as in the table above.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "model/report_model.h"

namespace hpcl::analysis {

// `listed` are the table's rows, `names` their (shortened) names; `width` the report's width.
void print_access_evidence(const std::vector<const Variable*>& listed, const std::vector<std::string>& names,
                           size_t width, std::ostream& out);

// "x 48%, y 47% (16 of 64 bytes take 95% of the samples)", or the note saying why there are
// no fields; "" for a variable the model did not analyse.
std::string fields_text(const Variable& v);

}  // namespace hpcl::analysis
