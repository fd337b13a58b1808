// The bounds of the function around a code address of this process, from its module's
// .eh_frame_hdr search table (every function the compiler emitted has an FDE there), found with
// find_object. The decoder decodes forward from the start it gives.
//
// Async-signal-safe: it reads only the mapped unwind tables, allocates nothing, takes no lock
// and keeps errno.
#pragma once

#include <cstdint>

namespace hpcrun {

// Start address of the function containing `pc`, from the module's .eh_frame_hdr search table.
// Returns false when pc is in no module or no FDE covers it. `end` is an upper bound (the next
// FDE's start, or the end of the module mapping).
bool function_bounds(uint64_t pc, uint64_t* start, uint64_t* end);

}  // namespace hpcrun
