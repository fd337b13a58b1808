// See handler.h. It obeys the signal-handler rules of guard.h: it allocates nothing, takes no
// lock, and saves and restores errno.
#include "sources/handler.h"

#include <signal.h>
#include <ucontext.h>

#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "hpcrun/probe/timer_signal.h"
#include "process/process_end.h"
#include "process/signal_guard.h"
#include "process/source_table.h"
#include "process/thread_state.h"

namespace hpcrun {

namespace {

int g_signo = 0;
TimerTick g_tick = nullptr;
std::atomic<bool> g_stopped{false};
std::atomic<uint64_t> g_overflowed{0};

void on_signal(int sig, siginfo_t* info, void* ucv) {
  // Only a sampling event's signal carries a positive si_code (POLL_IN); kill, sigqueue and
  // raise give zero or less. Those belong to the program (signal_guard.h), as does every SIGTRAP
  // but the timer's (a breakpoint, raise).
  const bool trap = sig == SIGTRAP;
  if (trap ? !timer_trap_is_ours(info) : info->si_code <= 0) {
    signal_forward(sig, info, ucv, process_end_on_signal);
    return;
  }
  const int saved_errno = errno;
  ThreadState* ts = t_state;
  if (!ts)  // a thread that existed before the runtime: its stack is where this signal interrupted it
    ts = thread_claim_adopted(uint64_t(static_cast<const ucontext_t*>(ucv)->uc_mcontext.gregs[REG_RSP]));
  // Another source's event (a page-fault ring filling up, a hardware record, a watch's trap):
  // the source table says whose, and that source drains it. A SIGTRAP here is the timer's.
  if (ts && (trap || !sources_on_signal(ts, info->si_fd, ucv)) && g_tick) g_tick(ts, sig, ucv);
  errno = saved_errno;
}

// A sample the kernel could not queue as the sampling signal (see signals_own_sampling).
void on_sigio(int sig, siginfo_t* info, void* ucv) {
  if (info->si_code == SI_KERNEL) {
    g_overflowed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  signal_forward(sig, info, ucv, process_end_on_signal);
}

}  // namespace

bool handler_install(int signo, TimerTick tick) {
  g_tick = tick;
  g_signo = signo;
  if (signo != SIGIO && !signals_own_sampling(SIGIO, on_sigio))
    log_warn("cannot take SIGIO (%s): a full signal queue could kill the program", strerror(errno));
  if (!signals_own_sampling(signo, on_signal)) {
    log_warn("cannot install the sampling signal handler for signal %d: %s", signo, strerror(errno));
    return false;
  }
  return true;
}

bool handler_take_trap() { return signals_own_sampling(SIGTRAP, on_signal); }

int handler_signal() { return g_signo; }

void handler_take(int sig, siginfo_t* info, void* ucv) { on_signal(sig, info, ucv); }

void handler_halt() { g_stopped.store(true, std::memory_order_seq_cst); }

const std::atomic<bool>& handler_stopped() { return g_stopped; }

uint64_t handler_overflowed() { return g_overflowed.load(std::memory_order_relaxed); }

}  // namespace hpcrun
