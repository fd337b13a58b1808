// Allocation paths through Python code. A block allocated for a Python statement (a NumPy
// array's data, a buffer of an extension module) is named by the statement, not by the native
// frames of the interpreter that ran it: its path keeps the native frames of the caller of the
// allocation up to the first frame of the interpreter, then the Python frames of the thread
// (innermost first) as script-frame addresses (script_frames.h). A block the interpreter
// allocates itself (a dict, a frame, a str: the caller of malloc is the interpreter) keeps its
// native path, which the report folds into one [Python runtime data] row.
#pragma once

#include <cstdint>

namespace hpcrun {

// Rewrites frames[0, n) as above when the calling thread runs Python code, up to `max` frames;
// returns the new count (n when nothing changed). Takes the script-frame table's lock; never
// called from a signal handler.
int python_alloc_path(uint64_t* frames, int n, int max);

}  // namespace hpcrun
