// The profile of this process, written through the format library (writer.cpp says how). The
// process's end calls it through the writer start-up hands it (process_end.h: ProfileWriter).
#pragma once

#include <cstddef>

namespace hpcrun {

// Builds the profile of this process and writes it: DIR/EXE.HOST.RANK.PID.hpcl, or with `tag`
// DIR/EXE.HOST.RANK.PID.TAG.hpcl. The path written goes to `written` (size n) if set. Returns
// whether the file was written. Runs once, under the runtime guard, after sampling stopped; it
// may allocate.
bool write_process_profile(const char* tag, char* written, size_t n);

}  // namespace hpcrun
