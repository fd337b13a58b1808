// What debug-register watchpoints this machine gives a thread, for `hpcrun-lite --check`: how
// many breakpoint perf events one thread can hold at once, whether the modify ioctl re-aims one
// (Linux >= 4.17), and why perf refused when it did.
#pragma once

namespace hpcrun {

struct WatchProbe {
  int registers = 0;      // breakpoint events opened at once on the calling thread (at most 8 tried)
  bool modify = false;    // PERF_EVENT_IOC_MODIFY_ATTRIBUTES re-aimed the first one
  bool counted = false;   // the re-aimed watch counted accesses to its word
  int first_error = 0;    // errno of the first refused open (ENOSPC: the registers are taken)
};

// Opens and closes breakpoint events on the calling thread. Not signal-safe.
WatchProbe probe_watchpoints();

}  // namespace hpcrun
