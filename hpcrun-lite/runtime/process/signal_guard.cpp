// See signal_guard.h. The interposed functions are sigaction, signal, bsd_signal, sysv_signal,
// sigprocmask and pthread_sigmask: glibc's signal() and friends call its internal sigaction,
// not the exported one, so each is interposed on its own.
#include "process/signal_guard.h"

#include <cerrno>
#include <cstring>

#include <atomic>

#include "base/guard.h"
#include "base/real_fns.h"
#include "base/spinlock.h"
#include "process/handler_gate.h"
#include "trees/mask_batch.h"

namespace hpcrun {

namespace {

enum class Owner : int { None, Sampling, Ending };

struct SlotState {
  std::atomic<unsigned> seq{0};     // odd while the action below is being changed
  std::atomic<int> owner{int(Owner::None)};
  struct sigaction program{};       // what the program asked for (valid when owner != None)
};

// constinit: the runtime's constructor may run before this file's dynamic initialisers.
constinit SlotState g_slots[NSIG];
constinit SpinLock g_lock;
// The sampling signals (the real-time one, and SIGTRAP when the timer sends it): bit sig - 1.
// SIGIO is owned apart (g_own_sigio): the program may block it.
std::atomic<uint64_t> g_sampling_bits{0};
bool g_own_sigio = false;
SignalHandler g_ending_handler = nullptr;

// The sampling signals the program believes blocked in this thread (it asked for them).
__thread uint64_t t_program_blocks_sampling __attribute__((tls_model("initial-exec"))) = 0;

constexpr uint64_t bit_of(int sig) { return uint64_t(1) << (sig - 1); }
bool is_sampling(int sig) { return g_sampling_bits.load(std::memory_order_acquire) & bit_of(sig); }

// Calls f(sig) for each signal of the set `bits`.
template <typename F>
void each_signal(uint64_t bits, F f) {
  for (int sig = 1; sig <= 64 && sig < NSIG; ++sig)
    if (bits & bit_of(sig)) f(sig);
}

constexpr int kEndingSignals[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGILL,    SIGTRAP, SIGABRT, SIGBUS,
                                  SIGFPE,  SIGUSR1, SIGSEGV, SIGUSR2,   SIGPIPE, SIGALRM, SIGTERM,
                                  SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS};

bool valid(int sig) { return sig > 0 && sig < NSIG; }

Owner owner_of(int sig) { return Owner(g_slots[sig].owner.load(std::memory_order_acquire)); }

// Blocks every signal of this thread for the duration (sigaction may run inside a handler that
// interrupted this very thread in the middle of an update).
class Critical {
 public:
  Critical() {
    sigset_t all;
    sigfillset(&all);
    real.pthread_sigmask(SIG_SETMASK, &all, &saved_);
    g_lock.lock();
  }
  ~Critical() {
    g_lock.unlock();
    real.pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }

 private:
  sigset_t saved_;
};

void set_program_action(int sig, const struct sigaction& act) {
  SlotState& s = g_slots[sig];
  s.seq.fetch_add(1, std::memory_order_acq_rel);
  s.program = act;
  s.seq.fetch_add(1, std::memory_order_release);
}

struct sigaction read_program_action(int sig) {
  SlotState& s = g_slots[sig];
  struct sigaction copy;
  for (;;) {
    unsigned before = s.seq.load(std::memory_order_acquire);
    if (before & 1) continue;
    memcpy(&copy, &s.program, sizeof copy);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.seq.load(std::memory_order_relaxed) == before) return copy;
  }
}

struct sigaction runtime_action(SignalHandler handler, int extra_flags, uint64_t mask_bits = 0) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | extra_flags;
  sigemptyset(&sa.sa_mask);
  each_signal(mask_bits, [&](int sig) { sigaddset(&sa.sa_mask, sig); });
  return sa;
}

bool is_default(const struct sigaction& a) { return a.sa_handler == SIG_DFL; }

