// How the soft source's timer reaches its thread at each overflow.
//
//  - Realtime: the sampling signal (SIGRTMIN+4 unless HPCRUN_LITE_SIGNAL says otherwise), routed
//    to the thread with F_SETSIG and F_SETOWN_EX. Every kernel has it. The kernel sends it from
//    an irq_work, which on x86 is a self-IPI: in a virtual machine each one is an exit to the
//    hypervisor.
//  - Trap: perf's own SIGTRAP (perf_event_attr.sigtrap, si_code TRAP_PERF). From Linux 6.11 the
//    kernel queues it as task work on the thread's way back to user mode, with no interrupt.
//
// Measured on a 2-vCPU AMD EPYC VM (nested virtualisation, Linux 6.18), one thread of arithmetic
// at 5,000 samples/s with an empty handler, three alternating rounds: the task-clock timer alone
// took 5.9% of the thread's time, + the real-time signal 7.0% more (one IRQ-work interrupt per
// sample in /proc/interrupts), + SIGTRAP 1.3% (none). The timer sends SIGTRAP when:
//  - the kernel is 6.11 or later (older ones send it through the same irq_work: no gain; before
//    5.18 a SIGTRAP that found the thread blocking it would have killed the process);
//  - no debugger traces the process (a tracer stops at every SIGTRAP as if it were its own
//    breakpoint);
//  - HPCRUN_LITE_SIGTRAP is not 0;
//  - the kernel opens a task-clock event with sigtrap (a probe at start-up).
#pragma once

#include <signal.h>

#include <cstdint>

namespace hpcrun {

enum class TimerSignal : uint8_t { Realtime, Trap };

// What the choice depends on, gathered by timer_signal_facts (or written by a test).
struct TimerSignalFacts {
  const char* env = nullptr;  // HPCRUN_LITE_SIGTRAP, or nullptr
  int kernel_major = 0, kernel_minor = 0;
  int tracer_pid = 0;          // /proc/self/status TracerPid
  bool probe_opens = false;    // a disabled task-clock event with sigtrap opened here
};

struct TimerSignalChoice {
  TimerSignal signal;
  const char* why;  // a static phrase for the log and --check: "kernel 6.4 is older than 6.11"
};

// The rules above, on `facts`. Pure.
TimerSignalChoice timer_signal_decide(const TimerSignalFacts& facts);
// The facts of this process: uname, /proc/self/status, the probe (skipped when an earlier fact
// already decides). Not signal-safe; at start-up.
TimerSignalFacts timer_signal_facts();
// "sigtrap" or "realtime": META timer_signal and --check --json.
const char* timer_signal_name(TimerSignal s);
// "6.18.44-fc" -> 6, 18. False when the release does not start with two numbers.
bool parse_kernel_release(const char* release, int* major, int* minor);
// Whether a SIGTRAP is one of the timer's (TRAP_PERF with the timer's cookie), not the program's
// (int3, raise, a perf sigtrap event of its own). Async-signal-safe.
bool timer_trap_is_ours(const siginfo_t* info);

}  // namespace hpcrun
