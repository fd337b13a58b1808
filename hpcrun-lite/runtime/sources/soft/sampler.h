// The software address sampler: a per-thread perf task-clock event whose overflow signal is
// delivered to that thread; the timer's share of the shared handler (sources/handler.h) decodes
// the interrupted instruction (access_decode.h), classifies its data address (heap block, static
// variable, stack, other: sources/classify.h) and inserts the access path into the thread's
// calling-context tree. Only this folder includes this header: the rest of the runtime reaches
// the source through its row.
#pragma once

#include <cstdint>

namespace hpcrun {

struct SourceOps;

struct ThreadState;

// Installs the handler of the per-thread timer signal. record: the soft source samples (rate =
// samples per second of thread CPU time); without, the timer only reads the page-fault source's
// rings (page_faults.h). Each signal also reads them after its sample. timer: whether threads
// run the timer at all (a hardware source alone needs only the handler, for its own wakeups).
// Not signal-safe.
bool sampler_init(uint64_t rate, int signo, bool record, bool timer = true);
// The soft source's row of the source table (source_table.h). start_thread also serves a thread
// adopted at start-up: the event is opened for ts->tid.
void sampler_start_thread(ThreadState* ts);
void sampler_stop_thread(ThreadState* ts);
void sampler_forget(ThreadState* ts);  // fork child: closes the inherited timer
// A thread whose hardware source could not start (its events refused, its ring unmappable) is
// sampled by the timer instead, as `auto` falls back (the row's fallback_thread). Not
// signal-safe.
void sampler_start_fallback(ThreadState* ts);
// dlopen (dlopen_hooks.cpp, through the row's can_pause): whether the calling thread's timer runs and is not inside a dlopen
// already. The wrapper then calls sampler_dlopen_begin before the real call: the first sample
// that lands inside pauses the timer from the handler (not recorded; from then on the thread's
// CPU time is counted as not sampled), and sampler_dlopen_end resumes it after. A dlopen that
// no sample reaches (most take well under a period) costs no system call. The calling thread
// only, outside its handler.
bool sampler_can_pause(const ThreadState* ts);
void sampler_dlopen_begin(ThreadState* ts);
void sampler_dlopen_end(ThreadState* ts);
// The writer: the calling thread's dlopen pause still under way, up to now (a library
// constructor that ends the process); ended pauses are in its slot.
uint64_t sampler_dlopen_pause_ns(const ThreadState* ts);
// Process end: no timer sample touches a tree from now on, and every thread's timer is closed.
void sampler_halt_all();
// How the timer signals (timer_signal.h): "sigtrap" or "realtime"; nullptr when no thread runs
// the timer by default (a hardware source alone).
const char* sampler_timer_signal();

// The row of the source table (process/source_table.h) that sources/source_list.cpp lists.
extern const SourceOps kSoftSource;

}  // namespace hpcrun
