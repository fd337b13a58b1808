// The program's _exit and _Exit: the profile is written before the process ends
// (process/process_end.h).
#include <sys/syscall.h>
#include <unistd.h>

#include "interpose/export.h"
#include "process/process_end.h"

using namespace hpcrun;

extern "C" {

// A child that forked and ends with _exit, a program's signal handler that calls _exit: the
// profile is written first. exit_group directly: the real _exit does nothing else.
HPCL_EXPORT void _exit(int status) {
  process_end_write(EndPath::Exit);
  for (;;) syscall(SYS_exit_group, status);
}

HPCL_EXPORT void _Exit(int status) {
  process_end_write(EndPath::Exit);
  for (;;) syscall(SYS_exit_group, status);
}

}  // extern "C"
