// The signals the runtime needs, kept working whatever the program does with signals.
//
// Two kinds of signal are the runtime's:
//  - the sampling signal (SIGRTMIN+4 by default). Its handler is always the runtime's. A program
//    that installs a handler for it, ignores it or resets it to SIG_DFL changes only its own
//    view: sigaction() remembers the program's action and reports it back, and signals that did
//    not come from a sampling event (kill, sigqueue, raise: si_code <= 0) are handed to that
//    action (signal_forward). Masks the program sets with sigprocmask/pthread_sigmask never
//    block it; the program still reads back the mask it asked for.
//  - the ending signals (SIGTERM, SIGSEGV, SIGABRT, ...: the signals whose default action ends
//    the process and that can be caught). While the program leaves one at its default
//    disposition, the runtime's ending handler is installed in its place, writes the profile and
//    then dies of the signal as the default would (process_end.cpp). The program sees SIG_DFL.
//    When the program installs its own handler or SIG_IGN, that is installed for real: its
//    handlers run exactly as without the tool.
//
// The program's actions live in a table updated under a spinlock with every signal blocked
// (sigaction() may be called from a signal handler) and read by the handlers through a sequence
// counter, without a lock.
#pragma once

#include <signal.h>

namespace hpcrun {

using SignalHandler = void (*)(int, siginfo_t*, void*);

// Makes `handler` the sampling signal's handler. Returns false (with errno) when the kernel
// refuses. Not signal-safe; called once at start-up. Also called for SIGIO: when a user's queue
// of pending real-time signals is full, the kernel sends a sampling event's signal as a plain
// SIGIO (si_code SI_KERNEL), whose default action would kill the program.
bool signals_own_sampling(int signo, SignalHandler handler);
// Installs `handler` for every ending signal whose disposition is SIG_DFL now.
void signals_own_endings(SignalHandler handler);
// Whether `sig` is one of the ending signals.
bool signal_is_ending(int sig);
// Runs the program's action for a sampling-signal number that did not come from a sampling
// event. Async-signal-safe. `die` is called when the program's action is SIG_DFL (the default
// action of the real-time and user signals ends the process).
void signal_forward(int sig, siginfo_t* info, void* uc, void (*die)(int sig, siginfo_t*, void*));
// Puts the kernel's disposition of `sig` back to SIG_DFL, before the process dies of it.
void signal_set_default(int sig);

// What the program's signal calls do (interpose/signal_hooks.cpp). sigaction:
int program_sigaction(int sig, const struct sigaction* act, struct sigaction* old);
// The signal() family: `flags` of the action, `mask_self` to block the signal while it runs.
using OldHandler = void (*)(int);
OldHandler program_signal(int sig, OldHandler handler, int flags, bool mask_self);
// sigprocmask and pthread_sigmask through `real_fn`: the sampling signals are taken out of the
// mask the program sets, and what it asked for is recorded to be read back.
int program_sigmask(int (*real_fn)(int, const sigset_t*, sigset_t*), int how, const sigset_t* set,
                    sigset_t* old);

}  // namespace hpcrun
