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

// A source file of the interpreter's own Python code or of the array packages a program builds
// on: the standard library (under a lib/pythonX.Y directory, outside its site-packages), code
// the interpreter or a package generated ("<frozen importlib._bootstrap>", "<__array_function__
// internals>"; not "<string>" and "<stdin>"), and the installed packages
// NumPy, SciPy, mpi4py and their kind (kPythonRuntimePackages in script_code.cpp). Such frames
// never name a variable or an access while another Python frame is on the path (NumPy's np.ones
// is Python code in numeric.py); an application installed as a package (GPAW, ASE) is the
// program's own code.
bool is_python_runtime_file(std::string_view file);

// A frame whose statement returns what it calls for ("return np.zeros(shape)"): a function that
// makes an array for its caller, which the caller's statement names ("psit = gd.zeros(3)"). Read
// from the source file (script_source_line); false when it cannot be read.
bool returns_its_call(const Location& loc);

// The frame of `path` (innermost first) that places it in the program's Python code: the
// innermost Python frame of a file that is not the runtime's (is_python_runtime_file), else the
// innermost Python frame; null when the path has none.
const Location* program_script_frame(const std::vector<Location>& path);

// The statement at `file:line`, whitespace trimmed and cut to `max` characters ("…" marks a
// cut), when the file can be read here; "" otherwise. Files are read once per process.
std::string script_source_line(std::string_view file, uint32_t line, size_t max = 48);

}  // namespace hpcl::analysis
