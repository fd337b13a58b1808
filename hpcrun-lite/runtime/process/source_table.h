// The one table of sampling sources: every source of the runtime (the soft timer, page faults, the
// hardware source, the debug-register watches, PAPI) is one row of operations, and the life cycle
// of threads and of the process walks the table instead of naming each source. The rows live in
// their sources' folders and the list of them in sources/source_list.cpp (one line a source):
// thread start and end (thread_state.cpp), an adopted thread's start and its settling, the fork
// child, the sampling handler's dispatch (sources/handler.cpp), every sampled access, unloaded
// code, the end of the process (process_end.cpp) and the profile's META (writer.cpp) then serve
// a new source without a change.
// This header is the process's side of the contract: it names no source, and process/ includes
// nothing of sources/.
//
// A thread is started on itself (its pthread_create trampoline), or, when it existed before the
// runtime (adopted, thread_state.h), from the thread that adopts it: each source then opens its
// events for the adopted thread's id, and a source that can only start on the thread itself (PAPI
// registers the calling thread) starts when that thread settles, at its first entry into the
// runtime outside a handler.
#pragma once

#include <cstddef>
#include <cstdint>

#include "options.h"
#include "process/runtime.h"

namespace hpcl {
struct Metric;
struct Profile;
}

namespace hpcrun {

struct ThreadState;

// What start-up hands the rows (startup/runtime_init.cpp, once, before any thread is measured):
// the run's configuration as the options gave it, the sampling signal, and the address-sampling
// source the options chose with its request.
struct SourceStart {
  RuntimeConfig& cfg;
  int signo;
  SourceKind kind;
  SourceSpec spec;
  // Whether a hardware source samples this run's addresses (its claim succeeded): the soft
  // timer then records nothing of its own.
  bool hardware = false;
};

// A source's own metrics of one variable, beyond what its samples put in the trees (the
// watchpoint analyses' counts): the variable as its tree node names it under a kind root (root
// kCctHeapRoot: a = site; kCctStaticRoot: a = module, b = symbol index; otherwise the unknown
// class a), and its (metric id, value) pairs.
struct VariableMetrics {
  uint8_t root;
  uint32_t a;
  uint64_t b;
  const hpcl::Metric* metrics;
  int n;
};
using VariableMetricsFn = void (*)(const VariableMetrics& v, void* ctx);

// One sampled data access that a source put in a thread's tree (the timer's decoded instruction,
// a hardware record), handed to the rows that act on accesses: the watches arm on it, the NUMA
// placement logs its page.
struct SampledAccess {
  uint64_t ea;
  uint32_t size;     // bytes; 8 when the record does not say (PEBS, IBS: the aligned word)
  bool is_write;
  // The access has run: a watch armed on it cannot trap on the access itself (false for the
  // instruction the timer interrupted, which runs after the handler returns).
  bool executed;
  // The signal's own access, not a record older than it by up to a ring's worth (too old to
  // open a reuse or sharing window at).
  bool fresh;
  uint32_t var;      // its variable's node
  uint32_t node;     // the node the sample was counted at (its leaf)
  int cpu;           // the CPU it ran on; -1: the one running the handler (the timer's sample)
};

struct SourceOps {
  const char* name = nullptr;
  // Start-up, while the options are read: takes an entry of the -e list (HPCRUN_LITE_EVENTS)
  // that names this source (page-faults, wp-sharing, a PAPI event) and writes its settings into
  // `cfg`; true when it took it. The first entry that no row takes is the run's address-sampling
  // request (soft, a hardware source, auto). Not signal-safe.
  bool (*claim_option)(const SourceSpec& s, RuntimeConfig& cfg) = nullptr;
  // Start-up, once the machine's probe chose the source: whether the row serves the requested
  // `kind` whatever the probe said (the hardware row's test stand-in), writing why into `why`.
  // Not signal-safe.
  bool (*serve_anyway)(SourceKind kind, char* why, size_t n) = nullptr;
  // Start-up, first pass over every row: takes the run's address sampling if the row can (the
  // hardware source opens its plan here, or gives way to soft and says why in `cfg`).
  void (*claim)(SourceStart& st) = nullptr;
  // Start-up, second pass, once every row claimed: brings the source up when the options ask
  // for it (installs its handler, prepares its tables). Not signal-safe.
  void (*init)(SourceStart& st) = nullptr;
  // A thread state gets a new owner (a new thread, an adopted one, a reused state): the
  // source's slot (source_state.h) takes its first values. nullptr: zeroes will do.
  void (*init_state)(ThreadState* ts) = nullptr;
  // The thread's descriptors that the program's dup2/close must not take (fd_guard.h): up to
  // `max` pointers to them; returns how many. nullptr: none guarded.
  int (*thread_fds)(ThreadState* ts, int** out, int max) = nullptr;
  // Opens the thread's events; `self`: called on that thread. Not signal-safe. Every operation
  // may be nullptr: the row has nothing to do then.
  void (*start_thread)(ThreadState* ts, bool self) = nullptr;
  // Whether start_thread needs `self` (otherwise it waits for the thread to settle).
  bool needs_self = false;
  // On the thread itself when it ends: stops its events and reads what they still hold.
  void (*stop_thread)(ThreadState* ts) = nullptr;
  // Fork child: drops what the parent's thread had (events, rings) without reading it.
  void (*forget)(ThreadState* ts) = nullptr;
  // Fork child: whether the surviving thread starts this source again.
  bool restarts_in_child = false;
  // Fork child, once for the process, after every thread forgot (forget): drops process-wide
  // state the parent's threads left (the watch table).
  void (*child_all)() = nullptr;
  // The sampling signal's handler: whether `fd` is one of this source's events of `ts`, whose
  // records it then drains. Async-signal-safe. nullptr: the source has no signal of its own.
  bool (*on_signal)(ThreadState* ts, int fd, void* ucontext) = nullptr;
  // The thread's timer signal, after its sample: reads what the source buffered. Async-signal-
  // safe. nullptr: nothing to read.
  void (*on_tick)(ThreadState* ts) = nullptr;
  // A sampling handler of `ts` put access `a` in the thread's tree (SampledAccess).
  // Async-signal-safe. nullptr: the row does not act on accesses.
  void (*on_access)(ThreadState* ts, const SampledAccess& a) = nullptr;
  // The very end of a sampling handler of `ts` that recorded samples: what the row started at
  // them starts counting now, not during the handler's own remaining time (the reuse watches).
  // Async-signal-safe.
  void (*sample_done)(ThreadState* ts) = nullptr;
  // A thread that the run's address-sampling source could not sample (its hardware events
  // refused, its ring unmappable): the row that samples it instead starts (the soft timer, as
  // `auto` falls back). Not signal-safe.
  void (*fallback_thread)(ThreadState* ts) = nullptr;
  // Process end, first pass: no handler of this source touches a tree once it returns and the
  // handlers in flight are done (handler_gate.h); events disabled.
  void (*halt_all)() = nullptr;
  // Process end, second pass, once no handler runs: reads every thread's remaining records.
  // nullptr: nothing buffered.
  void (*drain_all)() = nullptr;
  // On the thread itself, outside any handler, before the runtime forgets a block or mapping
  // (free, a realloc that moves, munmap): reads what the thread's ring holds, so that records of
  // the block's addresses find it in the map. A ring read only at signals that come every N
  // records or at timer ticks (the page-fault source, the hardware test stand-in) may hold the
  // last accesses to a block that is freed before the next signal. One look at the ring when it
  // is empty. nullptr: nothing buffered between signals.
  void (*before_forget)(ThreadState* ts) = nullptr;
  // On the thread itself, outside any handler, once a block or mapping [lo, hi) left the address
  // map and before its memory goes back: what the source logged of its pages is resolved while
  // they still exist (the NUMA placement). nullptr: nothing logged by page.
  void (*forgotten)(ThreadState* ts, uint64_t lo, uint64_t hi) = nullptr;
  // On the thread itself, outside any handler, after it tracked a block: time for work its
  // handler deferred (the NUMA placement resolves its log of sampled pages when half full).
  void (*after_track)(ThreadState* ts) = nullptr;
  // A call the runtime makes for the program whose work should not be sampled (the loading and
  // the constructors of a dlopen: interpose/dlopen_hooks.cpp): whether the source can pause the
  // calling thread's sampling around it, then the call's begin and end. The calling thread
  // only, outside its handler. nullptr: the source does not pause.
  bool (*can_pause)(const ThreadState* ts) = nullptr;
  void (*unsampled_begin)(ThreadState* ts) = nullptr;
  void (*unsampled_end)(ThreadState* ts) = nullptr;
  // The writer, once every thread's records are in the trees: the source's own lines of the
  // profile's META (its settings and the counts that account for every record it took), when
  // it ran. nullptr: nothing of its own (docs/FORMAT.md lists the keys).
  void (*write_meta)(hpcl::Profile& p) = nullptr;
  // The writer, once every thread's records are in the trees: calls `fn` for every variable the
  // source has metrics of its own for (VariableMetrics), which the writer adds to the variable's
  // node in the first thread's tree. Not signal-safe. nullptr: none.
  void (*variable_metrics)(VariableMetricsFn fn, void* ctx) = nullptr;
  // A module's code [lo, hi) was unmapped (dlclose): what the source cached about it goes, since
  // other code may be mapped there later (the soft source's decoder decisions). Not signal-safe.
  void (*code_unloaded)(uint64_t lo, uint64_t hi) = nullptr;
};

// The rows, in the order threads start them and the handler asks them (sources/source_list.cpp).
extern const SourceOps* const g_source_rows[];
extern const int g_source_row_count;

// The row's position in the list, which is also its slot in the thread state (source_state.h).
// Async-signal-safe (a few comparisons).
inline int source_index(const SourceOps& row) {
  for (int i = 0; i < g_source_row_count; ++i)
    if (g_source_rows[i] == &row) return i;
  return -1;
}

// Start-up, for each entry of the -e list: whether a row took it (see claim_option).
bool sources_claim_option(const SourceSpec& s, RuntimeConfig& cfg);
// The thread's own paths outside its handler (see forgotten, after_track).
void sources_forgotten(ThreadState* ts, uint64_t lo, uint64_t hi);
void sources_after_track(ThreadState* ts);
// A call not to be sampled (see can_pause): whether a row can pause the thread's sampling, and
// every row's begin and end around the call.
bool sources_can_pause(const ThreadState* ts);
void sources_unsampled_begin(ThreadState* ts);
void sources_unsampled_end(ThreadState* ts);
// The writer: every row's variable_metrics, in the list's order.
void sources_variable_metrics(VariableMetricsFn fn, void* ctx);
// Start-up: whether a row serves `kind` whatever the probe said (see serve_anyway).
bool sources_serve_anyway(SourceKind kind, char* why, size_t n);
// Start-up: every row's claim, then every row's init (see SourceOps). Not signal-safe.
void sources_init(SourceStart& st);

// A thread state's new owner: every source's slot takes its first values. Not signal-safe.
void sources_init_state(ThreadState* ts);
// Every source's guarded descriptors of `ts` (see thread_fds); returns how many.
int sources_thread_fds(ThreadState* ts, int** out, int max);

// Thread life cycle, walking the table (thread_state.cpp, runtime.cpp). Not signal-safe.
void sources_start_thread(ThreadState* ts, bool self);
// An adopted thread, settling on itself: the sources that could not start for it.
void sources_settle_thread(ThreadState* ts);
void sources_stop_thread(ThreadState* ts);
// Fork child: every source forgets `ts`'s inherited events.
void sources_forget(ThreadState* ts);
// Fork child, once, after every thread's sources_forget.
void sources_child_all();
// Fork child: the surviving thread starts again the sources that restart.
void sources_restart_in_child(ThreadState* ts);

// The sampling handler's dispatch: whether `fd` belongs to a source other than the timer, which
// then handled it. Async-signal-safe.
bool sources_on_signal(ThreadState* ts, int fd, void* ucontext);
// After a timer sample. Async-signal-safe.
void sources_on_tick(ThreadState* ts);
// A sampled access, and the end of the handler that recorded it (see on_access, sample_done).
// Async-signal-safe.
void sources_on_access(ThreadState* ts, const SampledAccess& a);
void sources_sample_done(ThreadState* ts);
// A thread the address-sampling source could not sample (see fallback_thread).
void sources_fallback_thread(ThreadState* ts);
// Before a tracked block or mapping leaves the address maps, on its thread (see before_forget).
void sources_before_forget(ThreadState* ts);

// The writer: every source's META lines, in the table's order.
void sources_write_meta(hpcl::Profile& p);
// Code unmapped (modules_forget_unloaded's callback): every source's code_unloaded.
void sources_code_unloaded(uint64_t lo, uint64_t hi);

// Process end (process_end.cpp): halts every source, waits for the handlers in flight (bounded),
// reads what the rings still hold and places the sampled pages, before the trees are read.
void sources_stop_all();

}  // namespace hpcrun
