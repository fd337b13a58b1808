// One thread's debug-register watches (watch.h): up to four breakpoint perf events opened
// disabled when the thread starts, re-aimed and enabled later from signal handlers (the thread's
// own, or another thread's) with PERF_EVENT_IOC_MODIFY_ATTRIBUTES.
//
// Ownership of a slot passes through `state` with compare-and-swap, so that the thread that
// arms it, the thread that takes its trap and the thread that expires it never act at once:
//   Free -> Busy (an arming thread fills the fields, enables the event) -> Armed
//   Armed -> Busy (the trap's thread, or whoever finds it expired; the event is disabled) -> Free
//   Free/Armed -> Dead (the owning thread ends; the fd is closed after)
// Only the thread that moved a slot to Busy touches its fields or its fd until it leaves Busy.
#pragma once

#include <atomic>
#include <cstdint>

namespace hpcrun {

inline constexpr int kWatchSlots = 4;  // x86 debug registers per thread

// Dead is 0: a zeroed (new) thread state has no open slot.
enum WatchState : uint32_t { kWatchDead = 0, kWatchFree = 1, kWatchBusy = 2, kWatchArmed = 3 };
enum WatchKind : uint8_t { kWatchSharing = 1, kWatchReuse = 2, kWatchCalibrate = 3 };

struct WatchSlot {
  std::atomic<uint32_t> state;  // WatchState
  int fd;                       // the breakpoint event, -1 without
  uint8_t kind;                 // WatchKind
  int32_t var;                  // the variable's entry in the watch table (watch_table.h)
  uint64_t word;                // the watched 8-byte word
  uint64_t sampled;             // sharing: the address the sampled access touched
  uint32_t sampled_size;        // ... and its size in bytes (0: unknown)
  uint64_t armed_ns;            // CLOCK_MONOTONIC when the watch was enabled
  std::atomic<uint64_t> deadline_ns;  // expires after this (read by expiring threads)
  uint64_t count0;              // the event's count when armed: a later signal with no new count is stale
  uint64_t group;               // sharing: the arming it belongs to (the others go when one traps)
};

struct WatchSlots {
  WatchSlot slot[kWatchSlots];
  std::atomic<int> ready;       // the slots were opened for the current owner of the state
  uint64_t next_sharing_ns;     // the rate limits of this thread's arming decisions
  uint64_t next_reuse_ns;
  uint64_t rng;
  uint32_t restart;             // reuse slots armed by the running handler (bit per slot)
};

}  // namespace hpcrun
