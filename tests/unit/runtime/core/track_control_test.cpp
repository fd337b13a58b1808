// The adaptive tracking controller (track_control.h), on a simulated clock: every block tracked
// when the program allocates little, a logarithmic number during a start-up burst, the budget
// held during sustained allocation, back to every block after a quiet phase, and weights that
// make the tracked blocks an unbiased estimate of all of them.
#include "memory/track_control.h"

#include <gtest/gtest.h>

#include <cmath>

using hpcrun::TrackControl;
using hpcrun::TrackPolicy;

namespace {

struct Outcome {
  uint64_t tracked = 0;
  double weight_sum = 0;
};

// `n` allocations, `ns_each` apart (plus the cost of tracking, 400 ns, when tracked).
Outcome allocate(TrackControl& c, const TrackPolicy& p, uint64_t& clock, uint64_t n, uint64_t ns_each) {
  Outcome r;
  for (uint64_t i = 0; i < n; ++i) {
    clock += ns_each;
    if (!c.pick()) continue;
    ++r.tracked;
    r.weight_sum += c.weight;
    clock += 400;
    c.after_tracked(p, [&] { return clock; });
  }
  return r;
}

}  // namespace

TEST(TrackControl, TracksEveryBlockOfAModestProgram) {
  TrackPolicy p;
  TrackControl c;
  uint64_t clock = 1000;
  c.init(p, clock, 42);
  Outcome r = allocate(c, p, clock, 15000, 30);  // fewer than one quantum, at full speed
  EXPECT_EQ(r.tracked, 15000u);
  EXPECT_EQ(c.k, 1u);
  // Per time step: 2,000 allocations every 100 ms, within the budget: still every one.
  for (int step = 0; step < 50; ++step) {
    clock += 100000000;
    r = allocate(c, p, clock, 2000, 30);
    EXPECT_EQ(r.tracked, 2000u) << step;
  }
}

TEST(TrackControl, ABurstGetsALogarithmicShareAndUnbiasedWeights) {
  TrackPolicy p;
  TrackControl c;
  uint64_t clock = 1000;
  c.init(p, clock, 7);
  const uint64_t n = 2000000;  // a 2M-node list built at start-up, 25 ns per node
  Outcome r = allocate(c, p, clock, n, 25);
  // quantum * (1 + log2(n / quantum)) is about 6 quanta; the time refill adds a little.
  EXPECT_GE(r.tracked, 4u * uint64_t(p.quantum));
  EXPECT_LE(r.tracked, 8u * uint64_t(p.quantum));
  EXPECT_LE(c.k, 64u);
  EXPECT_NEAR(r.weight_sum / double(n), 1.0, 0.05);
}

TEST(TrackControl, SustainedAllocationHoldsTheBudget) {
  TrackPolicy p;
  TrackControl c;
  uint64_t clock = 1000;
  c.init(p, clock, 9);
  const uint64_t n = 60000000;  // 3 s at 50 ns per allocation
  Outcome r = allocate(c, p, clock, n, 50);
  double seconds = double(clock - 1000) / 1e9;
  // Budget over the run plus the logarithmic burst share, with slack for the halving steps.
  double allowed = double(p.budget) * seconds * 1.5 + 12.0 * double(p.quantum);
  EXPECT_LE(double(r.tracked), allowed);
  EXPECT_GE(c.k, 8u);
  EXPECT_NEAR(r.weight_sum / double(n), 1.0, 0.05);
  EXPECT_NEAR(double(c.seen) / double(n), 1.0, 0.05);
}

TEST(TrackControl, AQuietPhaseRestoresFullTracking) {
  TrackPolicy p;
  TrackControl c;
  uint64_t clock = 1000;
  c.init(p, clock, 11);
  allocate(c, p, clock, 20000000, 25);
  const uint64_t k0 = c.k;
  EXPECT_GT(k0, 1u);
  clock += 5000000000ull;  // 5 s computing without allocating
  // The clock is read every 64 tracked allocations (64 * k allocations): the first read after
  // the quiet phase finds the bucket full and puts k back at 1.
  for (int i = 0; i < 4 * 64 && c.k != 1; ++i) allocate(c, p, clock, k0, 25);  // ~1 tracked each
  EXPECT_EQ(c.k, 1u);
  EXPECT_EQ(allocate(c, p, clock, 1000, 25).tracked, 1000u);
}

TEST(TrackControl, FixedAndNeverSettingsDoNotAdapt) {
  TrackPolicy fixed;
  fixed.adaptive = false;
  fixed.fixed_k = 64;
  TrackControl c;
  uint64_t clock = 0;
  c.init(fixed, clock, 5);
  Outcome r = allocate(c, fixed, clock, 640000, 25);
  EXPECT_EQ(c.k, 64u);
  EXPECT_NEAR(double(r.tracked), 10000.0, 500.0);
  TrackPolicy never;
  never.adaptive = false;
  never.fixed_k = 0;
  c.init(never, clock, 5);
  EXPECT_EQ(allocate(c, never, clock, 10000, 25).tracked, 0u);
}

// A block of weight 8 that takes 5 samples adds 5 * 7 estimated samples and (64 - 8) * 5^2 of
// variance: samples of one block are one cluster.
TEST(SampleEstimate, ClusteredVarianceOfOneBlock) {
  uint64_t extra = 0, var = 0;
  for (uint64_t c = 0; c < 5; ++c) {
    hpcrun::SampleEstimate e = hpcrun::SampleEstimate::of(8, c);
    extra += e.extra;
    var += e.var;
  }
  EXPECT_EQ(extra, 35u);
  EXPECT_EQ(var, 56u * 25u);
  EXPECT_EQ(hpcrun::SampleEstimate::of(1, 3).extra, 0u);  // exact blocks add nothing
  EXPECT_EQ(hpcrun::SampleEstimate::of(1, 3).var, 0u);
}
