// A signal stack for every measured thread, so that the runtime's handlers (samples and the
// ending handler, all SA_ONSTACK) still run when the thread's own stack is exhausted: a stack
// overflow (deep recursion, a large automatic Fortran array) is a SIGSEGV whose profile should
// still be written. A thread that already has a signal stack (the program's own) keeps it.
#pragma once

#include <cstdint>

namespace hpcrun {

// Installs a signal stack for the calling thread unless it has one. `*memory` is the stack's
// mapping, kept with the thread's state: null the first time (mapped here), then reused by every
// later thread that gets the same state, so a program that runs thousands of short threads maps
// none after the first few. Not signal-safe.
void alt_stack_thread_start(void** memory);
// Whether [lo, hi) lies in the signal stack `memory` (a mapping of alt_stack_thread_start):
// readable memory. Async-signal-safe.
bool alt_stack_contains(const void* memory, uint64_t lo, uint64_t hi);
// Removes the calling thread's signal stack if it is still `memory` (the mapping stays).
void alt_stack_thread_end(void* memory);

}  // namespace hpcrun
