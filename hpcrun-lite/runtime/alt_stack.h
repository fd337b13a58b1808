// A signal stack for every measured thread, so that the runtime's handlers (samples and the
// ending handler, all SA_ONSTACK) still run when the thread's own stack is exhausted: a stack
// overflow (deep recursion, a large automatic Fortran array) is a SIGSEGV whose profile should
// still be written. A thread that already has a signal stack (the program's own) keeps it.
#pragma once

namespace hpcrun {

// Installs a signal stack for the calling thread unless it has one. Not signal-safe.
void alt_stack_thread_start();
// Removes and frees the calling thread's signal stack if it is still the runtime's.
void alt_stack_thread_end();

}  // namespace hpcrun
