// The viewer's "why" pane: for the selected row, what the binaries say about its data and its
// accesses (model/access_evidence.h), as plain lines fitted to a width: for a variable, its
// hottest source lines with their access patterns, the fields that carry its samples and what to
// try; for a sampled instruction's row, its pattern and why. No ncurses here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "hpcl/view/view_model.h"

namespace hpcl::analysis {

std::vector<std::string> why_lines(const ViewModel& m, const ViewNode& row, size_t width);

}  // namespace hpcl::analysis
