// Process-wide state of the preloaded runtime and its life cycle: start-up in a constructor,
// thread start and exit, fork, dlopen, and the profile written at normal exit.
#pragma once

#include <link.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "memory/alloc_sites.h"
#include "memory/heap_extent.h"
#include "memory/heap_map.h"
#include "memory/track_control.h"
#include "process/process_end.h"

namespace hpcrun {

struct RuntimeConfig {
  uint64_t min_bytes;
  uint64_t small_every;  // 0: never tracked; kSmallEveryAuto: adaptive (track); else fixed 1 in N
  TrackPolicy track;     // derived from small_every and the track budget
  uint64_t rate;
  const char* source;    // "soft"; "page-faults" when that is the only source
  bool sampling;         // an address-sampling source runs (not only page faults)
  uint64_t page_fault_period;  // the page-fault source's period; 0 without it
  // Watchpoint analyses (watch.h): arming decisions per second per thread; 0 without.
  uint64_t wp_sharing_rate;
  uint64_t wp_reuse_rate;
  // PAPI events counted beside the sources (papi_source.h): names as typed, and periods.
  int npapi;
  char papi_events[4][48];
  uint64_t papi_periods[4];
  char out_dir[1024];
  char cmdline[2048];
  char run_id[33];  // META run_id (run_id.h); "" when unknown
  uint64_t start_ns;
  // The address-sampling source asked for ("auto", "pebs-load", ...), and why the run uses
  // another one ("" when it does not): META source_requested and source_fallback.
  const char* source_requested;
  char source_fallback[256];
};

extern RuntimeConfig g_config;
extern HeapMap g_heap;
// Allocations that should have been tracked but found the site table or address map full.
extern std::atomic<uint64_t> g_allocs_lost;
extern HeapExtent g_heap_extent;
extern AllocSites g_sites;
// The tracked block this thread is handing to the real free() right now (start 0: none). The
// block is already out of the map; the thread's own signal handler credits samples in it or in
// its chunk header to it.
extern __thread BlockInfo t_freeing __attribute__((tls_model("initial-exec")));
// True once start-up finished: allocations are tracked from then on.
extern std::atomic<bool> g_tracking;

// Start-up (startup/runtime_init.cpp), in this order. The first scan of the loaded modules, with
// `on_new` called for each module it adds (then and at every later scan), inside the loader's
// iteration. Then, once the sources are up: the process's end prepared, thread ends followed,
// fork and exit handled, tracking on, the main thread and the threads started before the
// runtime measured. Caller holds the runtime guard.
void runtime_scan_first(void (*on_new)(const dl_phdr_info* info));
void runtime_start_measuring(ProfileWriter write);

// A thread that existed before the runtime (adopted, thread_state.h), at its first entry into the
// runtime outside a handler: finishes its set-up (stack bounds, unwinding, the sources only it
// can start, its signal stack) and has its end followed. One load after the first call on a
// thread. Caller holds the runtime guard.
void settle_adopted_thread();

// Set by the dlopen stub; the next runtime entry point scans the new modules' static variables.
extern std::atomic<bool> g_modules_dirty;
// Scans new modules once a dlopen since the last scan has finished adding them; cheap when
// nothing changed. Caller holds the runtime guard.
void rescan_modules_if_dirty();
// Scans new modules now (exit). Caller holds the runtime guard.
void scan_now();
// After a dlclose returned: modules the loader no longer lists are marked unloaded and the
// decoder's cached decisions for their code are dropped (another library may be mapped there).
// While another thread scans, the next scan does it (scan_now).
void forget_unloaded_modules();
// Takes a new snapshot of the loaded modules' program headers for the runtime's own
// dl_iterate_phdr calls (phdr_snapshot.h), from the real list. Not signal context; caller holds
// the runtime guard.
void refresh_phdr_snapshot();

// The program's pthread_create (interpose/thread_hooks.cpp): once measuring, the new thread
// starts through the runtime's trampoline, which measures it from its first instruction and
// remembers the creator's call path.
int create_thread(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg);

}  // namespace hpcrun
