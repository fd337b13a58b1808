// See papi_source.h. The overflow handler obeys the signal-handler rules of guard.h: it allocates
// nothing (the tree grows with mmap), takes no lock, saves errno, and when it interrupts the
// runtime itself records only the interrupted PC.
#include "sources/papi/papi_source.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "sources/source_state.h"
#include "hpcl/profile.h"
#include "loader/find_object.h"
#include "base/guard.h"
#include "process/handler_gate.h"
#include "base/log.h"
#include "process/thread_state.h"
#include "sources/classify.h"
#include "unwind/unwind.h"

#include "hpcrun/probe/papi_api.h"
#include "process/source_table.h"

namespace hpcrun {

namespace {

PapiThread& papi_of(ThreadState* ts) { return source_state<PapiThread>(ts, kPapiSource); }

std::atomic<bool> g_enabled{false};
std::atomic<bool> g_stopped{false};
std::atomic<bool> g_warned{false};
std::atomic<uint64_t> g_overflows{0}, g_in_runtime{0}, g_nested{0}, g_dropped{0}, g_failed{0};
int g_nevents = 0;
char g_names[kMaxPapiEvents][64];
uint64_t g_periods[kMaxPapiEvents];

#ifdef HPCL_HAVE_PAPI_H

PapiApi g_fns;
int g_codes[kMaxPapiEvents];
// libpapi's code, and libsde's (the API a library counts its software-defined events with):
// their frames between the counting code and our handler are not the program's.
CodeRange g_skip[2];
int g_nskip = 0;

unsigned long papi_thread_id() { return static_cast<unsigned long>(syscall(SYS_gettid)); }

void warn_once(const char* what, const char* event, int err) {
  if (!g_warned.exchange(true))
    log_warn("PAPI: %s%s%s (%s): those threads have no counter metrics", what, event ? " " : "",
             event ? event : "", g_fns.strerror ? g_fns.strerror(err) : "?");
}

// The tree node of an overflow at `pc`: its calling context under the no-data root, after the
// path that created the thread, as for samples (sampler.cpp).
uint32_t overflow_node(ThreadState* ts, uint64_t pc) {
  Cct& c = ts->cct;
  if (t_in_runtime || address_in_runtime(pc)) {
    g_in_runtime.fetch_add(1, std::memory_order_relaxed);
    return c.child(kCctNoDataRoot, uint8_t(hpcl::NodeKind::Frame), 0, pc);
  }
  t_in_runtime = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  uint64_t frames[kMaxSampleFrames];
  // A hardware overflow interrupted the program at pc (PAPI's signal); a software-defined
  // event's overflow is a call from the code that counted it, so pc is in PAPI or the counting
  // library and the program's frames are the stack itself, without PAPI's.
  const bool in_papi = g_nskip > 0 && g_skip[0].contains(pc);
  int n = in_papi ? capture_path_outside(g_skip, g_nskip, frames, kMaxSampleFrames)
                  : capture_sample_path(pc, frames, kMaxSampleFrames);
  uint32_t node = attach_access_path(c, kCctNoDataRoot, ts, frames, n);
  if (!in_papi && node != Cct::kNone) node = c.child(node, uint8_t(hpcl::NodeKind::Frame), 0, pc);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_in_runtime = 0;
  return node;
}

void on_overflow(int set, void* address, long long vector, void*) {
  ThreadState* ts = t_state;
  if (!ts || g_stopped.load(std::memory_order_seq_cst)) return;
  // Another source's handler on this thread (the soft sampler's) may be the code PAPI's signal
  // interrupted: the tree is not ours to touch then. The gate also tells the writer to wait.
  HandlerGate gate(ts->in_handler, g_stopped);
  if (gate.nested()) {
    g_nested.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const int saved_errno = errno;
  if (gate.live()) {
    int idx[kMaxPapiEvents];
    int n = kMaxPapiEvents;
    if (g_fns.get_overflow_event_index(set, vector, idx, &n) != PAPI_OK) n = 0;
    uint32_t node = n > 0 ? overflow_node(ts, reinterpret_cast<uint64_t>(address)) : Cct::kNone;
    if (n > 0 && node == Cct::kNone) g_dropped.fetch_add(1, std::memory_order_relaxed);
    MemCounts* counts = node != Cct::kNone ? ts->cct.mem(node) : nullptr;
    if (n > 0 && node != Cct::kNone && !counts) g_dropped.fetch_add(1, std::memory_order_relaxed);
    for (int i = 0; i < n && counts; ++i) {
      if (idx[i] < 0 || idx[i] >= g_nevents) continue;
      counts->counters[idx[i]] += g_periods[idx[i]];
      g_overflows.fetch_add(1, std::memory_order_relaxed);
    }
  }
  errno = saved_errno;
}

bool load_papi() {
  char library[64], error[256];
  if (!papi_api_load(&g_fns, library, sizeof library, error, sizeof error)) {
    log_warn("PAPI events requested but %s", error);
    return false;
  }
  PapiApi& f = g_fns;
  if (int err = f.thread_init(papi_thread_id); err != PAPI_OK) {
    log_warn("PAPI_thread_init failed: %s", f.strerror(err));
    return false;
  }
  // libsde is there when the program links it; one loaded later keeps its frames.
  for (void* code : {reinterpret_cast<void*>(f.start), dlsym(RTLD_DEFAULT, "papi_sde_inc_counter")}) {
    CodeObject obj;
    if (code && find_object(code, &obj)) g_skip[g_nskip++] = {obj.map_start, obj.map_end};
  }
  return true;
}

#endif  // HPCL_HAVE_PAPI_H

}  // namespace

bool papi_init(const PapiEventRequest* events, int n) {
  g_nevents = 0;
  for (int i = 0; i < n && g_nevents < kMaxPapiEvents; ++i) {
    snprintf(g_names[g_nevents], sizeof g_names[0], "%s", events[i].name);
    g_periods[g_nevents++] = events[i].period;
  }
#ifdef HPCL_HAVE_PAPI_H
  if (g_nevents == 0 || !load_papi()) return false;
  for (int i = 0; i < g_nevents; ++i)
    log_info("PAPI: %s, one sample every %llu events", g_names[i], (unsigned long long)g_periods[i]);
  g_enabled.store(true, std::memory_order_release);
  return true;
#else
  if (g_nevents) log_warn("PAPI events requested but this runtime was built without papi.h");
  return false;
#endif
}

bool papi_enabled() { return g_enabled.load(std::memory_order_acquire); }
int papi_event_count() { return g_nevents; }
const char* papi_event_name(int i) { return i >= 0 && i < g_nevents ? g_names[i] : ""; }
uint64_t papi_event_period(int i) { return i >= 0 && i < g_nevents ? g_periods[i] : 0; }

void papi_start_thread(ThreadState* ts) {
  if (!papi_enabled() || g_stopped.load(std::memory_order_relaxed)) return;
#ifdef HPCL_HAVE_PAPI_H
  PapiApi& f = g_fns;
  int set = PAPI_NULL;
  int err = f.register_thread();
  if (err == PAPI_OK) err = f.create_eventset(&set);
  if (err != PAPI_OK) {
    warn_once("cannot create an event set", nullptr, err);
    g_failed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  for (int i = 0; i < g_nevents && err == PAPI_OK; ++i) {
    // A software-defined event exists once its library registered it, which may be after the
    // runtime started: every thread asks again.
    if ((err = f.add_named_event(set, g_names[i])) != PAPI_OK) {
      warn_once("cannot add", g_names[i], err);
    } else if ((err = f.event_name_to_code(g_names[i], &g_codes[i])) != PAPI_OK ||
               (err = f.overflow(set, g_codes[i], int(g_periods[i]), 0, on_overflow)) != PAPI_OK) {
      warn_once("cannot sample on the overflows of", g_names[i], err);
    }
  }
  if (err == PAPI_OK && (err = f.start(set)) != PAPI_OK) warn_once("cannot start", nullptr, err);
  if (err != PAPI_OK) {
    f.cleanup_eventset(set);
    f.destroy_eventset(&set);
    g_failed.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  papi_of(ts).set = set;
#else
  (void)ts;
#endif
}

void papi_stop_thread(ThreadState* ts) {
#ifdef HPCL_HAVE_PAPI_H
  int set = papi_of(ts).set;
  if (set == -1 || !papi_enabled()) return;
  papi_of(ts).set = -1;
  long long values[kMaxPapiEvents];
  g_fns.stop(set, values);
  g_fns.cleanup_eventset(set);
  g_fns.destroy_eventset(&set);
  g_fns.unregister_thread();
#else
  (void)ts;
#endif
}

void papi_stop_all() { g_stopped.store(true, std::memory_order_seq_cst); }

void papi_forget(ThreadState* ts) {
  g_stopped.store(true, std::memory_order_seq_cst);
  papi_of(ts).set = -1;
}

PapiCounts papi_counts() {
  PapiCounts c;
  c.overflows = g_overflows.load(std::memory_order_relaxed);
  c.in_runtime = g_in_runtime.load(std::memory_order_relaxed);
  c.nested = g_nested.load(std::memory_order_relaxed);
  c.dropped = g_dropped.load(std::memory_order_relaxed);
  c.failed_threads = g_failed.load(std::memory_order_relaxed);
  return c;
}

void papi_write_meta(hpcl::Profile& p) {
  if (papi_event_count() == 0) return;
  // Named even when PAPI could not count them, so the report says what was asked.
  for (int k = 0; k < papi_event_count(); ++k) {
    const std::string key = "counter." + std::to_string(k);
    p.set_meta(key + ".event", papi_event_name(k));
    p.set_meta(key + ".period", std::to_string(papi_event_period(k)));
  }
  const PapiCounts pc = papi_counts();
  p.set_meta("counter_overflows", std::to_string(pc.overflows));
  p.set_meta("counter_overflows_in_runtime", std::to_string(pc.in_runtime));
  p.set_meta("counter_overflows_nested", std::to_string(pc.nested));
  p.set_meta("counter_overflows_dropped", std::to_string(pc.dropped));
  p.set_meta("counter_threads_failed", std::to_string(pc.failed_threads));
}


void papi_init_state(ThreadState* ts) { papi_of(ts).set = -1; }

// The source's row (source_list.cpp). PAPI registers the calling thread with the library: only
// the thread itself can start it, and a fork child inherits none of PAPI's per-thread state.
constinit const SourceOps kPapiSource = {
    .name = "papi",
    // Counted beside the address source, which stays the default one when none is named.
    .claim_option =
        [](const SourceSpec& s, RuntimeConfig& c) {
          if (s.kind != SourceKind::Papi) return false;
          if (c.npapi < kMaxPapiEvents) {
            const int k = c.npapi++;
            memcpy(c.papi_events[k], s.papi_event, sizeof c.papi_events[k]);
            c.papi_periods[k] = s.rate ? s.rate : kDefaultPapiPeriod;
          }
          return true;
        },
    .init =
        [](SourceStart& st) {
          const RuntimeConfig& c = st.cfg;
          if (!c.npapi) return;
          PapiEventRequest req[kMaxPapiEvents];
          for (int i = 0; i < c.npapi; ++i) req[i] = {c.papi_events[i], c.papi_periods[i]};
          papi_init(req, c.npapi);
        },
    .init_state = papi_init_state,
    .start_thread = [](ThreadState* ts, bool) { papi_start_thread(ts); },
    .needs_self = true,
    .stop_thread = papi_stop_thread,
    .forget = papi_forget,
    .restarts_in_child = false,
    .halt_all = papi_stop_all,
    .write_meta = papi_write_meta,
};

}  // namespace hpcrun
