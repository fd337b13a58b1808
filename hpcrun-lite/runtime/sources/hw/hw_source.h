// The precise hardware sampling sources (pebs-load, pebs-store, ibs-op) in the runtime: a source
// is its events on this machine (event_plan.h: one, a group led by an aux event, or one per core
// type on hybrid parts) and its record decoder (HwSourceOps). Per thread every event of the plan
// is opened through perf_open(), in its leader's group; the first sampling event's ring takes
// the records of all (PERF_EVENT_IOC_SET_OUTPUT), and each sampling event's wakeups are
// signalled to the thread (the soft source's signal and handler); the handler drains the ring
// (hw_drain.h) with the interrupted context's callers as the newest record's path. At thread
// end and at process end the rest of the ring is read. docs/DESIGN.md says what Arm SPE would
// add (an AUX-area reader).
//
// HPCRUN_LITE_TEST_HW_STANDIN=1 (tests only, read only here): the PEBS sources run unchanged
// except that the event opened is the software page-fault event with the PEBS sample_type, so
// the kernel writes real records of the PEBS layout (with real data addresses; latency and
// data source zero) on a machine without a PMU. Never set it to measure.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

#include "options.h"
#include "hpcrun/probe/event_plan.h"
#include "sources/hw/hw_drain.h"
#include "sources/ring_event.h"

namespace hpcl {
struct Profile;
}

namespace hpcrun {

struct SourceOps;

struct ThreadState;

// The source's state of one thread (its slot: sources/source_state.h).
struct HwThread {
  RingEvent ev;                       // its first sampling event, whose ring takes the records
                                      // of all its events
  int other[kMaxPlannedEvents - 1];   // its other events (an aux group leader, the other core
                                      // type's), -1 unused
};
// A new owner of a thread state: no events yet.
void hw_init_state(ThreadState* ts);

inline constexpr const char* kEnvTestHwStandin = "HPCRUN_LITE_TEST_HW_STANDIN";

struct HwSourceOps {
  const char* name;
  HwDecoder decoder;
  SourceKind kind;  // its events: event_plan.h
};

// The source of a requested kind; nullptr when the kind is not a hardware source.
const HwSourceOps* hw_source_for(SourceKind kind);

// Whether the test stand-in was asked for (kEnvTestHwStandin=1).
bool hw_standin_requested();

// Builds the event (start-up, not signal-safe): false with the reason in `err`.
bool hw_init(SourceKind kind, const SourceSpec& spec, int signo, char* err, size_t errlen);
bool hw_enabled();
bool hw_standin();
// Opens the thread's event and ring (for ts->tid: also a thread adopted at start-up).
void hw_start_thread(ThreadState* ts);
// On the thread itself when it ends: stops its event and reads what its ring still holds.
void hw_stop_thread(ThreadState* ts);
// Fork child: forgets the inherited event and ring.
void hw_forget(ThreadState* ts);
// On the thread itself, before a block or mapping leaves the address maps: reads its ring if
// records wait there (source_table.h). Not signal-safe.
void hw_before_forget(ThreadState* ts);
// From the sampling signal's handler: if `fd` is this thread's hardware event, drains its ring
// and returns true. Async-signal-safe.
bool hw_on_signal(ThreadState* ts, int fd, const void* ucontext);
// Process end (source_table.h): disables every thread's event; once no handler runs, reads every
// ring.
void hw_halt_all();
void hw_drain_all();
HwCounts hw_counts();
// META hw_* (source_table.h: write_meta): where every record went, the fallback.
void hw_write_meta(hpcl::Profile& p);
// Threads sampled with soft because their events could not start, and the first reason.
uint64_t hw_fallback_threads(const char** reason);

// The row of the source table (process/source_table.h) that sources/source_list.cpp lists.
extern const SourceOps kHardwareSource;

}  // namespace hpcrun
