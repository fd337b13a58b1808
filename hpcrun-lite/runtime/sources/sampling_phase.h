// The first sampling period of a thread: a uniform random value in (0, period], so a thread's
// samples start at a random phase of the period.
//
// With every thread's clock starting a full period before its first sample, a thread that runs
// for T < period CPU time is never sampled, and one that runs for T gets floor(T / period)
// samples: about half a sample less per thread than T x rate. Starting at a uniform phase, a
// thread is sampled at CPU times U, U + period, U + 2 period, ... with U uniform in (0, period],
// and the expected number of samples is exactly T / period for every T: short threads count in
// proportion to their CPU time. The sampler opens the event with the first period and sets the
// real one at the first sample (sampler.cpp).
#pragma once

#include <cstdint>

namespace hpcrun {

// splitmix64: one step of a 64-bit generator whose outputs are well mixed even for seeds that
// differ in a few bits (thread ids, clock readings). Pure: usable anywhere, signal handlers too.
inline uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Maps a uniform 64-bit value to a uniform integer in [1, period] (period >= 1): the high half
// of the 128-bit product, so there is no modulo bias.
inline uint64_t first_period(uint64_t period, uint64_t random) {
  if (period <= 1) return 1;
  return uint64_t((unsigned __int128)random * period >> 64) + 1;
}

}  // namespace hpcrun
