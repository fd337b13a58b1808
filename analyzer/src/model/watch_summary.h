// Per-variable results of the watchpoint analyses (format 1.6 metrics 96-151, written by the
// runtime's -e wp-sharing / -e wp-reuse on each variable's own node): sharing traps and the rule
// that flags false sharing, reuse times with their percentiles. docs/REPORT.md documents the
// fields and the rule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl::analysis {

struct SharingSummary {
  bool present = false;        // some sharing watch was armed for this variable
  uint64_t false_traps = 0;    // another thread touched another word of the sampled access's line
  uint64_t true_traps = 0;     // ... the very word
  uint64_t threads = 0;        // threads that took a sharing trap (summed over processes)
  uint64_t lines = 0;          // lines with a trap (summed over processes)
  uint64_t armed = 0;          // sampled accesses that armed watches in other threads
  std::vector<uint64_t> offsets;  // byte offsets within the 64-byte line that trapped, ascending
  bool false_sharing = false;  // is_false_sharing()
};

struct ReuseSummary {
  bool present = false;         // some reuse watch was armed
  uint64_t samples = 0;         // reuse times measured
  uint64_t no_reuse = 0;        // watches that expired: no reuse within the window
  uint64_t armed = 0;
  double median_ns = 0, p10_ns = 0, p90_ns = 0;  // 0 without samples
  std::vector<uint64_t> histogram;  // bin k: [2^k, 2^(k+1)) ns; 40 bins
};

struct WatchSummary {
  SharingSummary sharing;
  ReuseSummary reuse;
};

// The rule that sets "false_sharing": at least kMinFalseTraps false-sharing traps, more false than
// true ones, and false traps on at least 1 in kMaxArmingsPerFalse of the armings (a line shared
// at the edge of two threads' parts of a large array traps rarely among many armings).
inline constexpr uint64_t kMinFalseTraps = 5;
inline constexpr uint64_t kMaxArmingsPerFalse = 20;
bool is_false_sharing(uint64_t false_traps, uint64_t true_traps, uint64_t armed);

// The q-quantile (0 < q < 1) of a log2 histogram of nanoseconds, interpolated geometrically
// inside its bin (linearly in bin 0); 0 for an empty histogram.
double log2_histogram_quantile(const std::vector<uint64_t>& bins, double q);

// The summary of the metrics of one variable node.
WatchSummary watch_summary_of(const Node& node);

struct Variable;
// Fills Variable::watch of the heap and static variables of `vars` from the variable nodes of the
// database's tree. `rows`: the index in `vars` of each database variable (sites first, then
// statics), SIZE_MAX for one without a row.
void attach_watch(const Profile& db, const std::vector<size_t>& rows, std::vector<Variable>& vars);

// "FALSE SHARING: 40 false / 0 true traps, 2 threads, 1 line, offsets 0, 8; median reuse 1.2 us
// (p10 ..., p90 ...), 200 reuses, 3 not within the window"; "" when neither ran on it.
std::string watch_text(const WatchSummary& w);

// "850 ns", "7.2 us", "5.1 ms", "1.25 s".
std::string duration_text(double ns);

}  // namespace hpcl::analysis
