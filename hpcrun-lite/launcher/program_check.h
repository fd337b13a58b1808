// What the launcher checks about the program before anything is created: that it exists and can
// be executed (a missing program, a directory or a file without execute permission would
// otherwise leave an empty measurement directory behind and a misleading errno), and what will
// really be measured (a statically linked program cannot be; a script is measured as its
// interpreter).
#pragma once

#include <string>

namespace hpcrun {

struct ProgramCheck {
  int status = 0;            // 0: it can be run; else the launcher's exit status (126, 127)
  std::string error;         // why not, for "hpcrun-lite: ERROR"
  std::string path;          // the file exec will run (PATH searched as execvp does)
  std::string interpreter;   // "#!" line of a script: the interpreter and its argument, or ""
  std::string measured_exe;  // the program as the runtime will name it (the interpreter's file
                             // for a script), resolved: for the profile's file name
};

// `name` as the command line gives it; PATH from the environment (execvp's default without).
ProgramCheck check_program(const std::string& name);

}  // namespace hpcrun
