// The one handler of the sampling signal, shared by every source. The kernel delivers every
// source's signal to it (the timer's overflow, a page-fault or hardware ring filling up, a
// watch's trap, all routed to the thread they measure); it leaves the program's own signals to
// the program (signal_guard.h), finds the thread's state, lets the source table find whose
// descriptor signalled (source_table.h: on_signal), and hands the rest, the timer's, to the
// timer's tick. It also owns the flag that ends every handler's work on the trees at process end
// (handler_gate.h) and the count of signals the kernel could not queue.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstdint>

namespace hpcrun {

struct ThreadState;

// The timer's share of a signal: `ts` is the interrupted thread's state, no other source
// claimed the signal, errno is saved. Async-signal-safe.
using TimerTick = void (*)(ThreadState* ts, int sig, void* ucontext);

// Installs the handler on `signo` and on SIGIO, where the kernel sends a sample it cannot queue
// (a full queue of pending signals). False, with a warning, when `signo` cannot be taken. Not
// signal-safe.
bool handler_install(int signo, TimerTick tick);
// Also takes SIGTRAP, which the timer then signals with (timer_signal.h). Not signal-safe.
bool handler_take_trap();
// The sampling signal, 0 before handler_install.
int handler_signal();
// Handles one signal as if it had just arrived: a pending one that a slow handler took out of
// the queue (the timer's overruns). Async-signal-safe.
void handler_take(int sig, siginfo_t* info, void* ucontext);

// Process end: from now on no sampling handler touches a tree; the handlers in flight finish
// theirs (handler_gate.h). The flag the gates read.
void handler_halt();
const std::atomic<bool>& handler_stopped();

// Samples lost because the kernel's queue of pending signals was full (they came as SIGIO).
uint64_t handler_overflowed();

}  // namespace hpcrun
