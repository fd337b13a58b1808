// See hw_source.h. What reads a ring obeys the signal-handler rules of guard.h: no allocation
// (the tree grows with mmap), no lock (the address map is read lock-free), errno saved by the
// caller. A ring has one reader at a time: its own thread (in the sampling signal's handler,
// which does not nest, or at thread end with that signal blocked), or the writer once every
// event is disabled and no handler runs. The same protocol as the page-fault source's rings.
#include "sources/hw/hw_source.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sources/source_state.h"
#include "hpcl/profile.h"
#include "base/clock.h"
#include "process/fd_guard.h"
#include "base/guard.h"
#include "process/handler_gate.h"
#include "base/log.h"
#include "process/thread_state.h"
#include "hpcrun/probe/event_plan.h"
#include "hpcrun/probe/pmu_sysfs.h"
#include "hpcrun/probe/pfm_api.h"
#include "hpcrun/probe/perf_event.h"
#include "sources/classify.h"
#include "sources/stack_place.h"
#include "hpcrun/probe/source_probe.h"
#include "unwind/unwind.h"
#include "process/source_table.h"

namespace hpcrun {

namespace {

HwThread& hw_of(ThreadState* ts) { return source_state<HwThread>(ts, kHardwareSource); }
const HwThread& hw_of(const ThreadState* ts) {
  return source_state<HwThread>(ts, kHardwareSource);
}

// 32 data pages (128 KiB, ~1,600 PEBS records) as for the page-fault source; 8 when the perf
// mlock allowance is spent. One ring per thread, whatever the number of events.
constexpr unsigned kRingPagesLog2 = 5, kSmallRingPagesLog2 = 3;

const HwSourceOps* g_ops = nullptr;
EventPlan g_plan;
uint64_t g_sample_type = 0;  // of every sampling event of the plan (probe_plan keeps them alike)
int g_signo = 0;
bool g_standin = false;
uint32_t g_family = 0, g_model = 0;
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_stopped{false};
struct AtomicCounts {
  std::atomic<uint64_t> records{0}, recorded{0}, no_address{0}, lost{0}, throttled{0},
      malformed{0}, not_valid{0}, kernel{0}, in_runtime{0}, dropped{0};
} g_counts;

std::atomic<uint64_t> g_fallback_threads{0};
// Tests only (HPCRUN_LITE_TEST_HW_FALLBACK=1): every thread after the first is refused its
// events, as a kernel that runs out of counters or an mlock limit would, to show the fallback.
bool g_test_refuse_later = false;
std::atomic<uint64_t> g_threads_started{0};
char g_fallback_reason[192];

// A thread whose events cannot start (the kernel refuses them there, its ring cannot be mapped:
// perf_event_mlock_kb spent) is sampled by the soft timer instead, as `auto` falls back; the
// first reason is kept for the profile (META hw_fallback).
void fall_back(ThreadState* ts, const char* what, int err) {
  if (g_fallback_threads.fetch_add(1, std::memory_order_relaxed) == 0) {
    snprintf(g_fallback_reason, sizeof g_fallback_reason, "%s (%s)", what, strerror(err));
    log_warn("%s: %s (%s); such threads are sampled with soft", g_ops ? g_ops->name : "?", what,
             strerror(err));
  }
  sources_fallback_thread(ts);
}

const HwSourceOps kPebsLoad = {"pebs-load", HwDecoder::Pebs, SourceKind::Pebs};
const HwSourceOps kPebsStore = {"pebs-store", HwDecoder::Pebs, SourceKind::PebsStore};
const HwSourceOps kIbsOp = {"ibs-op", HwDecoder::Ibs, SourceKind::Ibs};

// The test stand-in's plan: software page faults with the PEBS record layout, and a waker.
// With O_ASYNC the kernel signals every overflow of an event; a page fault on shared memory that
// finds a signal pending is abandoned and taken again, and each attempt is a new fault, so a
// signal at every fault record kept one pending at each attempt: a program touching a System V
// segment (Open MPI's MPI_Init does) never got past its first page. The records' event signals
// nothing; a second page-fault event, overflowing every 16 faults, signals for it.
void standin_plan(const SourceSpec& spec, EventPlan* plan) {
  *plan = EventPlan{};
  plan->n = 2;
  for (int i = 0; i < 2; ++i) {
    PlannedEvent& e = plan->ev[i];
    snprintf(e.pmu, sizeof e.pmu, "software");
    e.leader = i;
    e.attr.size = sizeof e.attr;
    e.attr.type = PERF_TYPE_SOFTWARE;
    e.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
    e.attr.exclude_kernel = 1;
    e.attr.exclude_hv = 1;
    e.attr.disabled = 1;
  }
  plan->ev[0].sampling = true;
  plan->ev[0].attr.sample_period = spec.rate ? spec.rate : 1;
  plan->ev[0].attr.sample_type = pebs_sample_type(false);
  plan->ev[1].signals = true;
  plan->ev[1].attr.sample_period = 16;
  snprintf(plan->origin, sizeof plan->origin, "the test stand-in");
}

// What the kernel answered, in words a user can act on.
void explain_refusal(const EventPlan& plan, int failed, int err, char* out, size_t len) {
  const PlannedEvent* e = failed >= 0 && failed < plan.n ? &plan.ev[failed] : nullptr;
  const char* why = err == -ENODATA
      ? " (the kernel wants this load event in a group led by mem-loads-aux, which this PMU "
        "does not list)"
      : err == -EACCES || err == -EPERM ? " (see hpcrun-lite --check for the permission it needs)"
      : "";
  snprintf(out, len, "perf_event_open refused %s type %u config %#llx: %s%s", e ? e->pmu : "?",
           e ? e->attr.type : 0, e ? (unsigned long long)e->attr.config : 0ull, strerror(-err), why);
}

// The plan of this run on this machine, opened once on this thread to settle the precise
// levels and sample fields the kernel accepts.
bool build_plan(SourceKind kind, const SourceSpec& spec, char* err, size_t n) {
  PlanRequest req;
  req.period = spec.rate;
  req.ldlat = spec.ldlat;
  req.l3miss = spec.l3miss;
  if (!plan_for_kind("/", kind, req, &g_plan)) {
    // Sysfs is silent on the core PMU: libpfm4's tables may know the event (pebs_attr.h).
    char pfm_err[200];
    const bool pebs = kind == SourceKind::Pebs || kind == SourceKind::PebsStore;
    if (!pebs || pmu_type_at("/", "cpu") < 0 || !pfm_api_dlopen(pfm_err, sizeof pfm_err) ||
        (req.allow_libpfm = true, !plan_for_kind("/", kind, req, &g_plan))) {
      snprintf(err, n, "%s", g_plan.reason);
      return false;
    }
  }
  int failed = -1;
  if (int rc = probe_plan(&g_plan, &failed); rc != 0) {
    explain_refusal(g_plan, failed, rc, err, n);
    return false;
  }
  return true;
}

uint32_t classify_cb(Cct& c, uint64_t ea, void* arg, SampleEstimate* est) {
  return classify_address(c, ea, static_cast<ThreadState*>(arg), est);
}
bool in_runtime_cb(uint64_t ip, void*) { return address_in_runtime(ip); }
uint32_t place_cb(Cct&, uint32_t var, uint64_t ea, uint64_t ip, const void* uc, void* arg) {
  return place_on_stack(static_cast<ThreadState*>(arg), uc, ip, ea, var);
}
void on_access_cb(void* arg, const SampledAccess& a) {
  sources_on_access(static_cast<ThreadState*>(arg), a);
}

void publish(const HwCounts& k, ThreadState* ts) {
  auto add = [](std::atomic<uint64_t>& a, uint64_t v) {
    if (v) a.fetch_add(v, std::memory_order_relaxed);
  };
  add(g_counts.records, k.records);
  add(g_counts.recorded, k.recorded);
  add(g_counts.no_address, k.no_address);
  add(g_counts.lost, k.lost);
  add(g_counts.throttled, k.throttled);
  add(g_counts.malformed, k.malformed);
  add(g_counts.not_valid, k.not_valid);
  add(g_counts.kernel, k.kernel);
  add(g_counts.in_runtime, k.in_runtime);
  add(g_counts.dropped, k.dropped);
  // The thread's own counters, as the soft source keeps them: every record is a sample.
  ts->samples += k.records;
  ts->dropped += k.dropped;
  ts->nodata += k.no_address;
}

// Reads the thread's buffer; `path`: the interrupted context's callers (or none).
// `uc`: the context the drain's signal interrupted, nullptr when it runs outside one.
void drain(ThreadState* ts, const uint64_t* path, int npath, const void* uc = nullptr) {
  HwDrainEnv env;
  env.cct = &ts->cct;
  env.sample_type = g_sample_type;
  env.decoder = g_ops->decoder;
  env.family = g_family;
  env.model = g_model;
  env.classify = classify_cb;
  env.in_runtime = in_runtime_cb;
  env.arg = ts;
  env.creator = ts->creator;
  env.ncreator = int(ts->ncreator);
  env.path = path;
  env.npath = npath;
  env.place = place_cb;
  env.uc = uc;
  env.on_access = on_access_cb;
  hw_drain(&hw_of(ts).ev.ring, &env);
  publish(env.counts, ts);
}

// Closes the thread's events and unmaps its ring; exchange, since thread end and process end may
// race.
void release(ThreadState* ts) {
  if (!ring_event_release(&hw_of(ts).ev)) return;
  for (int& other : hw_of(ts).other)
    if (other >= 0) {
      fd_guard_close(other);
      other = -1;
    }
}

void disable(ThreadState* ts) {
  if (!ring_event_disable(hw_of(ts).ev)) return;
  for (int other : hw_of(ts).other)
    if (other >= 0) ioctl(other, PERF_EVENT_IOC_DISABLE, 0);
}

bool is_ours(const ThreadState* ts, int fd) {
  if (fd < 0) return false;
  if (fd == __atomic_load_n(&hw_of(ts).ev.fd, __ATOMIC_ACQUIRE)) return true;
  for (int other : hw_of(ts).other)
    if (fd == other) return true;
  return false;
}

}  // namespace

const HwSourceOps* hw_source_for(SourceKind kind) {
  switch (kind) {
    case SourceKind::Pebs: return &kPebsLoad;
    case SourceKind::PebsStore: return &kPebsStore;
    case SourceKind::Ibs: return &kIbsOp;
    default: return nullptr;
  }
}

bool hw_standin_requested() {
  const char* v = getenv(kEnvTestHwStandin);
  return v && strcmp(v, "1") == 0;
}

bool hw_init(SourceKind kind, const SourceSpec& spec, int signo, char* err, size_t errlen) {
  g_ops = hw_source_for(kind);
  if (!g_ops) {
    snprintf(err, errlen, "%s is not a hardware source", source_name(kind));
    return false;
  }
  g_standin = hw_standin_requested();
  const char* refuse = getenv("HPCRUN_LITE_TEST_HW_FALLBACK");
  g_test_refuse_later = refuse && strcmp(refuse, "1") == 0;
  if (g_standin) {
    if (g_ops->decoder != HwDecoder::Pebs) {
      snprintf(err, errlen, "the test stand-in (%s) has the PEBS record layout only",
               kEnvTestHwStandin);
      return false;
    }
    standin_plan(spec, &g_plan);
  } else if (!build_plan(kind, spec, err, errlen)) {
    return false;
  }
  if (g_ops->decoder == HwDecoder::Ibs) {
    HardwareProbe hw = probe_hardware("/");
    g_family = hw.family > 0 ? uint32_t(hw.family) : 0;
    g_model = hw.model > 0 ? uint32_t(hw.model) : 0;
  }
  for (int i = 0; i < g_plan.n; ++i) {
    perf_event_attr& a = g_plan.ev[i].attr;
    if (!g_plan.ev[i].sampling) continue;
    if (!g_sample_type) g_sample_type = a.sample_type;
    // A signal at every record: the handler then reads it while the thread is still in the
    // function that made the access, so the record gets its calling context (hw_drain.h).
    a.wakeup_events = 1;
    a.watermark = 0;
  }
  char line[512];
  describe_plan(g_plan, line, sizeof line);
  log_info("%s: %s", g_ops->name, line);
  g_signo = signo;
  g_enabled.store(true, std::memory_order_release);
  return true;
}

bool hw_enabled() { return g_enabled.load(std::memory_order_acquire); }
bool hw_standin() { return g_standin; }

void hw_start_thread(ThreadState* ts) {
  ring_event_reset(&hw_of(ts).ev);
  for (int& other : hw_of(ts).other) other = -1;
  if (!hw_enabled() || g_stopped.load(std::memory_order_relaxed)) return;
  if (g_test_refuse_later && g_threads_started.fetch_add(1, std::memory_order_relaxed) > 0)
    return fall_back(ts, "the TEST hook refused its events (HPCRUN_LITE_TEST_HW_FALLBACK=1)", EBUSY);
  // Every event of the plan for this thread, each in its leader's group.
  int fds[kMaxPlannedEvents];
  int ring = -1;  // the first sampling event: its ring takes every event's records
  for (int i = 0; i < g_plan.n; ++i) {
    const PlannedEvent& e = g_plan.ev[i];
    fds[i] = perf_open_thread(e.attr, ts->tid, e.leader == i ? -1 : fds[e.leader]);
    if (fds[i] < 0) {
      int err = -fds[i];
      for (int j = 0; j < i; ++j) close(fds[j]);
      return fall_back(ts, "the kernel refused its events in a thread", err);
    }
    if (e.sampling && ring < 0) ring = i;
  }
  PerfRing map;
  int err = 0;
  if (!perf_ring_map_or_smaller(fds[ring], kRingPagesLog2, kSmallRingPagesLog2, &map)) err = errno;
  for (int i = 0; i < g_plan.n && !err; ++i)
    if (i != ring && g_plan.ev[i].sampling &&
        ioctl(fds[i], PERF_EVENT_IOC_SET_OUTPUT, fds[ring]) != 0)
      err = errno;
  if (err) {
    if (map.map_bytes) perf_ring_unmap(&map);
    for (int j = 0; j < g_plan.n; ++j) close(fds[j]);
    return fall_back(ts, "cannot map a thread's ring buffer (see kernel.perf_event_mlock_kb)", err);
  }
  int k = 0;
  for (int i = 0; i < g_plan.n; ++i)
    if (i != ring) {
      fd_guard_add(fds[i]);  // kept from the program's closefrom and dup2 (fd_guard.h)
      hw_of(ts).other[k++] = fds[i];
    }
  // The others before the ring's event: the handler finds them once it sees that.
  ring_event_publish(&hw_of(ts).ev, fds[ring], map);
  for (int i = 0; i < g_plan.n && !err; ++i)
    if (g_plan.ev[i].signals) err = -perf_route_thread_signal(fds[i], g_signo, ts->tid);
  // A group starts with its leader.
  for (int i = 0; i < g_plan.n && !err; ++i)
    if (g_plan.ev[i].leader == i && ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0) != 0) err = errno;
  if (err) {
    release(ts);
    fall_back(ts, "cannot route its signals to a thread", err);
  }
}

