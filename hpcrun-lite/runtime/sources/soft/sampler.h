// The software address sampler: a per-thread perf task-clock event whose overflow signal is
// delivered to that thread; the handler decodes the interrupted instruction (access_decode.h),
// classifies its data address (heap block, static variable, stack, other) and inserts the
// access path into the thread's calling-context tree.
#pragma once

#include <cstdint>

namespace hpcrun {

struct ThreadState;

// Installs the handler. rate = samples per second of thread CPU time. Not signal-safe.
bool sampler_init(uint64_t rate, int signo);
void sampler_start_thread(ThreadState* ts);
void sampler_stop_thread(ThreadState* ts);
// Stops every thread's sampling and waits for handlers in flight, before the trees are read.
void sampler_stop_all();
bool sampler_enabled();
// Samples lost because the kernel's queue of pending signals was full (they came as SIGIO).
uint64_t sampler_overflowed();

}  // namespace hpcrun
