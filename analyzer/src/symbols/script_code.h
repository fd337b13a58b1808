// Frames of interpreted code (Python) in a database: frames of the [python] pseudo-module
// (docs/FORMAT.md, SCRIPT_FRAMES), which the merge symbolizes from the profile's own table, since
// they have no binary to read. Their file is the source file, their function the qualified name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "symbols/location.h"

namespace hpcl::analysis {

bool is_script_location(const Location& loc);

// A source file of the interpreter's standard library or of an installed package: under a
// lib/pythonX.Y directory, a site-packages or dist-packages directory, or frozen into the
// interpreter ("<frozen importlib._bootstrap>"). Such frames never name a variable while a frame
// of the program's own scripts is on the path (NumPy's np.ones is Python code in numeric.py).
bool is_python_library_file(std::string_view file);

// The frame of `path` (innermost first) that places it in the program's Python code: the
// innermost Python frame of a file that is not the library's (is_python_library_file), else the
// innermost Python frame; null when the path has none.
const Location* program_script_frame(const std::vector<Location>& path);

// The statement at `file:line`, whitespace trimmed and cut to `max` characters ("…" marks a
// cut), when the file can be read here; "" otherwise. Files are read once per process.
std::string script_source_line(std::string_view file, uint32_t line, size_t max = 48);

}  // namespace hpcl::analysis
