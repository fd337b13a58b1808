// See sampler.h. The handler obeys the signal-handler rules of guard.h: it allocates nothing
// (the tree grows with mmap), takes no lock (the address map is read lock-free), saves and
// restores errno, and when it interrupts the runtime itself records only the interrupted PC.
#include "sources/soft/sampler.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "base/clock.h"
#include "sources/soft/access_decode.h"
#include "base/guard.h"
#include "base/real_fns.h"
#include "memory/heap_map.h"
#include "memory/regions.h"
#include "hpcl/profile.h"
#include "base/log.h"
#include "loader/modules.h"
#include "memory/offset_hist.h"
#include "process/fd_guard.h"
#include "trees/numa.h"
#include "hpcrun/probe/perf_event.h"
#include "process/process_end.h"
#include "process/runtime.h"
#include "python/py_paths.h"
#include "sources/sampling_phase.h"
#include "process/source_table.h"
#include "sources/soft/saved_regs.h"
#include "sources/source_state.h"
#include "sources/stack_place.h"
#include "hpcrun/probe/timer_signal.h"
#include "sources/watch/watch.h"
#include "process/handler_gate.h"
#include "process/signal_guard.h"
#include "process/thread_state.h"
#include "memory/track_control.h"
#include "unwind/unwind.h"

// The parent frame of every sample that interrupted the runtime's own work, so that viewers of
// the calling-context tree show that time under one root named for what it is (the analyzer
// labels it "[profiler's own work]") instead of as the runtime's internal functions at the top
// level. Never called: only its address is recorded.
extern "C" __attribute__((noinline, used, visibility("hidden"))) void hpcrun_lite_profiler_own_work() {
  asm volatile("");
}

