// The runtime's clocks, in nanoseconds, all async-signal-safe: a handler may read them.
//  - monotonic_ns: intervals and deadlines (handler waits, watch windows, the writer's timing,
//    the cost of one tracked allocation); through the vDSO, no system call;
//  - wall_ns: when the process started and ended, as written to the profile; vDSO;
//  - thread_cpu_ns: the calling thread's CPU time, what the tracking budget refills by
//    (track_control.h); a system call (0.38 us on the development VM).
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
inline uint64_t thread_cpu_ns() { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

}  // namespace hpcrun
