// The small behaviours of the in-memory model (hpcl/profile.h): API names for reports, the sorted,
// zero-free metric list of a node, META lookup and the script pseudo-module.
#include "hpcl/profile.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace hpcl {

const char* alloc_api_name(AllocApi api) {
  switch (api) {
    case AllocApi::Malloc: return "malloc";
    case AllocApi::Calloc: return "calloc";
    case AllocApi::Realloc: return "realloc";
    case AllocApi::ReallocArray: return "reallocarray";
    case AllocApi::Memalign: return "memalign";
    case AllocApi::PosixMemalign: return "posix_memalign";
    case AllocApi::AlignedAlloc: return "aligned_alloc";
    case AllocApi::Valloc: return "valloc";
    case AllocApi::Pvalloc: return "pvalloc";
    case AllocApi::New: return "operator new";
    case AllocApi::NewArray: return "operator new[]";
    case AllocApi::NewAligned: return "operator new (aligned)";
    case AllocApi::NewArrayAligned: return "operator new[] (aligned)";
    case AllocApi::Mmap: return "mmap";
    case AllocApi::MmapFile: return "mmap file";
    case AllocApi::MmapShm: return "mmap shm";
    case AllocApi::Shmat: return "shmat";
    case AllocApi::Named: return "named";
    case AllocApi::Jemalloc: return "mallocx";
    case AllocApi::Mimalloc: return "mi_malloc";
    case AllocApi::Tbbmalloc: return "scalable_malloc";
    case AllocApi::Tcmalloc: return "tc_malloc";
  }
  // Values from a newer writer (or a damaged file) are kept in the model and shown as unknown.
  return "unknown";
}

const char* metric_name(uint16_t id) {
  static const char* const kLevels[] = {"na", "l1", "lfb", "l2", "l3", "local_dram", "remote_dram",
                                        "remote_cache", "pmem", "cxl", "io", "uncached"};
  static_assert(std::size(kLevels) == size_t(MemLevel::Count));
  switch (id) {
    case kMetricSamples: return "samples";
    case kMetricLatency: return "latency";
    case kMetricSamplesEstimated: return "samples_estimated";
    case kMetricSamplesEstimatedVar: return "samples_estimated_var";
    case kMetricPageFaults: return "page_faults";
    case kMetricLatencySamples: return "latency_samples";
    case kMetricNumaLocal: return "numa_local";
    case kMetricNumaRemote: return "numa_remote";
    case kMetricTlbHit: return "tlb_hit";
    case kMetricTlbMiss: return "tlb_miss";
    case kMetricLocked: return "locked";
    case kMetricHitm: return "hitm";
    case kMetricDcMiss: return "dc_miss";
    case kMetricWpFalse: return "wp_false";
    case kMetricWpTrue: return "wp_true";
    case kMetricWpThreads: return "wp_threads";
    case kMetricWpLines: return "wp_lines";
    case kMetricWpSharingArmed: return "wp_sharing_armed";
    case kMetricWpReuseArmed: return "wp_reuse_armed";
    case kMetricWpNoReuse: return "wp_no_reuse";
    default: break;
  }
  if (id >= kMetricDataSrcBase && id < kMetricDataSrcBase + std::size(kLevels))
    return kLevels[id - kMetricDataSrcBase];
  static const char* const kTouchNodes[] = {
      "first_touch_node0",  "first_touch_node1",  "first_touch_node2",  "first_touch_node3",
      "first_touch_node4",  "first_touch_node5",  "first_touch_node6",  "first_touch_node7",
      "first_touch_node8",  "first_touch_node9",  "first_touch_node10", "first_touch_node11",
      "first_touch_node12", "first_touch_node13", "first_touch_node14", "first_touch_node15"};
  static_assert(std::size(kTouchNodes) == kMetricFirstTouchNodeEnd - kMetricFirstTouchNodeBase);
  if (id >= kMetricFirstTouchNodeBase && id < kMetricFirstTouchNodeEnd)
    return kTouchNodes[id - kMetricFirstTouchNodeBase];
  static const char* const kWords[] = {"wp_word0", "wp_word8",  "wp_word16", "wp_word24",
                                       "wp_word32", "wp_word40", "wp_word48", "wp_word56"};
  static_assert(std::size(kWords) == kMetricWpWordEnd - kMetricWpWordBase);
  if (id >= kMetricWpWordBase && id < kMetricWpWordEnd) return kWords[id - kMetricWpWordBase];
  static const char* const kReuse[] = {
      "wp_reuse0",  "wp_reuse1",  "wp_reuse2",  "wp_reuse3",  "wp_reuse4",  "wp_reuse5",
      "wp_reuse6",  "wp_reuse7",  "wp_reuse8",  "wp_reuse9",  "wp_reuse10", "wp_reuse11",
      "wp_reuse12", "wp_reuse13", "wp_reuse14", "wp_reuse15", "wp_reuse16", "wp_reuse17",
      "wp_reuse18", "wp_reuse19", "wp_reuse20", "wp_reuse21", "wp_reuse22", "wp_reuse23",
      "wp_reuse24", "wp_reuse25", "wp_reuse26", "wp_reuse27", "wp_reuse28", "wp_reuse29",
      "wp_reuse30", "wp_reuse31", "wp_reuse32", "wp_reuse33", "wp_reuse34", "wp_reuse35",
      "wp_reuse36", "wp_reuse37", "wp_reuse38", "wp_reuse39"};
  static_assert(std::size(kReuse) == kMetricWpReuseEnd - kMetricWpReuseBase);
  if (id >= kMetricWpReuseBase && id < kMetricWpReuseEnd) return kReuse[id - kMetricWpReuseBase];
  return "";
}

bool is_memory_metric(uint16_t id) {
  return id == kMetricLatency || id == kMetricLatencySamples || id == kMetricNumaLocal ||
         id == kMetricNumaRemote || (id >= kMetricDataSrcBase && id <= kMetricDcMiss);
}

namespace {
template <typename Metrics>  // const or not
auto find_metric(Metrics& metrics, uint16_t id) {
  return std::lower_bound(metrics.begin(), metrics.end(), id,
                          [](const Metric& m, uint16_t key) { return m.id < key; });
}
}  // namespace

uint64_t Node::metric(uint16_t id) const {
  auto it = find_metric(metrics, id);
  return it != metrics.end() && it->id == id ? it->value : 0;
}

void Node::add_metric(uint16_t id, uint64_t value) {
  if (value == 0) return;
  auto it = find_metric(metrics, id);
  if (it != metrics.end() && it->id == id) {
    // Saturate rather than wrap: a wrapped sum could become zero, which the format forbids, and a
    // pegged counter is a more honest answer than a small one.
    uint64_t room = std::numeric_limits<uint64_t>::max() - it->value;
    it->value += std::min(value, room);
    return;
  }
  metrics.insert(it, Metric{id, value});
}

const std::string* Profile::find_meta(const std::string& key) const {
  for (const auto& [k, v] : meta) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool is_script_module(const Module& module) { return module.path == kScriptModulePath; }

uint32_t Profile::script_module() const {
  for (size_t i = 0; i < modules.size(); ++i)
    if (is_script_module(modules[i])) return static_cast<uint32_t>(i);
  return kNoModule;
}

void Profile::set_meta(const std::string& key, std::string value) {
  for (auto& [k, v] : meta) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  meta.emplace_back(key, std::move(value));
}

}  // namespace hpcl
