// The runtime's file descriptors, kept from the program's hands.
//
// Each measured thread owns a perf event descriptor (moved above 1000, close-on-exec). Programs
// that tidy up their descriptors (closefrom(3), close_range, a loop over close, dup2 onto a
// chosen number: daemons, launchers, MPI libraries) would close it: the thread's sampling would
// stop silently, and the runtime would later close a number the program reused for its own file.
// The runtime's descriptors are marked in a bitmap; the interposed close (interpose/fd_hooks.cpp), closefrom, close_range,
// dup2 and dup3 leave them open (a close reports success, as the program expects), and a dup2 or
// dup3 onto one first moves the runtime's descriptor to another number.
#pragma once

namespace hpcrun {

// Async-signal-safe (an atomic bitmap; descriptors up to kMaxGuardedFd).
void fd_guard_add(int fd);
void fd_guard_remove(int fd);
bool fd_guard_owns(int fd);
// Closes a descriptor of the runtime (unmarked first).
void fd_guard_close(int fd);
// The program's close_range over [first, last]: every descriptor but the runtime's.
int fd_guard_close_range(unsigned first, unsigned last, unsigned flags);
// Before the program puts a descriptor at `fd` (dup2, dup3): if it is the runtime's, moves the
// runtime's to another number (the same open file, so the sampling signal keeps its owner).
void fd_guard_make_room(int fd);

inline constexpr int kMaxGuardedFd = 1 << 20;

}  // namespace hpcrun
