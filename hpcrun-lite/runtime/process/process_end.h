// Every way a process ends writes its profile, and then ends exactly as it would have.
//
// The ways, and where the profile is written:
//  - return from main, exit(): the atexit handler (runtime.cpp), the ordinary context;
//  - _exit(), _Exit(): the interposed functions, before the exit_group system call. A program
//    calls them from anywhere, also from its own signal handlers and in forked children;
//  - the ending signals left at their default (SIGTERM from a batch system or from mpirun,
//    SIGINT, SIGSEGV, abort()'s SIGABRT, ...): the ending handler (signal_guard.h), which writes
//    and then restores the default disposition and lets the signal kill the process, so the
//    exit status, the terminating signal and its core dump are those of a run without the tool.
//    A fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) raised by the kernel is left to happen again when
//    the handler returns; any other signal is raised again;
//  - the exec family replaces the image: the interposed functions (exec_hooks.cpp) write what
//    the image measured first, to a file of its own. The new image starts a profile afresh.
//
// Why writing from there is safe:
//  - the writer allocates only from the last-words heap (last_words_heap.h): no malloc lock;
//  - it takes no lock: the trees, the site table and the module table are read as they are;
//    sampling is stopped first and handlers in flight are waited for (bounded);
//  - files are written with open/write/rename (async-signal-safe system calls);
//  - one thread writes; another thread that ends meanwhile waits for it (at most 60 s) and then
//    ends its own way;
//  - a fault or abort inside the writer (a corrupt structure, an exhausted heap) jumps back out
//    of it with siglongjmp: the profile is lost, the process still ends as it would have, and
//    nothing hangs;
//  - an asynchronous ending signal that arrives on the writing thread is held until the profile
//    is written, then acted on.
// A vfork child, or a child cloned without the fork handlers, shares or copies the parent's
// memory without being the measured process: it writes nothing (getpid() differs from the
// measured pid).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstddef>

namespace hpcrun {

// What writes the profile (writer/writer.h: write_process_profile), handed in by start-up so that
// the process's end does not depend on the writer's folder: DIR/EXE.HOST.RANK.PID.hpcl, with `tag`
// DIR/EXE.HOST.RANK.PID.TAG.hpcl; the path written to `written` (size n) if set. Returns whether
// the file was written.
using ProfileWriter = bool (*)(const char* tag, char* written, size_t n);
// At start-up, after the sampler: records the measured pid and the writer, and takes the ending
// signals.
void process_end_init(ProfileWriter write);
// In a fork child: the child is the measured process now.
void process_end_after_fork_child();
enum class EndPath {
  ExitHandler,  // the atexit handler: ordinary context
  Exit,         // _exit/_Exit: maybe inside a signal handler of the program
  Signal,       // the ending handler
};
// Writes the profile unless it was written already (or another thread is writing it: then waits
// for that thread). Only the exit handler scans modules loaded since the last scan first:
// elsewhere the loader's lock may be held by the interrupted code.
void process_end_write(EndPath path);
// The ending handler (also the action for the sampling signal's SIG_DFL): writes, then dies of
// `sig` as the default disposition would.
void process_end_on_signal(int sig, siginfo_t* info, void* uc);
// Before an exec of the measured process: writes what this image measured, tagged with its start
// time (the new image has the same pid), unless it took fewer than 10 samples. Then, if the exec failed,
// the snapshot is removed: the image goes on and writes its whole profile at its end.
void process_end_before_exec();
void process_end_after_failed_exec();
// True once the profile is being written or was written: no new thread is measured.
bool process_ending();

}  // namespace hpcrun
