// Call paths through Python code. A block allocated for a Python statement (a NumPy array's
// data, a buffer of an extension module) is named by the statement, and a sampled access is
// placed under the Python lines that led to it, not under the native frames of the interpreter
// that ran them: a path keeps its native frames up to the first frame of the interpreter, then
// the Python frames of the thread (innermost first) as script-frame addresses
// (script_frames.h). A block the interpreter allocates itself (a dict, a frame, a str: the caller
// of malloc is the interpreter) keeps its native path, which the report folds into one
// [Python runtime data] row.
#pragma once

#include <cstdint>

namespace hpcrun {

// Rewrites an allocation path frames[0, n) as above when the calling thread runs Python code, up
// to `max` frames; returns the new count (n when nothing changed).
int python_alloc_path(uint64_t* frames, int n, int max);

// The same for the access path of a sample (the call sites above the sampled instruction),
// written to out[0, max); returns its count, or -1 when the path has no Python frames (the caller
// keeps `frames`). Async-signal-safe.
int python_sample_path(const uint64_t* frames, int n, uint64_t* out, int max);

}  // namespace hpcrun
