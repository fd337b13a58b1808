// See process_end.h.
#include "process/process_end.h"

#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "base/guard.h"
#include "memory/last_words_heap.h"
#include "base/log.h"
#include "base/real_fns.h"
#include "process/runtime.h"
#include "process/source_table.h"
#include "process/signal_guard.h"
#include "process/thread_state.h"

namespace hpcrun {

namespace {

// The profile writer start-up handed in (process_end_init).
ProfileWriter g_write_profile = nullptr;

enum EndState : int { kRunning, kWriting, kWritten };

constinit std::atomic<int> g_state{kRunning};
constinit std::atomic<pid_t> g_writer{0};
constinit std::atomic<int> g_held_signal{0};
// The measured process; 0 before start-up finished.
constinit std::atomic<pid_t> g_pid{0};
// Test hook (HPCRUN_LITE_TEST_WRITER_FAULT=segv|abort): the writer fails that way, to show that
// a failing writer neither hangs nor changes how the program ends.
int g_test_fault = 0;
__thread sigjmp_buf* t_escape __attribute__((tls_model("initial-exec"))) = nullptr;

pid_t current_tid() { return pid_t(syscall(SYS_gettid)); }

// The signals a fault inside the writer raises on the writing thread.
bool is_writer_failure(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT ||
         sig == SIGTRAP || sig == SIGSYS;
}

// The signals the kernel raises for an instruction that faults: it runs again after the handler
// returns. Not SIGTRAP: int3, a single step and a data breakpoint trap after their instruction,
// which a return would leave behind (the program would go on where it should have died).
bool is_fault(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

// Waits while another thread writes. 60 s in all: a large profile takes a few hundred
// milliseconds to write; a writer that takes longer than this is stuck, and the process must
// still end. Returns the state it found afterwards.
int wait_for_writer() {
  timespec ms{0, 1000000};
  int state = g_state.load(std::memory_order_acquire);
  for (int i = 0; i < 60000 && state == kWriting; ++i) {
    nanosleep(&ms, nullptr);
    state = g_state.load(std::memory_order_acquire);
  }
  return state;
}

// Dies of `sig` as its default disposition would. From a handler of `sig` (uc set) the signal
// is raised again and delivered when the handler returns; a fault raised by the kernel simply
// happens again. Outside a handler the signal is unblocked and raised here.
void die_of(int sig, siginfo_t* info, void* ucv) {
  signal_set_default(sig);
  if (ucv) {
    auto* uc = static_cast<ucontext_t*>(ucv);
    sigdelset(&uc->uc_sigmask, sig);
    if (info && info->si_code > 0 && is_fault(sig)) return;
    raise(sig);
    return;
  }
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  raise(sig);
  real.pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
}

}  // namespace

void process_end_init(ProfileWriter write) {
  g_write_profile = write;
  if (const char* v = getenv("HPCRUN_LITE_TEST_WRITER_FAULT"))
    g_test_fault = strcmp(v, "segv") == 0 ? 1 : strcmp(v, "abort") == 0 ? 2 : 0;
  g_pid.store(getpid(), std::memory_order_release);
  signals_own_endings(process_end_on_signal);
}

void process_end_after_fork_child() {
  g_pid.store(getpid(), std::memory_order_release);
  g_state.store(kRunning, std::memory_order_release);
  g_writer.store(0, std::memory_order_relaxed);
  g_held_signal.store(0, std::memory_order_relaxed);
}

bool process_ending() { return g_state.load(std::memory_order_relaxed) != kRunning; }

namespace {

// Writes the profile with the last-words heap, escaping from a fault inside the writer. The
// caller holds the writing state. `final`: the process ends, sampling stops for good; else
// (before an exec) the other threads go on sampling while the trees are read.
bool write_guarded(bool final, bool rescan, const char* tag, char* written, size_t n) {
  bool ok = false;
  int saved_errno = errno;
  RuntimeGuard guard;
  sigjmp_buf escape;
  t_last_words = 1;
  if (sigsetjmp(escape, 1) == 0) {
    t_escape = &escape;
    if (rescan && g_modules_dirty.load(std::memory_order_acquire)) scan_now();
    if (final) {
      g_tracking.store(false, std::memory_order_relaxed);
      sources_stop_all();
    }
    if (g_test_fault == 1) *static_cast<volatile int*>(nullptr) = 0;
    if (g_test_fault == 2) abort();
    ok = g_write_profile && g_write_profile(tag, written, n);
  } else {
    log_warn("the profile writer failed (it raised a fault); no profile written, the program "
             "ends as it would have");
  }
  t_escape = nullptr;
  t_last_words = 0;
  errno = saved_errno;
  return ok;
}

// Takes the writing state for this thread; false when the profile is written or being written
// (then, from another thread, after waiting for it), or when this is not the measured process.
bool begin_writing() {
  pid_t pid = g_pid.load(std::memory_order_acquire);
  if (pid == 0 || getpid() != pid) return false;  // not started, or a vfork/clone child
  for (;;) {
    int expected = kRunning;
    if (g_state.compare_exchange_strong(expected, kWriting, std::memory_order_acq_rel)) break;
    if (expected == kWritten || g_writer.load(std::memory_order_acquire) == current_tid())
      return false;
    // Another thread writes: the final profile (then it is done when it is written), or the
    // snapshot before an exec (then the state goes back to running, and this thread writes).
    if (wait_for_writer() != kRunning) return false;
  }
  g_writer.store(current_tid(), std::memory_order_release);
  return true;
}

uint64_t samples_so_far() {
  uint64_t n = 0;
  for (ThreadState* t = threads_head(); t; t = t->next)
    if (!t->stale) n += t->samples;
  return n;
}

// 20 ms of CPU at the default rate.
constexpr uint64_t kMinExecSnapshotSamples = 10;

// The snapshot written before an exec, removed if the exec fails (the process then writes its
// whole profile at its end).
char g_exec_snapshot[4096];

}  // namespace

void process_end_write(EndPath path) {
  if (!begin_writing()) return;
  write_guarded(true, path == EndPath::ExitHandler, nullptr, nullptr, 0);
  g_state.store(kWritten, std::memory_order_release);
  // A signal held during the write: after exit() the program goes on (its other exit handlers),
  // so the signal is acted on now, as it would have been. After _exit() or an ending signal it
  // would have come too late to matter.
  int held = g_held_signal.exchange(0);
  if (held && path == EndPath::ExitHandler) die_of(held, nullptr, nullptr);
}

void process_end_before_exec() {
  g_exec_snapshot[0] = 0;
  // A forked child that execs at once (the usual fork and exec: MPI_Init starting orted, a
  // shell's commands) has only its start-up, a few samples, not worth a file of its own.
  if (samples_so_far() < kMinExecSnapshotSamples || !begin_writing()) return;
  // The new image of the same program has the same pid and would write the same name: the
  // image's start time tells the two apart.
  char tag[48];
  snprintf(tag, sizeof tag, "exec-%llu", (unsigned long long)g_config.start_ns);
  write_guarded(false, false, tag, g_exec_snapshot, sizeof g_exec_snapshot);
  g_state.store(kRunning, std::memory_order_release);
  if (int held = g_held_signal.exchange(0)) die_of(held, nullptr, nullptr);
}

void process_end_after_failed_exec() {
  if (g_exec_snapshot[0]) unlink(g_exec_snapshot);
  g_exec_snapshot[0] = 0;
}

namespace {
// The signals that end a process, by name (sigabbrev_np is glibc 2.32 and later: RHEL 8 has not).
const char* signal_abbrev(int sig) {
  switch (sig) {
    case SIGHUP: return "HUP";
    case SIGINT: return "INT";
    case SIGQUIT: return "QUIT";
    case SIGILL: return "ILL";
    case SIGTRAP: return "TRAP";
    case SIGABRT: return "ABRT";
    case SIGBUS: return "BUS";
    case SIGFPE: return "FPE";
    case SIGUSR1: return "USR1";
    case SIGSEGV: return "SEGV";
    case SIGUSR2: return "USR2";
    case SIGPIPE: return "PIPE";
    case SIGALRM: return "ALRM";
    case SIGTERM: return "TERM";
    case SIGXCPU: return "XCPU";
    case SIGXFSZ: return "XFSZ";
    default: return "?";
  }
}
}  // namespace

void process_end_on_signal(int sig, siginfo_t* info, void* uc) {
  int saved_errno = errno;
  if (g_state.load(std::memory_order_acquire) == kWriting &&
      g_writer.load(std::memory_order_acquire) == current_tid()) {
    // The signal came while this thread writes the profile.
    if (is_writer_failure(sig) && t_escape) siglongjmp(*t_escape, sig);
    g_held_signal.store(sig, std::memory_order_release);
    errno = saved_errno;
    return;
  }
  log_info("signal %d (%s) ends pid %d: writing the profile", sig, signal_abbrev(sig), int(getpid()));
  process_end_write(EndPath::Signal);
  errno = saved_errno;
  die_of(sig, info, uc);
}

}  // namespace hpcrun
