// The memory part of the report model: per variable and for the whole program, the inclusive sums
// of the memory metrics a hardware source (PEBS, IBS) or the NUMA lookup recorded, the figures a
// reader of `perf mem` or VTune's memory access view expects (mean latency, data sources, TLB
// miss rate, remote NUMA share), and the memory-bound vs CPU-bound assessment of HPCToolkit
// (latency per instruction, more than 0.1 cycle per instruction: memory-bound). Generic over the
// metric ids: whatever hpcl::is_memory_metric says is summed, so a new id needs no code here. Like
// the rest of the model it knows nothing of any output format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl::analysis {

// The slide's threshold: more than this many cycles of access latency per instruction is
// memory-bound (HPCToolkit, SC'13).
inline constexpr double kMemoryBoundLatencyPerInstruction = 0.1;

// The name a report gives a memory metric: hpcl::metric_name, or "metric_ID" for an id this
// build does not name (a newer runtime's), so it is still reported.
std::string memory_metric_name(uint16_t id);

// True for the data-source ids (16 + MemLevel, 16..31 reserved for levels).
bool is_data_source_metric(uint16_t id);

struct LevelShare {
  uint16_t id = 0;      // kMetricDataSrcBase + level
  uint64_t samples = 0;
  double share = 0;     // samples / MemoryStats::level_samples
};

// The program's counters that turn sampled latency into a per-instruction figure (META).
struct MemoryContext {
  bool has_period = false;  // META rate of a hardware source: events per sample
  uint64_t period = 0;
  bool has_instructions = false;
  uint64_t instructions = 0;
};

struct MemoryStats {
  // Inclusive sums, sorted by id, zeros left out: every memory metric the variable's subtree had.
  std::vector<Metric> sums;
  // Derived figures; each `has_` is false when the metrics it needs are absent.
  bool has_mean_latency = false;
  double mean_latency = 0;           // cycles per sampled access: latency / latency_samples
  uint64_t level_samples = 0;        // samples whose record named a data source (any level)
  std::vector<LevelShare> levels;    // samples descending, ties by id
  bool has_tlb = false;
  double tlb_miss_rate = 0;          // tlb_miss / (tlb_hit + tlb_miss)
  bool has_numa = false;
  double numa_remote_share = 0;      // numa_remote / (numa_local + numa_remote)
  // Estimated latency (sampled latency x period) per instruction of the whole program: the
  // variable's part of the program's figure, which the variables' parts add up to.
  bool has_latency_per_instruction = false;
  double latency_per_instruction = 0;

  bool present() const { return !sums.empty(); }
  uint64_t sum(uint16_t id) const;
  void add(uint16_t id, uint64_t value);
  void add(const MemoryStats& other);  // sums only; derive() again afterwards
  // Computes the derived figures from `sums`.
  void derive(const MemoryContext& context);
};

enum class Boundness { Unknown, MemoryBound, CpuBound };
const char* boundness_name(Boundness b);  // "unknown", "memory-bound", "cpu-bound"

// The program's assessment (slide 12): latency per instruction against 0.1 cycle. Without a
// latency (the soft source) it states what the soft source can: the share of samples whose
// instruction accessed memory (the samples with a data address).
struct MemoryAssessment {
  Boundness verdict = Boundness::Unknown;
  bool has_latency = false;          // some sample carried a latency
  bool has_instructions = false;     // META instructions, else the PAPI_TOT_INS counter's events
  uint64_t instructions = 0;
  bool has_cycles = false;           // META cycles, else the PAPI_TOT_CYC counter's events
  uint64_t cycles = 0;
  bool has_period = false;           // META rate of a hardware source
  uint64_t period = 0;
  double latency_per_instruction = 0;  // when has_latency, has_period and has_instructions
  double cycles_per_instruction = 0;   // when has_cycles and has_instructions
  double memory_instruction_share = 0; // data samples / all samples
  // What a verdict lacks, in the order a reader would fix it: "latency", "period",
  // "instructions"; empty when there is a verdict.
  std::vector<std::string> missing;
};

// From the database's META: the period (META rate when META source names a hardware source, not
// `soft` or `mixed`), and the counters `instructions` and `cycles` when the runtime counted them.
MemoryContext memory_context(const Profile& db);
// Caveats from the runtime's accounting (META): hardware records lost or throttled, sampled pages
// whose NUMA node could not be found; nothing when all are zero or absent.
void add_memory_notes(const Profile& db, std::vector<std::string>& notes);

MemoryAssessment assess_memory(const Profile& db, const MemoryContext& context,
                               const MemoryStats& program, uint64_t data_samples,
                               uint64_t total_samples);

}  // namespace hpcl::analysis
