// The viewer's status line: the row counter and the keys, fitted to the terminal's width. The
// keys a user needs to get anywhere come last in the line but are the last to go: at 80 columns
// the line once lost "q quit" to its right edge.
#pragma once

#include <cstddef>
#include <string>

namespace hpcl::analysis {

// "row 3/120   Enter open  h hot  / search  n N  s sort  m metrics  Tab view  ? help  q quit",
// with hints left out (the least needed first) until it fits `width`; "? help  q quit" always
// stays.
std::string status_line(size_t cursor, size_t rows, size_t width);

}  // namespace hpcl::analysis