namespace hpcrun {

namespace {

uint64_t g_period_ns = 0;
int g_signo = 0;
// Whether the timer sends perf's SIGTRAP instead of g_signo (timer_signal.h).
bool g_trap = false;
std::atomic<bool> g_enabled{false};
// Whether the timer's signals are samples (the soft source); without, they only read the
// page-fault rings.
bool g_record = true;
// Whether each thread runs the timer at all: not when a hardware source samples and no
// page-fault ring needs reading.
bool g_timer = true;
std::atomic<bool> g_stopped{false};
std::atomic<bool> g_warned_open{false};
std::atomic<uint64_t> g_overflowed{0};
// Mixed into each thread's phase seed, so two threads that start in the same nanosecond with
// reused thread ids still draw different phases.
std::atomic<uint64_t> g_phase_draws{0};

using hpcl::NodeKind;

// Benchmarks only (HPCRUN_LITE_TEST_HANDLER_STAGE, bench/sample_cost.sh): the handler stops after
// this stage of record_sample, so each stage's cost is measured running the real code. Full
// (the default) records the sample.
enum class Stage : uint8_t { Entry = 1, Decode, Classify, Unwind, Full };
Stage g_test_stage = Stage::Full;

Stage stage_from_env(const char* v) {
  if (!v) return Stage::Full;
  if (!strcmp(v, "entry")) return Stage::Entry;
  if (!strcmp(v, "decode")) return Stage::Decode;
  if (!strcmp(v, "classify")) return Stage::Classify;
  if (!strcmp(v, "unwind")) return Stage::Unwind;
  return Stage::Full;
}

constexpr uint32_t kUnknownRoot = kCctUnknownRoot, kNoDataRoot = kCctNoDataRoot;

void record_sample(ThreadState* ts, const ucontext_t* uc) {
  if (g_test_stage == Stage::Entry) return;
  SavedRegs regs = saved_regs_from_ucontext(uc, ts->fs_base);
  // The interrupted stack pointer, on the thread's own stack: mapped below it since, whatever the
  // unwind below reads there (unwind_validate.h).
  if (const uint64_t sp = uint64_t(uc->uc_mcontext.gregs[REG_RSP]);
      sp >= ts->stack_lo && sp < ts->stack_hi && (ts->stack_floor == 0 || sp < ts->stack_floor))
    ts->stack_floor = sp;
  Access acc = resolve_sample(regs);
  if (g_test_stage == Stage::Decode) return;
  Cct& c = ts->cct;
  uint32_t node, var = Cct::kNone;
  uint64_t leaf = regs.rip;
  SampleEstimate est;
  switch (acc.kind) {
    case AccessKind::Address:
      node = var = classify_address(c, acc.ea, ts, &est);
      leaf = acc.insn;
      break;
    case AccessKind::Unresolvable:
      ++ts->unresolved;
      node = c.child(kUnknownRoot, uint8_t(NodeKind::UnknownClass),
                     uint64_t(hpcl::UnknownClass::Other), 0);
      leaf = acc.insn;
      break;
    default:
      ++ts->nodata;
      node = kNoDataRoot;
      break;
  }
  if (g_test_stage == Stage::Classify) return;
  if (acc.kind == AccessKind::Address && var != Cct::kNone) node = place_on_stack(ts, uc, acc.insn, acc.ea, node);
  uint64_t frames[kMaxSampleFrames];
  int n = ts->unwind_ready ? capture_sample_path(regs.rip, frames, kMaxSampleFrames) : 0;
  if (g_test_stage == Stage::Unwind) return;
  node = attach_access_path(c, node, ts, frames, n);
  if (node != Cct::kNone) node = c.child(node, uint8_t(NodeKind::Frame), 0, leaf);
  if (node == Cct::kNone) {
    ++ts->dropped;
    return;
  }
  c.add_samples(node, 1);
  if (est.extra) c.add_estimate(node, est.extra, est.var);
  // The watchpoint analyses arm on the variable's node; an access at or after the interrupted
  // PC has not run yet.
  if (acc.kind == AccessKind::Address && var != Cct::kNone && watch_enabled())
    watch_on_sample(ts, acc.ea, acc.size, acc.is_write, acc.insn < regs.rip, var);
  // sched_getcpu reads the rseq area glibc registers (a system call on older glibc): both
  // async-signal-safe. The page's node is looked up later, in a batch (numa.h).
  if (acc.kind == AccessKind::Address && numa_enabled()) {
    int cpu = sched_getcpu();
    if (cpu >= 0) ts->numa.add(c, node, acc.ea, uint32_t(cpu));
  }
}

// The thread's timer and its dlopen pause, in the soft row's slot of the thread state
// (source_state.h). Written by the thread itself (its start, its handler, its dlopen wrapper),
// the timer's descriptor also by the process-end path and fd_guard (atomically).
struct SoftThread {
  int perf_fd;             // the thread's timer; -1 when not sampling
  int period_pending;      // the timer still runs its random first period
  // Whether this thread's timer signals are samples: with the soft source, or for a thread whose
  // hardware source could not start (sampler_start_fallback); else they only read rings.
  int soft_records;
  uint32_t periods_to_dither;  // samples left before the next draw (dither_period)
  uint64_t period_rng;         // draws each next sampling period (dither_period)
  // dlopen (sampler.h): whether the thread is inside one now; whether the timer is paused now;
  // the thread's CPU time in them that the paused timer did not sample; its CPU clock when the
  // current pause began.
  int in_dlopen;
  int dlopen_paused;
  uint64_t dlopen_ns;
  uint64_t dlopen_since;
};

SoftThread& soft_of(ThreadState* ts) { return source_state<SoftThread>(ts, kSoftSource); }
const SoftThread& soft_of(const ThreadState* ts) {
  return source_state<SoftThread>(ts, kSoftSource);
}

// The first overflow disabled the event (it was enabled for one overflow): from here on the real
// period. Read the fd once: the thread's exit path may have closed it (-1) while the signal was
// pending.
void start_real_period(ThreadState* ts) {
  int fd = __atomic_load_n(&soft_of(ts).perf_fd, __ATOMIC_ACQUIRE);
  if (fd < 0) return;
  ioctl(fd, PERF_EVENT_IOC_PERIOD, &g_period_ns);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

// A new period is drawn uniformly from [P/2, 3P/2) every kDitherEvery samples. A fixed period
// locks onto a program's own periodic pattern (a loop of kernel calls of fixed length) and keeps
// sampling the same phases of it: e2e.stripped's shares spread over 10 points from run to run,
// where binomial noise alone gives 1, and its sites came out 6 points off in two CI runs. A draw
// moves the phase of the samples after it to a uniform place, so no phase is favoured; between
// draws the samples keep their spacing. Not at every sample: the ioctl restarts the event's
// hrtimer, which costs as much as the real-time signal in a virtual machine (14 us on the
// development VM, bench/sample_cost_alt: reprogramming the timer exits to the hypervisor).
// Every 8th: an eighth of a system call per sample (bench/kernel_entries.sh), and still a fresh
// phase many times a second at any rate worth sampling at.
constexpr uint32_t kDitherEvery = 8;

void dither_period(ThreadState* ts) {
  SoftThread& s = soft_of(ts);
  if (s.periods_to_dither > 1) {
    --s.periods_to_dither;
    return;
  }
  s.periods_to_dither = kDitherEvery;
  int fd = __atomic_load_n(&s.perf_fd, __ATOMIC_ACQUIRE);
  if (fd < 0) return;
  uint64_t next = g_period_ns / 2 + splitmix64(&s.period_rng) % (g_period_ns ? g_period_ns : 1);
  ioctl(fd, PERF_EVENT_IOC_PERIOD, &next);
}

// Whether a signal just taken is this thread's timer: SIGTRAP with the timer's mark, or the
// real-time signal from the thread's event.
bool is_timer_signal(int sig, const siginfo_t& si, int fd) {
  if (sig == SIGTRAP) return timer_trap_is_ours(&si);
  return si.si_code > 0 && si.si_fd == fd;
}

// Tests only (HPCRUN_LITE_TEST_HANDLER_SPIN_US): every recorded sample's handler spins this
// long, to be slower than the period.
uint64_t g_test_spin_ns = 0;

void test_spin() {
  if (!g_test_spin_ns) return;
  uint64_t end = monotonic_ns() + g_test_spin_ns;
  while (monotonic_ns() < end) __builtin_ia32_pause();
}

void on_sample(int sig, siginfo_t* info, void* ucv);

// A handler slower than the period: the task clock counts the handler's own time, so the event
// overflowed again while it ran, and that signal waits (blocked while we run). Delivered after
// the return it would land on the same PC and charge it with the handler's time; with every
// handler that slow, each sample would queue the next and the program would never run again.
// The ioctl just made restarted the period, so those overflows are taken here and counted as
// overruns. Signals of the same number that are not this event's (the program's own, another
// source's ring) are handled as if they had arrived now. Async-signal-safe: system calls only.
// Only after a slow handler (see handler_may_have_overrun): a fast one saves a system call.
void take_overruns(ThreadState* ts, int sig, void* ucv) {
  int fd = __atomic_load_n(&soft_of(ts).perf_fd, __ATOMIC_ACQUIRE);
  if (fd < 0) return;
  uint64_t set = uint64_t(1) << (sig - 1);  // the kernel's sigset for rt_sigtimedwait
  const timespec zero{0, 0};
  for (int i = 0; i < 4; ++i) {
    siginfo_t si;
    if (syscall(SYS_rt_sigtimedwait, &set, &si, &zero, sizeof set) != sig) return;
    if (is_timer_signal(sig, si, fd)) {
      ++ts->overruns;
    } else {
      on_sample(sig, &si, ucv);  // in_handler is still ours: a sample of ours would count nested
    }
  }
}

// The first sample inside a dlopen (sampler.h): the timer stops until the dlopen returns, and the
// CPU time from here on counts as not sampled. Why pause at all: a thread that sleeps inside
// dlopen pays the timer's restart at every wake-up (the kernel cancels a task clock's hrtimer
// when the thread is switched out, restarts it when it comes back; 5-12 us a switch on the
// development VM, docs/PERFORMANCE.md). Open MPI's MPI_Init opens libpsm2 and libinfinipath,
// whose constructors call usleep ~500 times each on a machine without their hardware: ~1,000
// switches, 3 ms of CPU per process under the timer (measured on LAMMPS's start-up). A disabled
// event is not switched at all. HPCToolkit's hpcrun does not sample inside dlopen either (its
// samples that arrive then are counted as blocked). Pausing from the first sample instead of at
// every dlopen: the 53 dlopens of a LAMMPS start-up cost 212 system calls to pause and resume
// (two ioctls, two CPU clock reads), nearly all for calls no sample reached.
void pause_inside_dlopen(ThreadState* ts) {
  SoftThread& s = soft_of(ts);
  int fd = __atomic_load_n(&s.perf_fd, __ATOMIC_ACQUIRE);
  if (fd < 0) return;
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  // The thread's first period ran for one overflow (start_timer): the resume runs the real one.
  if (s.period_pending) {
    s.period_pending = 0;
    ioctl(fd, PERF_EVENT_IOC_PERIOD, &g_period_ns);
  }
  s.dlopen_paused = 1;
  s.dlopen_since = thread_cpu_ns();
}

// Whether the event can have overflowed again since this signal's overflow. The overflow came
// `delivery` before the handler began and the handler has run `elapsed` (wall time, at least
// the task clock's count of it). The shortest period a dither draws is half the nominal one, so
// with elapsed < P/4, and a delivery taking no longer than the handler itself (microseconds
// against tens), delivery + elapsed < P/2 <= the period: no new overflow. Otherwise the pending
// signals are looked for (take_overruns). Most handlers take a fraction of the period, and
// their rt_sigtimedwait was a system call per sample for nothing.
bool handler_may_have_overrun(uint64_t entered_ns) {
  return monotonic_ns() - entered_ns >= g_period_ns / 4;
}

void on_sample(int sig, siginfo_t* info, void* ucv) {
  // Only a sampling event's signal carries a positive si_code (POLL_IN); kill, sigqueue and
  // raise give zero or less. Those belong to the program (signal_guard.h), as does every SIGTRAP
  // but the timer's (a breakpoint, raise).
  const bool trap = sig == SIGTRAP;
  if (trap ? !timer_trap_is_ours(info) : info->si_code <= 0) {
    signal_forward(sig, info, ucv, process_end_on_signal);
    return;
  }
  int saved_errno = errno;
  ThreadState* ts = t_state;
  if (!ts)  // a thread that existed before the runtime: its stack is where this signal interrupted it
    ts = thread_claim_adopted(uint64_t(static_cast<const ucontext_t*>(ucv)->uc_mcontext.gregs[REG_RSP]));
  // Another source's event (a page-fault ring filling up, a hardware record, a watch's trap):
  // the source table says whose, and that source drains it (source_table.h). A SIGTRAP here is
  // the timer's.
  if (!ts || (!trap && sources_on_signal(ts, info->si_fd, ucv))) {
    errno = saved_errno;
    return;
  }
  // The tree is this handler's unless the writer has begun or another handler of this thread
  // (PAPI's overflow) is the code this signal interrupted: that one owns the tree now, and this
  // sample only keeps the event's period going (handler_gate.h).
  HandlerGate gate(ts->in_handler, g_stopped);
  const bool nested = gate.nested(), live = gate.live();
  SoftThread& soft = soft_of(ts);
  if (live && nested) {
    ++ts->samples;
    ++ts->nested;
    if (soft.period_pending) {
      soft.period_pending = 0;
      start_real_period(ts);
    }
  } else if (live && !soft.soft_records) {
    // Only the page-fault source runs: the timer only reads its ring (page_faults.h).
    sources_on_tick(ts);
    if (soft.period_pending) {
      soft.period_pending = 0;
      start_real_period(ts);
    }
  } else if (live && soft.in_dlopen) {
    pause_inside_dlopen(ts);
  } else if (live) {
    const uint64_t entered = monotonic_ns();
    ++ts->samples;
    const auto* uc = static_cast<const ucontext_t*>(ucv);
    const auto pc = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
    if (t_in_runtime || address_in_runtime(pc)) {
      // The runtime's own work (tracking an allocation, the wrappers' checks) is code time of
      // the program: recorded at the interrupted instruction under the no-data root and the
      // hpcrun_lite_profiler_own_work marker frame, not as an access to the runtime's own data.
      // No decoding and no unwinding: the thread may be inside libunwind, whose locks
      // unw_backtrace would take again. The tree is safe to touch: only this thread's handler
      // writes it, and it does not nest.
      ++ts->busy;
      const uint32_t own = ts->cct.child(kNoDataRoot, uint8_t(NodeKind::Frame), 0,
                                         reinterpret_cast<uint64_t>(&hpcrun_lite_profiler_own_work));
      uint32_t node = own == Cct::kNone ? Cct::kNone : ts->cct.child(own, uint8_t(NodeKind::Frame), 0, pc);
      if (node == Cct::kNone) ++ts->dropped;
      else ts->cct.add_samples(node, 1);
    } else {
      t_in_runtime = 1;
      std::atomic_signal_fence(std::memory_order_seq_cst);
      test_spin();
      record_sample(ts, uc);
      sources_on_tick(ts);  // what the other sources buffered since the last sample
      std::atomic_signal_fence(std::memory_order_seq_cst);
      t_in_runtime = 0;
    }
    if (soft.period_pending) {
      // The first period was the thread's random phase. Set here, at the end, the handler's own
      // time (it creates libunwind's cache for the thread, unwind.cpp, ~150 us) does not count
      // towards the next sample, which lands one full period of program time later.
      soft.period_pending = 0;
      start_real_period(ts);
    } else {
      dither_period(ts);
    }
    if (handler_may_have_overrun(entered)) take_overruns(ts, sig, ucv);
    watch_sample_done(ts);  // last: the handler's time is not the program's reuse time
  }
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

// The order matters: a thread's static TLS lies inside its stack mapping, so TLS is looked up
// before stacks; dynamic TLS needs system calls (dynamic_tls.h), so it comes last, when
// nothing cheaper claimed the address. glibc mallocs dynamic TLS blocks, so a tracked heap
// block of a TLS block's size is checked against the threads' DTVs first.
//
// Without `est` (a page fault, not a sample) neither the offset histograms nor the
// Horvitz-Thompson estimates change: they describe samples.
uint32_t classify_address(Cct& c, uint64_t ea, const ThreadState* ts, SampleEstimate* est) {
  BlockInfo blk;
  StaticHit hit;
  auto static_node = [&] {
    if (est) offsets_count(ea, ts->fs_base, nullptr, &hit);
    return c.child(kCctStaticRoot, uint8_t(NodeKind::StaticVarNode), hit.module, uint64_t(hit.symbol));
  };
  // The block, its chunk header (malloc and free of its neighbours read and write it), or the
  // block this thread is freeing right now (free() reads its header and writes its first bytes
  // after the wrapper took it out of the map).
  if (find_variable_block(g_heap, t_freeing, ea, &blk)) {
    if (modules_maybe_dynamic_tls_block(blk.size) && threads_find_tls(ea, ts, true, &hit))
      return static_node();
    if (est && blk.weight > 1)
      *est = SampleEstimate::of(blk.weight, blk.ref ? g_heap.add_hit(blk.ref) : 0);
    if (est && ea >= blk.start) offsets_count(ea, ts->fs_base, &blk, nullptr);  // not in its header
    return c.child(kCctHeapRoot, uint8_t(NodeKind::HeapVar), blk.site, 0);
  }
  if (modules_find_static(ea, ts->fs_base, &hit) || threads_find_tls(ea, ts, false, &hit))
    return static_node();
  const bool stack = address_on_a_stack(ea, ts);
  if (!stack && threads_find_tls(ea, ts, true, &hit)) return static_node();
  auto cls = hpcl::UnknownClass::Other;
  if (stack)
    cls = hpcl::UnknownClass::Stack;
  // sbrk(0) returns glibc's cached break (a brk system call at most): async-signal-safe.
  else if (g_heap_extent.contains(ea, reinterpret_cast<uint64_t>(sbrk(0))) || in_allocator_arena(ea))
    cls = hpcl::UnknownClass::UntrackedHeap;
  return c.child(kCctUnknownRoot, uint8_t(NodeKind::UnknownClass), uint64_t(cls), 0);
}

uint32_t attach_access_path(Cct& c, uint32_t node, const ThreadState* ts, const uint64_t* frames,
                            int n) {
  // Code run by the Python interpreter: under the Python lines that ran it (py_paths.h).
  uint64_t spliced[kMaxSampleFrames];
  if (int k = python_sample_path(frames, n, spliced, kMaxSampleFrames); k >= 0) {
    frames = spliced;
    n = k;
  }
  // The tree runs from the outermost caller down to the sampled instruction; outermost of all
  // is the path that created this thread (none for the main thread).
  for (int i = int(ts->ncreator) - 1; i >= 0 && node != Cct::kNone; --i)
    node = c.child(node, uint8_t(NodeKind::Frame), 0, ts->creator[i]);
  for (int i = n - 1; i >= 0 && node != Cct::kNone; --i)
    node = c.child(node, uint8_t(NodeKind::Frame), 0, frames[i]);
  return node;
}

uint64_t sampler_overflowed() { return g_overflowed.load(std::memory_order_relaxed); }

bool sampler_enabled() { return g_enabled.load(std::memory_order_relaxed); }

const char* sampler_timer_signal() {
  if (!g_enabled.load(std::memory_order_relaxed) || !g_timer) return nullptr;
  return timer_signal_name(g_trap ? TimerSignal::Trap : TimerSignal::Realtime);
}

bool sampler_init(uint64_t rate, int signo, bool record, bool timer) {
  g_record = record;
  g_timer = timer;
  decode_init();  // also for a hardware source: a thread it cannot sample falls back to soft
  g_period_ns = rate ? 1000000000ull / rate : 1000000ull;
  g_signo = signo;
  if (const char* spin = getenv("HPCRUN_LITE_TEST_HANDLER_SPIN_US"))
    g_test_spin_ns = strtoull(spin, nullptr, 10) * 1000;
  g_test_stage = stage_from_env(getenv("HPCRUN_LITE_TEST_HANDLER_STAGE"));
  if (signo != SIGIO && !signals_own_sampling(SIGIO, on_sigio))
    log_warn("cannot take SIGIO (%s): a full signal queue could kill the program", strerror(errno));
  if (!signals_own_sampling(signo, on_sample)) {
    log_warn("cannot install the sampling signal handler for signal %d: %s", signo, strerror(errno));
    return false;
  }
  if (timer) {
    TimerSignalChoice choice = timer_signal_decide(timer_signal_facts());
    g_trap = choice.signal == TimerSignal::Trap && signals_own_sampling(SIGTRAP, on_sample);
    log_info("the timer signals with %s: %s", g_trap ? "SIGTRAP" : "the real-time signal",
             g_trap || choice.signal == TimerSignal::Realtime ? choice.why : strerror(errno));
  }
  g_enabled.store(true, std::memory_order_release);
  return true;
}

namespace {
void start_timer(ThreadState* ts);
}  // namespace

void sampler_start_thread(ThreadState* ts) {
  SoftThread& s = soft_of(ts);
  s.soft_records = g_record;
  // A state whose last thread ended inside a dlopen: not paused, no dlopen running.
  s.in_dlopen = 0;
  s.dlopen_paused = 0;
  s.dlopen_since = 0;
  if (g_timer) start_timer(ts);
}

void sampler_start_fallback(ThreadState* ts) {
  soft_of(ts).soft_records = 1;
  if (!g_timer) start_timer(ts);  // with the timer on for every thread it already runs
}

namespace {
void start_timer(ThreadState* ts) {
  SoftThread& s = soft_of(ts);
  if (!g_enabled.load(std::memory_order_acquire) || g_stopped.load(std::memory_order_relaxed))
    return;
  // The thread's first sample comes after a uniform random part of the period
  // (sampling_phase.h); the handler sets the real period at that sample.
  uint64_t seed = (uint64_t(ts->tid) << 32) ^ monotonic_ns() ^
                  g_phase_draws.fetch_add(1, std::memory_order_relaxed) * 0xD1B54A32D192ED03ull;
  uint64_t first = first_period(g_period_ns, splitmix64(&seed));
  s.period_rng = splitmix64(&seed);
  // The thread's own tid, not 0: an adopted thread's event is opened by the thread that adopts it.
  int fd = perf_open_thread(soft_clock_attr(first, g_trap), ts->tid);
  if (fd < 0) {
    if (!g_warned_open.exchange(true))
      log_warn("cannot sample (perf_event_open of the task clock failed: %s); allocations are "
               "still tracked but the profile will have no samples", strerror(-fd));
    return;
  }
  fd_guard_add(fd);  // kept from the program's closefrom and dup2 (fd_guard.h)
  // Both before the event is enabled: its first overflow may come right after it, and its
  // handler must find the fd to start the real period.
  s.period_pending = first != g_period_ns;
  __atomic_store_n(&s.perf_fd, fd, __ATOMIC_RELEASE);
  // The random first period is enabled for one overflow only. A thread may have every signal
  // blocked for a while (glibc's thread start and exit, a program's own critical sections):
  // the handler that sets the real period cannot run then, and an event left running would
  // queue one real-time signal per short period, thousands, up to the user's limit, where the
  // kernel falls back to SIGIO.
  s.periods_to_dither = 1 + uint32_t(splitmix64(&seed) % kDitherEvery);
  int err = perf_arm_thread_signal(fd, g_trap ? 0 : g_signo, ts->tid, s.period_pending);
  if (err != 0) {
    if (!g_warned_open.exchange(true))
      log_warn("cannot route sampling signals to thread %d: %s", int(ts->tid), strerror(-err));
    sampler_stop_thread(ts);
  }
}

}  // namespace

// Why pause at all: a thread that sleeps inside dlopen pays the timer's restart at every wake-up
// (the kernel cancels a task clock's hrtimer when the thread is switched out, restarts it when
// it comes back; 5-12 us a switch on the development VM, docs/PERFORMANCE.md). Open MPI's
// MPI_Init opens libpsm2 and libinfinipath, whose constructors call usleep ~500 times each on a
// machine without their hardware: ~1,000 switches, 3 ms of CPU per process under the timer
// (measured on LAMMPS's start-up). A disabled event is not switched at all. HPCToolkit's hpcrun
// does not sample inside dlopen either (its samples that arrive then are counted as blocked).
bool sampler_can_pause(const ThreadState* ts) {
  return ts && !soft_of(ts).in_dlopen &&
         __atomic_load_n(&soft_of(ts).perf_fd, __ATOMIC_ACQUIRE) >= 0 &&
         !g_stopped.load(std::memory_order_relaxed);
}

void sampler_dlopen_begin(ThreadState* ts) {
  soft_of(ts).in_dlopen = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);  // before the call, seen by the handler
}

void sampler_dlopen_end(ThreadState* ts) {
  std::atomic_signal_fence(std::memory_order_seq_cst);  // after the call
  SoftThread& s = soft_of(ts);
  s.in_dlopen = 0;
  if (!s.dlopen_paused) return;
  const uint64_t now = thread_cpu_ns();
  if (s.dlopen_since != 0 && now > s.dlopen_since) s.dlopen_ns += now - s.dlopen_since;
  s.dlopen_since = 0;
  // The process-end path may have closed the timer meanwhile (sampler_halt_all): it set the fd
  // to -1 first.
  int fd = __atomic_load_n(&s.perf_fd, __ATOMIC_ACQUIRE);
  if (fd >= 0 && !g_stopped.load(std::memory_order_relaxed)) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  s.dlopen_paused = 0;
}

void sampler_stop_thread(ThreadState* ts) {
  // Exchange: the exiting thread and the process-exit path may both stop the same thread.
  int fd = __atomic_exchange_n(&soft_of(ts).perf_fd, -1, __ATOMIC_ACQ_REL);
  if (fd < 0) return;
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  fd_guard_close(fd);
}

uint64_t sampler_dlopen_unsampled_ns(const ThreadState* ts) { return soft_of(ts).dlopen_ns; }

uint64_t sampler_dlopen_pause_ns(const ThreadState* ts) {
  const uint64_t since = soft_of(ts).dlopen_since;
  if (since == 0) return 0;
  const uint64_t now = thread_cpu_ns();
  return now > since ? now - since : 0;
}

void sampler_forget(ThreadState* ts) {
  // A fork inside a dlopen: the child's CPU clock is new, and what the parent's threads spent
  // there is the parent's.
  SoftThread& s = soft_of(ts);
  s.dlopen_ns = s.dlopen_since = 0;
  if (s.perf_fd < 0) return;
  fd_guard_close(s.perf_fd);  // the parent's thread's timer, inherited
  s.perf_fd = -1;
}

void sampler_halt_all() {
  g_stopped.store(true, std::memory_order_seq_cst);
  for (ThreadState* t = threads_head(); t; t = t->next) sampler_stop_thread(t);
}

void sampler_numa_flush(ThreadState* ts) {
  if (!numa_enabled() || ts->numa.size() == 0) return;
  // The handler writes the same log and tree: keep it out, and let the process-end path (which
  // flushes every log itself) wait for us through in_handler, as a handler in flight.
  ThreadSideGate gate(ts->in_handler, g_stopped, g_signo);
  if (gate.owns_tree()) ts->numa.flush(ts->cct);
}

// The timer's lines of META (docs/FORMAT.md) and, with -v, what the decoder's cache did.
void soft_write_meta(hpcl::Profile& p) {
  if (const char* how = sampler_timer_signal()) p.set_meta("timer_signal", how);
  // CPU time inside dlopen, where the timer was paused; the exiting thread's own dlopen, when a
  // library constructor ends the process, up to now.
  uint64_t dlopen_ns = 0;
  for (const ThreadState* t = threads_head(); t; t = t->next)
    if (!t->stale) dlopen_ns += soft_of(t).dlopen_ns;
  if (const ThreadState* self = t_state) dlopen_ns += sampler_dlopen_pause_ns(self);
  if (dlopen_ns) p.set_meta("dlopen_unsampled_ns", std::to_string(dlopen_ns));
  // Overflows during a slower handler: the handler's own time, not the program's.
  p.set_meta("samples_overflowed", std::to_string(sampler_overflowed()));
  if (!g_verbose) return;
  // A program that loads and unloads libraries makes the cache scan for the decisions of the
  // code that went (pc_cache.h).
  const DecodeStats d = decode_stats();
  log_info("decoder: %llu lookups, %llu hits, %llu inserts, %llu evictions; misses decoded "
           "%llu instructions forward (at most %llu at once); %llu scans at unloads read %llu slots",
           (unsigned long long)d.lookups, (unsigned long long)d.hits, (unsigned long long)d.inserts,
           (unsigned long long)d.evictions, (unsigned long long)d.scan_insns,
           (unsigned long long)d.scan_insns_max, (unsigned long long)d.invalidate_scans,
           (unsigned long long)d.invalidate_slots);
}

// The soft source's row (source_list.cpp). Its decisions are cached per instruction, so code a
// dlclose unmapped takes its decisions with it.
constinit const SourceOps kSoftSource = {
    .name = "soft",
    // The handler serves every source; the timer runs for soft and to read page-fault rings.
    .init =
        [](SourceStart& st) {
          const RuntimeConfig& c = st.cfg;
          if (c.sampling || c.page_fault_period)
            sampler_init(c.rate, st.signo, c.sampling && !st.hardware,
                         !st.hardware || c.page_fault_period != 0);
        },
    .init_state =
        [](ThreadState* ts) {
          soft_of(ts).perf_fd = -1;
          soft_of(ts).period_pending = 0;
        },
    .thread_fds =
        [](ThreadState* ts, int** out, int max) {
          if (max < 1) return 0;
          out[0] = &soft_of(ts).perf_fd;
          return 1;
        },
    .start_thread = [](ThreadState* ts, bool) { sampler_start_thread(ts); },
    .stop_thread = sampler_stop_thread,
    .forget = sampler_forget,
    .restarts_in_child = true,
    .halt_all = sampler_halt_all,
    .can_pause = sampler_can_pause,
    .unsampled_begin = sampler_dlopen_begin,
    .unsampled_end = sampler_dlopen_end,
    .write_meta = soft_write_meta,
    .code_unloaded = decode_cache_invalidate,
};

namespace {

// NUMA placement of sampled pages (numa.h): on unless HPCRUN_LITE_NUMA=0.
void numa_start(SourceStart& st) {
  const char* numa = getenv(kEnvNuma);
  if (st.cfg.sampling && !(numa && strcmp(numa, "0") == 0)) {
    int nodes = numa_init("/");
    if (int err = numa_probe()) {
      log_info("NUMA placement of sampled pages is off: move_pages fails here (%s)", strerror(err));
    } else {
      numa_enable(true);
      log_info("NUMA placement of sampled pages: %d node(s)", nodes);
    }
  } else if (st.cfg.page_fault_period) {
    // No placement lookups, but first touches are counted by their CPU's node (touch_node.h).
    numa_init("/");
  }
}

// The placement's counts. With one node every page is local by construction, and the report
// says nothing of NUMA; the page-fault source maps its CPUs to nodes even without placement
// lookups, so the node count is written whenever the nodes were read.
void numa_write_meta(hpcl::Profile& p) {
  p.set_meta("numa", numa_enabled() ? "1" : "0");
  if (numa_enabled()) {
    NumaCounts nc = numa_counts();
    p.set_meta("numa_local", std::to_string(nc.local));
    p.set_meta("numa_remote", std::to_string(nc.remote));
    p.set_meta("numa_unresolved", std::to_string(nc.unresolved));
  }
  if (numa_enabled() || g_config.page_fault_period)
    p.set_meta("numa_nodes", std::to_string(numa_node_count()));
}

}  // namespace

// The NUMA placement of every source's sampled pages (numa.h), last in the list: a thread's end
// resolves what its rings, just read by the rows before, logged; the process's end, once no
// handler runs, every thread's pending pages before the writer reads the trees.
constinit const SourceOps kNumaPlacement = {
    .name = "numa placement",
    .init = numa_start,
    .stop_thread = sampler_numa_flush,
    .drain_all =
        [] {
          if (!numa_enabled()) return;
          for (ThreadState* t = threads_head(); t; t = t->next)
            if (!t->stale) t->numa.flush(t->cct);
        },
    // This thread's log only, and only when it holds a page of the block; another thread's
    // samples of the block are placed at its own next flush and come out unresolved if the
    // pages are gone by then.
    .forgotten =
        [](ThreadState* ts, uint64_t lo, uint64_t hi) {
          if (ts->numa.size() && ts->numa.holds(lo, hi)) sampler_numa_flush(ts);
        },
    .after_track =
        [](ThreadState* ts) {
          if (ts->numa.half_full()) sampler_numa_flush(ts);
        },
    .write_meta = numa_write_meta,
};

}  // namespace hpcrun
