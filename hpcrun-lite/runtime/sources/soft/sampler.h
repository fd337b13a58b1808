// The software address sampler: a per-thread perf task-clock event whose overflow signal is
// delivered to that thread; the handler decodes the interrupted instruction (access_decode.h),
// classifies its data address (heap block, static variable, stack, other) and inserts the
// access path into the thread's calling-context tree.
#pragma once

#include <cstdint>

namespace hpcrun {

struct SourceOps;

class Cct;
struct SampleEstimate;
struct ThreadState;

// The tree node of the variable that data address `ea` belongs to (heap block, static or TLS
// variable, stack, untracked heap, other), in thread `ts`'s tree `c`; Cct::kNone when the tree
// is full. With `est` (a sample) also counts the offset histogram and the sampling estimate;
// without (a page fault) neither. Async-signal-safe.
uint32_t classify_address(Cct& c, uint64_t ea, const ThreadState* ts, SampleEstimate* est);

// Below `node`, the path that created the thread `ts`, then `frames` (n call sites, innermost
// first, as capture_sample_path gives them): the node of the innermost, to which the caller adds
// the sampled instruction. Cct::kNone when the tree is full. Async-signal-safe.
uint32_t attach_access_path(Cct& c, uint32_t node, const ThreadState* ts, const uint64_t* frames,
                            int n);

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
// sampled by the timer instead, as `auto` falls back (hw_source.cpp). Not signal-safe.
void sampler_start_fallback(ThreadState* ts);
// dlopen (dlopen_hooks.cpp): whether the calling thread's timer runs and is not inside a dlopen
// already. The wrapper then calls sampler_dlopen_begin before the real call: the first sample
// that lands inside pauses the timer from the handler (not recorded; from then on the thread's
// CPU time is counted as not sampled), and sampler_dlopen_end resumes it after. A dlopen that
// no sample reaches (most take well under a period) costs no system call. The calling thread
// only, outside its handler.
bool sampler_can_pause(const ThreadState* ts);
void sampler_dlopen_begin(ThreadState* ts);
void sampler_dlopen_end(ThreadState* ts);
// The writer: the thread's CPU time inside dlopen that the paused timer did not sample, in
// ended pauses; and the calling thread's pause still under way, up to now (a library
// constructor that ends the process).
uint64_t sampler_dlopen_unsampled_ns(const ThreadState* ts);
uint64_t sampler_dlopen_pause_ns(const ThreadState* ts);
// Process end: no timer sample touches a tree from now on, and every thread's timer is closed.
void sampler_halt_all();
bool sampler_enabled();
// On the thread itself, outside the handler (its allocation wrappers, its end): resolves its
// NUMA log (numa.h) with the sampling signal blocked. Not for signal context.
void sampler_numa_flush(ThreadState* ts);
// Samples lost because the kernel's queue of pending signals was full (they came as SIGIO).
uint64_t sampler_overflowed();
// How the timer signals (timer_signal.h): "sigtrap" or "realtime"; nullptr when no thread runs
// the timer by default (a hardware source alone).
const char* sampler_timer_signal();

// The row of the source table (process/source_table.h) that sources/source_list.cpp lists.
extern const SourceOps kSoftSource;
extern const SourceOps kNumaPlacement;

}  // namespace hpcrun
