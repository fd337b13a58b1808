// The runtime's clocks, in nanoseconds. Both go through the vDSO (no system call) and are
// async-signal-safe: a handler may read them.
//  - monotonic_ns: intervals and deadlines (the tracking controller, handler waits, watch
//    windows, the writer's timing);
//  - wall_ns: when the process started and ended, as written to the profile.
#pragma once

#include <time.h>

#include <cstdint>

namespace hpcrun {

inline uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

inline uint64_t monotonic_ns() { return clock_ns(CLOCK_MONOTONIC); }
inline uint64_t wall_ns() { return clock_ns(CLOCK_REALTIME); }

}  // namespace hpcrun
