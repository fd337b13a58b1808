// Fits the launcher's reports (--check, --validate) to the terminal: a line wider than the width
// is broken at spaces, its continuation lines indented to where the line's value column starts
// (the first text after a run of two or more spaces), so that "  pebs-load    works   <reason>"
// keeps its reason in one column.
#pragma once

#include <cstddef>
#include <string>

namespace hpcrun {

// The terminal's width when standard output is one, else $COLUMNS, else 120 (as hpcprof-lite).
size_t terminal_width();

std::string wrap_lines(const std::string& text, size_t width);

}  // namespace hpcrun
