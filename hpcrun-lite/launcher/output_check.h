// The measurement directory, checked before the program starts: a directory that cannot be
// created or written (a regular file in its place, a read-only mount, an immutable directory, a
// file system whose names are too short for the profile's) is found now, not after a job of
// hours whose profiles then cannot be written.
#pragma once

#include <string>
#include <vector>

namespace hpcrun {

struct OutputDir {
  std::string error;                 // "" when the directory is ready
  std::vector<std::string> created;  // directories this check made, outermost first
};

// Creates `dir` (mkdir -p with `mode`) unless it exists, then creates and removes a probe file
// whose name is `name_length` bytes long, as the runtime's profiles will be. On failure removes
// the directories it created and says why (naming the directory).
OutputDir prepare_output_dir(const std::string& dir, unsigned mode, size_t name_length);

// Removes the directories of `out.created` that are still empty, innermost first (the program
// could not be started: nothing is left behind).
void remove_created(const OutputDir& out);

}  // namespace hpcrun