// The interposed sigaction, for a signal the runtime may own.
int owned_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  Critical c;
  Owner o = owner_of(sig);
  struct sigaction previous;
  if (o != Owner::None) previous = g_slots[sig].program;
  else if (real.sigaction(sig, nullptr, &previous) != 0) return -1;

  if (act) {
    if (o == Owner::Sampling) {
      set_program_action(sig, *act);  // the runtime's handler stays
    } else if (is_default(*act) && g_ending_handler) {
      // Back to the default: the ending handler takes the signal again.
      struct sigaction ours = runtime_action(g_ending_handler, SA_NODEFER);
      if (o != Owner::Ending && real.sigaction(sig, &ours, nullptr) != 0) return -1;
      set_program_action(sig, *act);
      g_slots[sig].owner.store(int(Owner::Ending), std::memory_order_release);
    } else {
      if (real.sigaction(sig, act, nullptr) != 0) return -1;
      g_slots[sig].owner.store(int(Owner::None), std::memory_order_release);
    }
  }
  if (old) *old = previous;
  return 0;
}

bool may_own(int sig) {
  return valid(sig) && (is_sampling(sig) || (sig == SIGIO && g_own_sigio) || signal_is_ending(sig));
}

}  // namespace

int program_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  ensure_real_fns();
  if (!may_own(sig)) return real.sigaction(sig, act, old);
  return owned_sigaction(sig, act, old);
}

