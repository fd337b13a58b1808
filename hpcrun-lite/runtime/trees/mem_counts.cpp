// See mem_counts.h.
#include "trees/mem_counts.h"

#include "base/raw_sys.h"

namespace hpcrun {

int mem_counts_metrics(const MemCounts& m, hpcl::Metric* out) {
  int n = 0;
  auto put = [&](uint16_t id, uint64_t v) {
    if (v) out[n++] = hpcl::Metric{id, v};
  };
  put(hpcl::kMetricLatency, m.latency);
  put(hpcl::kMetricLatencySamples, m.latency_samples);
  put(hpcl::kMetricNumaLocal, m.numa_local);
  put(hpcl::kMetricNumaRemote, m.numa_remote);
  for (int l = 0; l < kMemLevels; ++l) put(uint16_t(hpcl::kMetricDataSrcBase + l), m.level[l]);
  put(hpcl::kMetricTlbHit, m.tlb_hit);
  put(hpcl::kMetricTlbMiss, m.tlb_miss);
  put(hpcl::kMetricLocked, m.locked);
  put(hpcl::kMetricHitm, m.hitm);
  put(hpcl::kMetricDcMiss, m.dc_miss);
  for (int k = 0; k < kMaxCounters; ++k) put(uint16_t(hpcl::kMetricCounterBase + k), m.counters[k]);
  for (int k = 0; k < kMaxTouchNodes; ++k)
    put(uint16_t(hpcl::kMetricFirstTouchNodeBase + k), m.touch_node[k]);
  return n;
}

void MemTable::init() { count_ = 0; }

uint32_t MemTable::add() {
  uint32_t i = count_;
  uint32_t c = i >> kChunkBits;
  if (c >= kMaxChunks) return kNone;
  if (!chunks_[c]) {
    // raw_mmap gives zeroed pages: every slot of a new chunk starts at zero.
    chunks_[c] = static_cast<MemCounts*>(raw_mmap(sizeof(MemCounts) << kChunkBits));
    if (!chunks_[c]) return kNone;
  }
  front_.reach(chunks_[c], at(i + 1) + 1, sizeof(MemCounts) << kChunkBits);
  count_ = i + 1;
  return i + 1;
}

size_t MemTable::footprint() const {
  size_t chunks = 0;
  for (uint32_t c = 0; c < kMaxChunks; ++c)
    if (chunks_[c]) ++chunks;
  return chunks * (sizeof(MemCounts) << kChunkBits);
}

void MemTable::release() {
  for (uint32_t c = 0; c < kMaxChunks && chunks_[c]; ++c) {
    raw_munmap(chunks_[c], sizeof(MemCounts) << kChunkBits);
    chunks_[c] = nullptr;
  }
  front_ = PopulatedFront{};  // a new chunk may be mapped where an old one was
  init();
}

}  // namespace hpcrun
