// See sampler.h. The timer's tick obeys the signal-handler rules of guard.h: it allocates nothing
// (the tree grows with mmap), takes no lock (the address map is read lock-free), and when it
// interrupts the runtime itself records only the interrupted PC.
#include "sources/soft/sampler.h"

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
#include "base/guard.h"
#include "base/log.h"
#include "hpcl/profile.h"
#include "hpcrun/probe/perf_event.h"
#include "hpcrun/probe/timer_signal.h"
#include "memory/track_control.h"
#include "process/fd_guard.h"
#include "process/handler_gate.h"
#include "process/runtime.h"
#include "process/source_table.h"
#include "process/thread_state.h"
#include "sources/classify.h"
#include "sources/handler.h"
#include "sources/sampling_phase.h"
#include "decode/access_decode.h"
#include "decode/saved_regs.h"
#include "sources/source_state.h"
#include "sources/stack_place.h"
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
// Whether the timer sends perf's SIGTRAP instead of the sampling signal (timer_signal.h).
bool g_trap = false;
std::atomic<bool> g_enabled{false};
// Whether the timer's signals are samples (the soft source); without, they only read the
// page-fault rings.
bool g_record = true;
// Whether each thread runs the timer at all: not when a hardware source samples and no
// page-fault ring needs reading.
bool g_timer = true;
std::atomic<bool> g_warned_open{false};
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
  // The watches arm on the variable's node, the NUMA placement logs the page (source_table.h);
  // an access at or after the interrupted PC has not run yet.
  if (acc.kind == AccessKind::Address)
    sources_on_access(ts, {.ea = acc.ea, .size = acc.size, .is_write = acc.is_write,
                           .executed = acc.insn < regs.rip, .fresh = true, .var = var,
                           .node = node, .cpu = -1});
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
      handler_take(sig, &si, ucv);  // in_handler is still ours: a sample of ours would count nested
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

// The timer's share of the sampling signal (handler.h): `ts`'s own timer, or a signal that no
// other source claimed.
void on_timer(ThreadState* ts, int sig, void* ucv) {
  // The tree is this handler's unless the writer has begun or another handler of this thread
  // (PAPI's overflow) is the code this signal interrupted: that one owns the tree now, and this
  // sample only keeps the event's period going (handler_gate.h).
  HandlerGate gate(ts->in_handler, handler_stopped());
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
    sources_sample_done(ts);  // last: the handler's time is not the program's reuse time
  }
}

}  // namespace

const char* sampler_timer_signal() {
  if (!g_enabled.load(std::memory_order_relaxed) || !g_timer) return nullptr;
  return timer_signal_name(g_trap ? TimerSignal::Trap : TimerSignal::Realtime);
}

bool sampler_init(uint64_t rate, int signo, bool record, bool timer) {
  g_record = record;
  g_timer = timer;
  decode_init();  // also for a hardware source: a thread it cannot sample falls back to soft
  g_period_ns = rate ? 1000000000ull / rate : 1000000ull;
  if (const char* spin = getenv("HPCRUN_LITE_TEST_HANDLER_SPIN_US"))
    g_test_spin_ns = strtoull(spin, nullptr, 10) * 1000;
  g_test_stage = stage_from_env(getenv("HPCRUN_LITE_TEST_HANDLER_STAGE"));
  if (!handler_install(signo, on_timer)) return false;
  if (timer) {
    TimerSignalChoice choice = timer_signal_decide(timer_signal_facts());
    g_trap = choice.signal == TimerSignal::Trap && handler_take_trap();
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
  if (!g_enabled.load(std::memory_order_acquire) || handler_stopped().load(std::memory_order_relaxed))
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
  int err = perf_arm_thread_signal(fd, g_trap ? 0 : handler_signal(), ts->tid, s.period_pending);
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
         !handler_stopped().load(std::memory_order_relaxed);
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
  if (fd >= 0 && !handler_stopped().load(std::memory_order_relaxed)) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  s.dlopen_paused = 0;
}

void sampler_stop_thread(ThreadState* ts) {
  // Exchange: the exiting thread and the process-exit path may both stop the same thread.
  int fd = __atomic_exchange_n(&soft_of(ts).perf_fd, -1, __ATOMIC_ACQ_REL);
  if (fd < 0) return;
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  fd_guard_close(fd);
}

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
  handler_halt();
  for (ThreadState* t = threads_head(); t; t = t->next) sampler_stop_thread(t);
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
  p.set_meta("samples_overflowed", std::to_string(handler_overflowed()));
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
    .fallback_thread = sampler_start_fallback,
    .halt_all = sampler_halt_all,
    .can_pause = sampler_can_pause,
    .unsampled_begin = sampler_dlopen_begin,
    .unsampled_end = sampler_dlopen_end,
    .write_meta = soft_write_meta,
    .code_unloaded = decode_cache_invalidate,
};

}  // namespace hpcrun