bool hw_on_signal(ThreadState* ts, int fd, const void* ucv) {
  if (!is_ours(ts, fd)) return false;
  // The writer either waits for this drain or is seen to have begun, and then reads the ring
  // itself; a drain nested in another handler of this thread (PAPI's) leaves the records in the
  // ring for the next signal (handler_gate.h).
  HandlerGate gate(ts->in_handler, g_stopped);
  if (gate.owns_tree()) {
    const auto* uc = static_cast<const ucontext_t*>(ucv);
    const auto pc = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
    if (t_in_runtime || address_in_runtime(pc)) {
      // Inside the runtime (perhaps inside libunwind): no unwinding, as in the soft handler.
      drain(ts, nullptr, 0);
    } else {
      t_in_runtime = 1;
      std::atomic_signal_fence(std::memory_order_seq_cst);
      uint64_t frames[kMaxSampleFrames];
      // An adopted thread that has not settled has no unwind cache yet (thread_state.h).
      int n = ts->unwind_ready ? capture_sample_path(pc, frames, kMaxSampleFrames) : 0;
      drain(ts, frames, n > 0 ? n : 0, uc);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      t_in_runtime = 0;
    }
    sources_sample_done(ts);  // last: the handler's time is not the program's reuse time
  }
  return true;
}

