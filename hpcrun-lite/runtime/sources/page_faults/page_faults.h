// The page-fault source (`-e page-faults[@PERIOD]`): first touch. Each measured thread gets a
// software page-fault event with the faulting data address and a ring buffer (perf_ring.h). The
// records are read without a signal of their own (with O_ASYNC the kernel signals every
// overflow, i.e. every fault, whatever the watermark): by the thread itself in its timer
// signal's handler (the soft source's; with page-faults alone the same timer runs only to read
// the ring), when the thread ends, and by the writer for every thread once sampling stopped at
// the end of the process. Each
// record is attributed like a soft sample (heap block, static or TLS variable, stack, other) and
// counted as the `page_faults` metric at its faulting instruction under that variable: a count
// of its own that never enters the samples' shares; and by the NUMA node of the CPU that took
// it (touch_node.h). docs/DESIGN.md says why a ring and not a
// signal per fault.
#pragma once

#include <cstdint>

#include "sources/ring_event.h"

namespace hpcl {
struct Profile;
}

namespace hpcrun {

struct SourceOps;

struct ThreadState;

// The source's state of one thread (its slot: sources/source_state.h).
struct PageFaultThread {
  RingEvent ev;    // the page-fault event and its ring buffer
  int wake_fd;     // the page-fault event that signals when the ring fills, or -1
};
// A new owner of a thread state: no events yet.
void pagefaults_init_state(ThreadState* ts);
// The thread's descriptors that the program's dup2/close must not take (fd_guard.h): up to
// `max` pointers to them in `out`; returns how many.
int pagefaults_thread_fds(ThreadState* ts, int** out, int max);

struct PageFaultCounts {
  uint64_t records = 0;     // fault records read
  uint64_t in_runtime = 0;  // faults of the runtime's own code: not recorded in a tree
  uint64_t dropped = 0;     // the thread's tree was full
  uint64_t lost = 0;        // PERF_RECORD_LOST: the ring was full
  uint64_t throttled = 0;   // PERF_RECORD_THROTTLE
};

// Enables the source: one record every `period` faults (1 = each); `signo` is the timer signal,
// blocked while a thread reads its own ring outside the handler. Not signal-safe.
void pagefaults_init(uint64_t period, int signo);
bool pagefaults_enabled();
uint64_t pagefaults_period();
// META page_faults_* (source_table.h: write_meta): the period and where every record went.
void pagefaults_write_meta(hpcl::Profile& p);
// Opens the thread's event and ring (for ts->tid: also a thread adopted at start-up). Not
// signal-safe.
void pagefaults_start_thread(ThreadState* ts);
// On the thread itself, when it ends: stops its event and reads what its ring still holds.
void pagefaults_stop_thread(ThreadState* ts);
// Fork child: forgets the inherited events and rings without reading them.
void pagefaults_forget(ThreadState* ts);
// On the thread itself, before a block or mapping leaves the address maps: reads its ring if
// the kernel wrote to it since the last read (source_table.h). Not signal-safe.
void pagefaults_before_forget(ThreadState* ts);
// From the timer signal's handler, on the thread itself: reads its ring. Async-signal-safe: no
// allocation, no lock.
void pagefaults_on_timer(ThreadState* ts);
// From the timer signal's handler: if `fd` is this thread's waker (a page-fault event that
// signals once per a third of the ring), reads the ring and returns true. Async-signal-safe.
bool pagefaults_on_wake(ThreadState* ts, int fd);
// Process end (source_table.h): disables every thread's event; once no handler runs, reads
// every ring into its thread's tree.
void pagefaults_halt_all();
void pagefaults_drain_all();
PageFaultCounts pagefaults_counts();

// The row of the source table (process/source_table.h) that sources/source_list.cpp lists.
extern const SourceOps kPageFaultsSource;

}  // namespace hpcrun
