// Sums and derived figures of the memory metrics (see memory_model.h).
#include "memory_model.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace hpcl::analysis {

std::string memory_metric_name(uint16_t id) {
  std::string name = metric_name(id);
  return name.empty() ? "metric_" + std::to_string(id) : name;
}

bool is_data_source_metric(uint16_t id) {
  // 16 levels are reserved (FORMAT.md: 28..31 for levels to come), up to the TLB counts.
  return id >= kMetricDataSrcBase && id < kMetricTlbHit;
}

uint64_t MemoryStats::sum(uint16_t id) const {
  auto it = std::lower_bound(sums.begin(), sums.end(), id,
                             [](const Metric& m, uint16_t key) { return m.id < key; });
  return it != sums.end() && it->id == id ? it->value : 0;
}

void MemoryStats::add(uint16_t id, uint64_t value) {
  if (value == 0) return;
  auto it = std::lower_bound(sums.begin(), sums.end(), id,
                             [](const Metric& m, uint16_t key) { return m.id < key; });
  // Saturating, as Node::add_metric does: a pegged counter is more honest than a wrapped one.
  if (it != sums.end() && it->id == id) it->value += std::min(value, UINT64_MAX - it->value);
  else sums.insert(it, Metric{id, value});
}

void MemoryStats::add(const MemoryStats& other) {
  for (const Metric& m : other.sums) add(m.id, m.value);
}

namespace {
bool meta_count(const Profile& db, const char* key, uint64_t* out) {
  const std::string* s = db.find_meta(key);
  if (s == nullptr || s->empty()) return false;
  auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), *out);
  return ec == std::errc() && end == s->data() + s->size();
}

// A program-wide count: META `key` when the runtime wrote it, else the events of the PAPI
// counter named `papi_event` (`-e PAPI_TOT_INS`), summed over the tree.
bool program_count(const Profile& db, const char* key, const char* papi_event, uint64_t* out) {
  if (meta_count(db, key, out)) return true;
  for (uint16_t id = kMetricCounterBase; id < kMetricCounterEnd; ++id) {
    const std::string name = "counter." + std::to_string(id - kMetricCounterBase) + ".event";
    const std::string* event = db.find_meta(name.c_str());
    if (event == nullptr || *event != papi_event || db.trees.empty()) continue;
    *out = 0;
    for (const Node& node : db.trees[0].nodes) *out += node.metric(id);
    return true;
  }
  return false;
}

double ratio(uint64_t part, uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}
}  // namespace

void MemoryStats::derive(const MemoryContext& context) {
  const uint64_t latency = sum(kMetricLatency), with_latency = sum(kMetricLatencySamples);
  // A latency without its sample count (a runtime before format 1.5) has no mean.
  has_mean_latency = with_latency > 0;
  mean_latency = ratio(latency, with_latency);
  has_latency_per_instruction = latency > 0 && context.has_period && context.has_instructions &&
                                context.instructions > 0;
  latency_per_instruction =
      has_latency_per_instruction
          ? static_cast<double>(latency) * static_cast<double>(context.period) /
                static_cast<double>(context.instructions)
          : 0;

  levels.clear();
  level_samples = 0;
  for (const Metric& m : sums)
    if (is_data_source_metric(m.id)) {
      levels.push_back(LevelShare{m.id, m.value, 0});
      level_samples += m.value;
    }
  for (LevelShare& l : levels) l.share = ratio(l.samples, level_samples);
  std::stable_sort(levels.begin(), levels.end(), [](const LevelShare& x, const LevelShare& y) {
    return x.samples > y.samples;
  });

  const uint64_t hit = sum(kMetricTlbHit), miss = sum(kMetricTlbMiss);
  has_tlb = hit + miss > 0;
  tlb_miss_rate = ratio(miss, hit + miss);
  const uint64_t local = sum(kMetricNumaLocal), remote = sum(kMetricNumaRemote);
  has_numa = local + remote > 0;
  numa_remote_share = ratio(remote, local + remote);
}

MemoryContext memory_context(const Profile& db) {
  MemoryContext c;
  const std::string* source = db.find_meta("source");
  // The soft source's rate is samples per second, not events per sample.
  const bool hardware = source != nullptr && !source->empty() && *source != "soft" && *source != "mixed";
  c.has_period = hardware && meta_count(db, "rate", &c.period) && c.period > 0;
  c.has_instructions = program_count(db, "instructions", "PAPI_TOT_INS", &c.instructions);
  return c;
}

void add_memory_notes(const Profile& db, std::vector<std::string>& notes) {
  uint64_t lost = 0, throttled = 0, unresolved = 0;
  meta_count(db, "hw_lost", &lost);
  meta_count(db, "hw_throttled", &throttled);
  meta_count(db, "numa_unresolved", &unresolved);
  if (lost > 0 || throttled > 0)
    notes.push_back("The hardware source lost " + std::to_string(lost) +
                    " records (a thread's ring buffer was full) and the kernel throttled it " +
                    std::to_string(throttled) +
                    " times (too many samples per second); their samples are not in this report: "
                    "a larger period loses fewer.");
  uint64_t nodes = 0;
  if (unresolved > 0 && !(meta_count(db, "numa_nodes", &nodes) && nodes == 1))
    notes.push_back(std::to_string(unresolved) +
                    " sampled pages had no NUMA node when looked up (freed before); they are in "
                    "neither numa_local nor numa_remote.");
}

MemoryAssessment assess_memory(const Profile& db, const MemoryContext& context,
                               const MemoryStats& program, uint64_t data_samples,
                               uint64_t total_samples) {
  MemoryAssessment a;
  a.has_latency = program.sum(kMetricLatency) > 0;
  a.has_period = context.has_period;
  a.period = context.period;
  a.has_instructions = context.has_instructions;
  a.instructions = context.instructions;
  a.has_cycles = program_count(db, "cycles", "PAPI_TOT_CYC", &a.cycles);
  if (a.has_cycles && a.has_instructions && a.instructions > 0)
    a.cycles_per_instruction = ratio(a.cycles, a.instructions);
  a.memory_instruction_share = ratio(data_samples, total_samples);
  if (!a.has_latency) a.missing.push_back("latency");
  if (!a.has_period) a.missing.push_back("period");
  if (!a.has_instructions || a.instructions == 0) a.missing.push_back("instructions");
  if (a.missing.empty()) {
    a.latency_per_instruction = program.latency_per_instruction;
    a.verdict = a.latency_per_instruction > kMemoryBoundLatencyPerInstruction ? Boundness::MemoryBound
                                                                              : Boundness::CpuBound;
  }
  return a;
}

const char* boundness_name(Boundness b) {
  switch (b) {
    case Boundness::MemoryBound: return "memory-bound";
    case Boundness::CpuBound: return "cpu-bound";
    case Boundness::Unknown: break;
  }
  return "unknown";
}

}  // namespace hpcl::analysis