void hw_stop_thread(ThreadState* ts) {
  if (!ring_event_live(hw_of(ts).ev)) return;
  disable(ts);
  {
    ThreadSideGate gate(ts->in_handler, g_stopped, g_signo);  // the process-end path waits for it
    if (gate.owns_tree()) drain(ts, nullptr, 0);
  }
  if (!g_stopped.load(std::memory_order_acquire)) release(ts);
}

void hw_before_forget(ThreadState* ts) {
  if (!ring_event_pending(hw_of(ts).ev)) return;
  // No calling context: the accesses were made before this free, by code whose frames may be gone.
  ThreadSideGate gate(ts->in_handler, g_stopped, g_signo);
  if (gate.owns_tree()) drain(ts, nullptr, 0);
}

void hw_forget(ThreadState* ts) {
  if (hw_of(ts).ev.fd < 0) return;
  release(ts);  // the parent keeps its own mapping
}

void hw_halt_all() {
  if (!hw_enabled()) return;
  g_stopped.store(true, std::memory_order_seq_cst);
  for (ThreadState* t = threads_head(); t; t = t->next) disable(t);
}

void hw_drain_all() {
  if (!hw_enabled()) return;
  for (ThreadState* t = threads_head(); t; t = t->next) {
    if (t->stale || !ring_event_live(hw_of(t).ev)) continue;
    drain(t, nullptr, 0);
    release(t);
  }
}

