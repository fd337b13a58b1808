// Small text helpers shared by the formatters: row limits, percentages, byte sizes, and
// display-width-aware shortening of table cells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "hpcl/text/words.h"  // percent: "12.3%"

namespace hpcl::analysis {

// Rows to print out of `available` for a --top value (0 = all).
inline size_t rows_to_print(size_t available, size_t top) {
  return top == 0 || top > available ? available : top;
}

// A CSV field quoted as RFC 4180 says: only when it holds a comma or a quote, with quotes
// doubled; its control characters (C0 with line breaks and tabs, DEL, C1) are '?' first.
std::string csv_field(std::string_view s);
// A profile is data, never terminal commands: every C0 control but newline, DEL and the C1
// controls (U+0080-U+009F, UTF-8 C2 80-C2 9F) become '?', a tab a space. Names and paths come
// from the measured program's files, so a crafted symbol could otherwise move the cursor,
// retitle the terminal or worse (ESC sequences).
std::string printable_for_terminal(std::string_view s);
// printable_for_terminal for one line of a table, a CSV record or a row of the viewer: a line
// break becomes '?' too, so a name cannot start a line of its own.
std::string printable_line(std::string_view s);
std::string human_bytes(uint64_t bytes);     // "512 B", "1.5 KiB", "3.0 GiB"
size_t display_width(std::string_view s);    // UTF-8 code points
// Shortens a label to at most `width` columns for a table cell, with "…" in the middle: the
// trailing " (file:line)" stays whole when the name keeps at least 16 columns (else it is left
// out), and the name keeps its last "::" component, so "LAMMPS_NS::PairLJCut::compute (pair.cpp:9)"
// becomes "LAMMPS_NS::Pair…::compute (pair.cpp:9)", never a bare namespace.
std::string shorten_label(std::string_view s, size_t width);
// Adds spaces on the left (numbers) or the right (text) up to `width` columns.
std::string pad_left(std::string_view s, size_t width);
std::string pad_right(std::string_view s, size_t width);
// Word-wraps `text` after `prefix` to the report's width (at most 100 columns), continuation
// lines indented as far as the prefix.
void print_wrapped(const std::string& prefix, const std::string& text, size_t limit, std::ostream& out);

}  // namespace hpcl::analysis
