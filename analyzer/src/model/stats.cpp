// Share intervals and hot ranges (see stats.h).
#include "stats.h"

#include <algorithm>
#include <cmath>

namespace hpcl::analysis {

namespace {
constexpr double kZ = 1.959963984540054;  // two-sided 95% of the standard normal
}

ShareInterval share_interval(uint64_t samples, double estimated, double variance, uint64_t total) {
  ShareInterval r;
  if (total == 0) return r;
  const double n = static_cast<double>(total);
  r.share = estimated / n;
  if (variance <= 0 && estimated == static_cast<double>(samples)) {
    // Wilson score interval: well-behaved near 0 and 1, where most variables are.
    const double p = std::clamp(r.share, 0.0, 1.0);
    const double z2 = kZ * kZ;
    const double denom = 1 + z2 / n;
    const double center = (p + z2 / (2 * n)) / denom;
    const double half = kZ / denom * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    r.low = std::max(0.0, center - half);
    r.high = std::min(1.0, center + half);
    return r;
  }
  const double k = static_cast<double>(samples);
  const double scale = samples > 0 ? estimated / k : 0;
  const double binomial = k * std::max(0.0, 1 - k / n) * scale * scale;
  const double half = kZ * std::sqrt(binomial + std::max(0.0, variance)) / n;
  r.low = std::max(0.0, r.share - half);
  r.high = std::min(1.0, r.share + half);
  return r;
}

HotRange hot_range(const std::vector<uint64_t>& bins, double fraction) {
  HotRange best;
  uint64_t total = 0;
  for (uint64_t b : bins) total += b;
  if (total == 0) return best;
  const double need = fraction * static_cast<double>(total);
  // Two pointers: for each end, the latest start whose window still holds enough.
  size_t best_len = bins.size() + 1;
  uint64_t sum = 0;
  size_t start = 0;
  for (size_t end = 0; end < bins.size(); ++end) {
    sum += bins[end];
    while (start < end && static_cast<double>(sum - bins[start]) >= need) sum -= bins[start++];
    if (static_cast<double>(sum) >= need && end - start + 1 < best_len) {
      best_len = end - start + 1;
      best = HotRange{static_cast<uint32_t>(start), static_cast<uint32_t>(end), sum};
    }
  }
  return best;
}

}  // namespace hpcl::analysis
