// The PAPI source (`-e PAPI_NAME[@PERIOD]`, or a component's native event such as
// `sde:::LIB::EVENT@PERIOD`): code-centric counter metrics, as HPCToolkit users know them. Each
// measured thread gets one PAPI event set with every requested event set to overflow every
// PERIOD events; at each overflow the interrupted code's calling context gains PERIOD in the
// event's counter metric (hpcl::kMetricCounterBase + its index), under the no-data root: a
// counter says which code, not which variable. It runs beside the address-sampling source,
// which keeps answering "which variable".
//
// libpapi is opened with dlopen (RTLD_LOCAL): a program measured without PAPI events never loads
// it. PAPI delivers a hardware overflow with a signal of its own (its perf_event component) and a
// software-defined event's overflow as a call from the code that counted it (its sde component);
// the handler is written for both.
#pragma once

#include <cstdint>

#include "hpcl/profile.h"
#include "trees/mem_counts.h"

namespace hpcrun {

struct SourceOps;

struct ThreadState;

// The source's state of one thread (its slot: sources/source_state.h).
struct PapiThread {
  int set;  // the thread's PAPI event set, -1 without
};
// A new owner of a thread state: no event set yet.
void papi_init_state(ThreadState* ts);

inline constexpr int kMaxPapiEvents = kMaxCounters;

struct PapiEventRequest {
  const char* name;  // as the user typed it: "PAPI_TOT_CYC", "sde:::TESTLIB::ACCESSES"
  uint64_t period;   // events between two overflows
};

struct PapiCounts {
  uint64_t overflows = 0;  // overflows recorded in a tree
  uint64_t in_runtime = 0; // overflows inside the runtime's own code: PC only, no unwinding
  uint64_t nested = 0;     // overflows inside another source's handler on the same thread: dropped
  uint64_t dropped = 0;    // the thread's tree was full
  uint64_t failed_threads = 0;  // threads whose event set could not be started
};

// Loads libpapi and initialises it for threads. Not signal-safe; once, at start. On failure
// logs why (the library, the version, an event it does not know) and returns false: the program
// runs measured by its other sources.
bool papi_init(const PapiEventRequest* events, int n);
bool papi_enabled();
int papi_event_count();
const char* papi_event_name(int i);
uint64_t papi_event_period(int i);
// Creates, arms and starts the calling thread's event set. Not signal-safe.
void papi_start_thread(ThreadState* ts);
// On the thread itself, when it ends (and at process end for the thread that writes).
void papi_stop_thread(ThreadState* ts);
// Process end: no overflow is recorded after this returns, except by a handler already running
// (sources_stop_all waits for those). Other threads' event sets may still count until the
// process is gone; their handlers see this and leave the trees alone. Async-signal-safe: it
// calls no PAPI function, since a process may end in a signal handler.
void papi_stop_all();
// Fork child: PAPI's per-thread state is the parent's; the child counts nothing more.
void papi_forget(ThreadState* ts);
PapiCounts papi_counts();
// META counter.N.event/.period and counter_* (source_table.h: write_meta).
void papi_write_meta(hpcl::Profile& p);

// The row of the source table (process/source_table.h) that sources/source_list.cpp lists.
extern const SourceOps kPapiSource;

}  // namespace hpcrun