OldHandler program_signal(int sig, OldHandler handler, int flags, bool mask_self) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = flags;
  sigemptyset(&act.sa_mask);
  if (mask_self && valid(sig)) sigaddset(&act.sa_mask, sig);
  if (program_sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

int program_sigmask(int (*real_fn)(int, const sigset_t*, sigset_t*), int how, const sigset_t* set,
                  sigset_t* old) {
  // The runtime's own calls (libunwind blocks every signal around its locks and its
  // dl_iterate_phdr) must block the sampling signals too: a sample inside those sections would
  // unwind again, on the same locks.
  int taken;
  if (mask_batch_take(real_fn, how, set, old, &taken)) return taken;  // inside one of our unwinds
  const uint64_t sampling = g_sampling_bits.load(std::memory_order_acquire);
  if (!sampling || t_in_runtime) return real_fn(how, set, old);
  sigset_t copy;
  uint64_t asks = 0;
  if (set) {
    copy = *set;
    each_signal(sampling, [&](int sig) {
      if (sigismember(&copy, sig) == 1) asks |= bit_of(sig);
      sigdelset(&copy, sig);
    });
  }
  const uint64_t believed = t_program_blocks_sampling;
  int rc = real_fn(how, set ? &copy : nullptr, old);
  if (rc != 0) return rc;
  if (old) each_signal(believed, [&](int sig) { sigaddset(old, sig); });
  if (set) {
    if (how == SIG_SETMASK) t_program_blocks_sampling = asks;
    else if (how == SIG_BLOCK) t_program_blocks_sampling |= asks;
    else if (how == SIG_UNBLOCK) t_program_blocks_sampling &= ~asks;
  }
  return rc;
}

bool signal_is_ending(int sig) {
  for (int s : kEndingSignals)
    if (s == sig) return true;
  return false;
}

bool signals_own_sampling(int signo, SignalHandler handler) {
  ensure_real_fns();
  if (!valid(signo) || signo > 64) {
    errno = EINVAL;
    return false;
  }
  Critical c;
  // What the program had: the kernel's disposition, or the program's action the slot keeps when
  // the runtime owns the signal already (an ending signal, such as SIGTRAP).
  struct sigaction previous;
  if (owner_of(signo) != Owner::None) previous = g_slots[signo].program;
  else if (real.sigaction(signo, nullptr, &previous) != 0) return false;
  // Each sampling handler blocks the other sampling signals while it runs: they share the
  // thread's tree, and a handler nested in another would only count its sample (handler_gate.h).
  const uint64_t others = signo == SIGIO ? 0 : g_sampling_bits.load(std::memory_order_relaxed);
  // SA_RESTART: a sample must never make the program's system calls fail with EINTR.
  struct sigaction ours = runtime_action(handler, SA_RESTART, others);
  if (real.sigaction(signo, &ours, nullptr) != 0) return false;
  each_signal(others, [&](int sig) {
    struct sigaction theirs;
    if (real.sigaction(sig, nullptr, &theirs) != 0) return;
    sigaddset(&theirs.sa_mask, signo);
    real.sigaction(sig, &theirs, nullptr);
  });
  set_program_action(signo, previous);
  g_slots[signo].owner.store(int(Owner::Sampling), std::memory_order_release);
  if (signo == SIGIO) {
    g_own_sigio = true;
  } else {
    g_sampling_bits.fetch_or(bit_of(signo), std::memory_order_acq_rel);
    // The thread's own side (its NUMA flush, its end) keeps every sampling handler out: a timer
    // SIGTRAP arriving there found the tree taken and was dropped as nested (e2e.heap_list_churn).
    blocked_with_sampling(signo);
  }
  return true;
}

void signals_own_endings(SignalHandler handler) {
  ensure_real_fns();
  Critical c;
  g_ending_handler = handler;
  for (int sig : kEndingSignals) {
    if (owner_of(sig) == Owner::Sampling) continue;
    struct sigaction previous;
    if (real.sigaction(sig, nullptr, &previous) != 0 || !is_default(previous)) continue;
    // SA_NODEFER: a fault inside the ending handler reaches it again instead of killing the
    // process at once, so the handler can abandon the profile and still die of the first signal.
    struct sigaction ours = runtime_action(handler, SA_NODEFER);
    if (real.sigaction(sig, &ours, nullptr) != 0) continue;
    set_program_action(sig, previous);
    g_slots[sig].owner.store(int(Owner::Ending), std::memory_order_release);
  }
}

void signal_forward(int sig, siginfo_t* info, void* uc, void (*die)(int, siginfo_t*, void*)) {
  if (!valid(sig)) return;
  struct sigaction a = read_program_action(sig);
  // A trap the kernel forces on the thread (int3, a single step, a hardware breakpoint: a
  // positive si_code, not kill or raise) ends the process when the program ignores or blocks
  // it: the kernel then puts back the default action (force_sig_info). The runtime's handler is
  // installed and unblocked for the timer's SIGTRAP, so it acts as the kernel would have.
  const bool forced = sig == SIGTRAP && info && info->si_code > 0;
  if (forced && (a.sa_handler == SIG_IGN || (t_program_blocks_sampling & bit_of(sig)))) {
    a.sa_handler = SIG_DFL;
    a.sa_flags &= ~SA_SIGINFO;
    set_program_action(sig, a);
  }
  if (a.sa_handler == SIG_IGN) return;
  if (a.sa_handler == SIG_DFL) {
    die(sig, info, uc);
    return;
  }
  if (a.sa_flags & SA_RESETHAND) {
    struct sigaction reset = a;
    reset.sa_handler = SIG_DFL;
    reset.sa_flags &= ~SA_SIGINFO;
    set_program_action(sig, reset);
  }
  // The kernel would have blocked the program's sa_mask (and the signal, unless SA_NODEFER)
  // while its handler runs.
  sigset_t mask = a.sa_mask, saved;
  if (!(a.sa_flags & SA_NODEFER)) sigaddset(&mask, sig);
  real.pthread_sigmask(SIG_BLOCK, &mask, &saved);
  if (a.sa_flags & SA_SIGINFO) a.sa_sigaction(sig, info, uc);
  else a.sa_handler(sig);
  real.pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

void signal_set_default(int sig) {
  if (!valid(sig)) return;
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  real.sigaction(sig, &dfl, nullptr);
  g_slots[sig].owner.store(int(Owner::None), std::memory_order_release);
}

}  // namespace hpcrun
