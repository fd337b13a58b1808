// What the launcher does once the command line is parsed: choose the measurement directory,
// prepare the environment of the measured program (LD_PRELOAD and the HPCRUN_LITE_* variables)
// and exec it, so that the program runs as its own process with nothing of ours in between.
#pragma once

#include <string>
#include <vector>

#include "options.h"

namespace hpcrun {

struct LaunchRequest {
  Options opts;
  std::string out_dir;             // as given with -o, "" for the default
  std::vector<std::string> argv;   // the program and its arguments
};

// True for an ELF executable without a program interpreter or dynamic section: LD_PRELOAD cannot
// reach it. False for anything else (scripts, dynamic executables, unreadable files).
bool is_static_elf(const char* path);

// Prepares and execs; returns only on failure with the exit status to use (message printed).
int launch(const LaunchRequest& req);

}  // namespace hpcrun
