// Every perf_event_open of the runtime goes through perf_open(), so tests can check the
// attributes a source builds without a PMU, and the attribute builders are plain functions.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>

namespace hpcrun {

// Software task-clock sampling of one thread: one overflow every period_ns of its CPU time, user
// mode only (works with perf_event_paranoid=2), created disabled so the signal owner can be set
// before the first overflow. With `trap` the kernel sends each overflow as a SIGTRAP to the
// thread itself (perf's sigtrap: si_code TRAP_PERF, si_perf_data kTimerTrapCookie), no routing
// needed (timer_signal.h).
perf_event_attr soft_clock_attr(uint64_t period_ns, bool trap = false);
// Marks the timer's SIGTRAPs apart from any other (a program's own perf sigtrap events, int3).
inline constexpr uint64_t kTimerTrapCookie = 0x68706c74696d6572ull;  // "hpltimer"

// A debug-register watch (PERF_TYPE_BREAKPOINT) on the aligned 8-byte `word`, reads and writes
// (or writes only), user mode only, one overflow per access. Disabled (opened in advance) or
// enabled (given to PERF_EVENT_IOC_MODIFY_ATTRIBUTES to re-aim an open event, which enables it;
// the kernel lets the modify change the type between the two).
perf_event_attr breakpoint_attr(uint64_t word, bool enabled, bool writes_only = false);

// The single entry to the system call. Returns the fd or -errno.
int perf_open(const perf_event_attr& attr, pid_t tid, int cpu, int group_fd, unsigned long flags);

// perf_open for thread `tid` (0: the caller), any CPU, in the group of `group_fd` (-1: none),
// close-on-exec, with the descriptor moved to 1000 or above: out of the low numbers a program
// may assume are its own. Returns the fd or -errno. The caller guards it (fd_guard.h).
int perf_open_thread(const perf_event_attr& attr, pid_t tid, int group_fd = -1);

// Routes the event's overflow signal to thread `tid` as `signo`, as below, without enabling it.
int perf_route_thread_signal(int fd, int signo, pid_t tid);

// Routes the event's overflow signal to thread `tid` as `signo` (F_SETSIG, then F_SETOWN_EX with
// F_OWNER_TID, then O_ASYNC, in that order) and enables it. For an fd fresh from perf_open (its
// file status flags are replaced by O_ASYNC). signo 0: an event that signals by itself (sigtrap),
// only enabled. one_overflow: enabled for one overflow, after which the kernel disables it.
// Returns 0 or -errno.
int perf_arm_thread_signal(int fd, int signo, pid_t tid, bool one_overflow = false);

// Test hook: when set, perf_open calls it instead of the system call.
using PerfOpenHook = int (*)(const perf_event_attr&, pid_t, int, int, unsigned long);
void set_perf_open_hook(PerfOpenHook hook);

}  // namespace hpcrun