uint64_t hw_fallback_threads(const char** reason) {
  *reason = g_fallback_reason;
  return g_fallback_threads.load(std::memory_order_relaxed);
}

HwCounts hw_counts() {
  HwCounts k;
  k.records = g_counts.records.load(std::memory_order_relaxed);
  k.recorded = g_counts.recorded.load(std::memory_order_relaxed);
  k.no_address = g_counts.no_address.load(std::memory_order_relaxed);
  k.lost = g_counts.lost.load(std::memory_order_relaxed);
  k.throttled = g_counts.throttled.load(std::memory_order_relaxed);
  k.malformed = g_counts.malformed.load(std::memory_order_relaxed);
  k.not_valid = g_counts.not_valid.load(std::memory_order_relaxed);
  k.kernel = g_counts.kernel.load(std::memory_order_relaxed);
  k.in_runtime = g_counts.in_runtime.load(std::memory_order_relaxed);
  k.dropped = g_counts.dropped.load(std::memory_order_relaxed);
  return k;
}

void hw_write_meta(hpcl::Profile& p) {
  if (!hw_enabled()) return;
  // Every record of the hardware source is accounted for (hw_drain.h): in a tree, or in one
  // of these counts.
  const HwCounts k = hw_counts();
  if (hw_standin()) p.set_meta("hw_test_standin", "1");
  p.set_meta("hw_records", std::to_string(k.records));
  p.set_meta("hw_recorded", std::to_string(k.recorded));
  p.set_meta("hw_no_address", std::to_string(k.no_address));
  p.set_meta("hw_lost", std::to_string(k.lost));
  p.set_meta("hw_throttled", std::to_string(k.throttled));
  p.set_meta("hw_malformed", std::to_string(k.malformed));
  p.set_meta("hw_not_valid", std::to_string(k.not_valid));
  p.set_meta("hw_kernel", std::to_string(k.kernel));
  p.set_meta("hw_in_runtime", std::to_string(k.in_runtime));
  p.set_meta("hw_dropped", std::to_string(k.dropped));
  const char* why = nullptr;
  if (uint64_t fell = hw_fallback_threads(&why)) {
    p.set_meta("hw_fallback_threads", std::to_string(fell));
    p.set_meta("hw_fallback", why);
  }
}


