// The random first period of each thread (sampling_phase.h): always in (0, period], uniform over
// it, and different for seeds that differ in one bit (thread ids, clock readings).
#include "sources/sampling_phase.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

using namespace hpcrun;

TEST(SamplingPhase, FirstPeriodStaysInZeroToPeriod) {
  for (uint64_t period : {1ull, 2ull, 10ull, 1000000ull, 4000000ull}) {
    EXPECT_EQ(first_period(period, 0), 1u) << period;
    EXPECT_EQ(first_period(period, ~0ull), period) << period;
    uint64_t state = period;
    for (int i = 0; i < 10000; ++i) {
      uint64_t p = first_period(period, splitmix64(&state));
      ASSERT_GE(p, 1u);
      ASSERT_LE(p, period);
    }
  }
  EXPECT_EQ(first_period(0, 12345), 1u);  // never a zero period, which perf would reject
}

// Chi-square over 20 equal bins of (0, 1 ms]: 200,000 draws from seeds 0, 1, 2, ... (as close as
// thread seeds get). 19 degrees of freedom: above 43.8 has probability 0.001 for a uniform law.
TEST(SamplingPhase, FirstPeriodIsUniform) {
  constexpr uint64_t kPeriod = 1000000;
  constexpr int kBins = 20, kDraws = 200000;
  std::vector<int> bins(kBins, 0);
  double sum = 0;
  for (int i = 0; i < kDraws; ++i) {
    uint64_t seed = uint64_t(i);
    uint64_t p = first_period(kPeriod, splitmix64(&seed));
    ++bins[(p - 1) * kBins / kPeriod];
    sum += double(p);
  }
  double expected = double(kDraws) / kBins, chi2 = 0;
  for (int b : bins) chi2 += (b - expected) * (b - expected) / expected;
  EXPECT_LT(chi2, 43.8);
  // Mean of a uniform (0, P]: P/2, with standard error P / sqrt(12 n) = 645 ns here.
  EXPECT_NEAR(sum / kDraws, kPeriod / 2.0, 4000.0);
}

TEST(SamplingPhase, NearbySeedsGiveDifferentPhases) {
  std::set<uint64_t> seen;
  for (uint64_t tid = 1000; tid < 1100; ++tid) {
    uint64_t seed = tid << 32;
    seen.insert(first_period(1000000, splitmix64(&seed)));
  }
  EXPECT_GE(seen.size(), 99u);  // 100 draws from a million values: a repeat is unlikely
}
