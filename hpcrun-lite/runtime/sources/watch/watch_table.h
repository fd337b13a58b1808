// What the watchpoint analyses (watch.h) found, per variable of the process: sharing traps (false
// and true), the threads and cache lines they involved and where in the line they fell, and reuse
// times as a log2 histogram with the watches that expired unused. The writer turns each entry into
// metrics of the variable's node (hpcl::kMetricWp*, docs/FORMAT.md).
//
// A fixed, zero-initialised table open-addressed by variable, claimed with a compare-and-swap and
// counted with relaxed atomics: every function here but watch_table_for_each is async-signal-safe
// (no allocation, no lock, bounded loops), and safe from any thread at once.
#pragma once

#include <cstdint>

#include "hpcl/ids.h"

namespace hpcrun {

inline constexpr uint32_t kWpReuseBins = hpcl::kMetricWpReuseEnd - hpcl::kMetricWpReuseBase;  // 40
inline constexpr uint32_t kWpLineWords = 8;     // 8-byte words in a 64-byte line
inline constexpr uint32_t kWpMaxLines = 16;     // distinct lines remembered per variable
inline constexpr uint64_t kWpLineBytes = 64;

// The bin of a reuse time: bin k holds [2^k, 2^(k+1)) ns, bin 0 also 0 and 1 ns, the last bin
// everything beyond.
inline uint32_t wp_reuse_bin(uint64_t ns) {
  if (ns < 2) return 0;
  uint32_t k = 63u - uint32_t(__builtin_clzll(ns));
  return k < kWpReuseBins ? k : kWpReuseBins - 1;
}

// A variable as its tree node names it under a kind root: root 1 heap (a = site), 2 static
// (a = module, b = symbol index, -1 for the module's anonymous data), 3 unknown (a = class).
struct WpVarKey {
  uint8_t root = 0;
  uint32_t a = 0;
  uint64_t b = 0;
};

// True sharing: another thread touched bytes the sampled access touched; false sharing: other
// bytes of the same line. Ranges are [address, address + size); a size of 0 (unknown) stands for
// the aligned 8-byte word around the address.
enum class WpShare : uint8_t { False, True };
inline WpShare wp_classify(uint64_t trap, uint32_t trap_size, uint64_t sampled, uint32_t sampled_size) {
  if (trap_size == 0) trap &= ~7ull, trap_size = 8;
  if (sampled_size == 0) sampled &= ~7ull, sampled_size = 8;
  return trap < sampled + sampled_size && sampled < trap + trap_size ? WpShare::True : WpShare::False;
}

// The entry of `key`, claimed if new; -1 when the table is full (counted in watch_table_lost).
int32_t wp_var(const WpVarKey& key);
void wp_count_armed(int32_t var, bool sharing);
// A sharing trap of thread `thread_index` at address `trap`, classified by wp_classify.
void wp_count_sharing(int32_t var, uint64_t trap, WpShare kind, uint32_t thread_index);
void wp_count_reuse(int32_t var, uint64_t ns);
void wp_count_no_reuse(int32_t var);

// One variable's results as the writer sees them.
struct WpRecord {
  WpVarKey key;
  uint64_t sharing_armed, reuse_armed;
  uint64_t false_traps, true_traps;
  uint64_t threads;  // distinct trapping threads (by thread index modulo 64)
  uint64_t lines;    // distinct lines with a sharing trap (at most kWpMaxLines)
  uint64_t no_reuse;
  uint64_t words[kWpLineWords];  // sharing traps by word of the line
  uint64_t reuse[kWpReuseBins];
};
// The format's (metric id, value) pairs of `r`, zeros left out; `out` has room for kWpMaxMetrics.
inline constexpr int kWpMaxMetrics = 8 + kWpLineWords + kWpReuseBins;
int wp_record_metrics(const WpRecord& r, hpcl::Metric* out);

// Calls fn for every entry with something counted. Not signal-safe (reads only; any time).
void watch_table_for_each(void (*fn)(const WpRecord&, void*), void* ctx);
uint64_t watch_table_lost();
// Fork child and tests: forget everything.
void watch_table_reset();

}  // namespace hpcrun