void hw_init_state(ThreadState* ts) {
  hw_of(ts).ev.fd = -1;
  for (int& other : hw_of(ts).other) other = -1;
}

namespace {

// The row's claim: the hardware source the options chose opens its plan, or soft samples instead
// (META source_fallback says why).
void hw_claim(SourceStart& st) {
  if (!st.cfg.sampling || !hw_source_for(st.kind)) return;
  char err[256];
  if (hw_init(st.kind, st.spec, st.signo, err, sizeof err)) {
    st.hardware = true;
    return;
  }
  log_warn("%s cannot sample here (%s); sampling with soft instead", source_name(st.kind), err);
  snprintf(st.cfg.source_fallback, sizeof st.cfg.source_fallback, "%s: %.200s", source_name(st.kind),
           err);
  st.kind = SourceKind::Soft;
  st.cfg.source = source_name(st.kind);
  st.cfg.rate = kDefaultSoftRate;
}

// A PEBS request served by the test stand-in, whatever the machine's probe said.
bool hw_serve_anyway(SourceKind kind, char* why, size_t n) {
  if (!hw_standin_requested() || (kind != SourceKind::Pebs && kind != SourceKind::PebsStore))
    return false;
  snprintf(why, n, "%s through the TEST stand-in (%s=1: software page faults in the PEBS record "
           "layout, not a measurement)", source_name(kind), kEnvTestHwStandin);
  return true;
}

}  // namespace

// The source's row (source_list.cpp).
constinit const SourceOps kHardwareSource = {
    .name = "hardware",
    .serve_anyway = hw_serve_anyway,
    .claim = hw_claim,
    .init_state = hw_init_state,
    .start_thread = [](ThreadState* ts, bool) { hw_start_thread(ts); },
    .stop_thread = hw_stop_thread,
    .forget = hw_forget,
    .restarts_in_child = true,
    .on_signal = [](ThreadState* ts, int fd, void* uc) { return hw_on_signal(ts, fd, uc); },
    .halt_all = hw_halt_all,
    .drain_all = hw_drain_all,
    .before_forget = hw_before_forget,
    .write_meta = hw_write_meta,
};

}  // namespace hpcrun
