// What debug-register watchpoints this machine gives a thread, for `hpcrun-lite --check`: how
// many breakpoint perf events one thread can hold at once, whether the modify ioctl re-aims one
// (Linux >= 4.17), and why perf refused when it did.
#pragma once

#include <cstddef>

namespace hpcrun {

struct WatchProbe {
  int registers = 0;      // breakpoint events opened at once on the calling thread (at most 8 tried)
  bool modify = false;    // PERF_EVENT_IOC_MODIFY_ATTRIBUTES re-aimed the first one
  bool counted = false;   // the re-aimed watch counted accesses to its word
  int first_error = 0;    // errno of the first refused open (ENOSPC: the registers are taken)
};

// Opens and closes breakpoint events on the calling thread. Not signal-safe.
WatchProbe probe_watchpoints();

// Whether the watchpoint sources (wp-sharing, wp-reuse) can run on what `p` found, and in `why`
// the one sentence that --check, the launcher's refusal and the tests all give: the registers
// and how the watch behaved when it works, what failed when not. Counting is part of the verdict
// because some hypervisors open breakpoint events, take the modify ioctl and never count (a
// paravirtualized 6.18 guest, measured 2026-12-01): an analysis there would report no sharing.
bool watch_usable(const WatchProbe& p, char* why, size_t n);

// What a user needs when watch_usable() says no.
inline constexpr const char kWatchFix[] =
    "needs breakpoint events that count (PERF_TYPE_BREAKPOINT, Linux >= 4.17)";

}  // namespace hpcrun
