// The statistics behind the report's honesty: a 95% interval for a variable's share of samples,
// and the smallest part of a variable that holds most of its samples (from its offset histogram).
#pragma once

#include <cstdint>
#include <vector>

namespace hpcl::analysis {

struct ShareInterval {
  double share = 0;  // estimated / total
  double low = 0;    // 95% interval, clipped to [0, 1]
  double high = 0;
};

// The 95% interval of the share `estimated / total`. `samples` is the observed count;
// `estimated` the variable's estimated count (equal to samples unless samples stand for a sampled
// subset, such as heap sites tracked one in N) and `variance` the variance of that estimate.
// A plain count (estimated == samples, variance == 0) gets the Wilson score interval of a
// binomial proportion; otherwise a normal approximation whose variance adds the binomial part,
// scaled by estimated / samples, and `variance`.
ShareInterval share_interval(uint64_t samples, double estimated, double variance, uint64_t total);

// The smallest run of consecutive bins holding at least `fraction` of all counts (the first such
// run on ties), as [first, last] bin indices. Empty histograms give {0, 0, 0}.
struct HotRange {
  uint32_t first = 0, last = 0;
  uint64_t count = 0;  // counts inside the run
};
HotRange hot_range(const std::vector<uint64_t>& bins, double fraction);

}  // namespace hpcl::analysis
