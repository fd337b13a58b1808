// Memory metrics of one calling-context node (latency, data source, TLB, lock, HITM, DC miss,
// NUMA placement) and the side table that holds them for the nodes that have any.
//
// Soft-only runs without NUMA never fill these, so RtNode does not carry them (23 counters would
// quadruple its 56 bytes); a node that gets one refers to its slot by a 24-bit index in what was
// RtNode's padding. The table grows in mmap'd chunks, like the tree: async-signal-safe, no
// malloc, one writer (the owning thread's handler, or the thread with that handler blocked).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/populate.h"
#include "hpcl/ids.h"

namespace hpcrun {

inline constexpr int kMemLevels = int(hpcl::MemLevel::Count);
inline constexpr int kMaxCounters = 4;  // PAPI events at once (options.h kMaxSources)
inline constexpr int kMaxTouchNodes =
    hpcl::kMetricFirstTouchNodeEnd - hpcl::kMetricFirstTouchNodeBase;  // 16

struct MemCounts {
  uint64_t latency = 0;          // sum of cycles (kMetricLatency)
  uint64_t latency_samples = 0;  // samples that carried a latency
  uint64_t level[kMemLevels] = {};
  uint64_t tlb_hit = 0, tlb_miss = 0;
  uint64_t locked = 0, hitm = 0, dc_miss = 0;
  uint64_t numa_local = 0, numa_remote = 0;
  // PAPI events counted at this node (kMetricCounterBase + k, papi_source.h): code-centric
  // counters share the side table, since most nodes have none.
  uint64_t counters[kMaxCounters] = {};
  // First touches (page faults) taken by a CPU of NUMA node k (kMetricFirstTouchNodeBase + k,
  // touch_node.h): only the faulting instructions' nodes get them.
  uint64_t touch_node[kMaxTouchNodes] = {};
};

// The format's (metric id, value) pairs of `m`, zeros left out, into `out` (room for
// kMaxMemMetrics). Returns how many.
inline constexpr int kMaxMemMetrics = 9 + kMemLevels + kMaxCounters + kMaxTouchNodes;
int mem_counts_metrics(const MemCounts& m, hpcl::Metric* out);

class MemTable {
 public:
  static constexpr uint32_t kChunkBits = 10;     // 1024 slots (328 KiB) per chunk
  static constexpr uint32_t kMaxChunks = 4096;   // 4M slots, as many as a tree's nodes
  static constexpr uint32_t kNone = 0;           // slot numbers start at 1

  // Empties the table. Its chunk pointers are already null: the table's memory was zeroed (as
  // raw_mmap gives it; a thread's state is never constructed) or release() cleared them. Writing
  // all 4096 of them was 8 page faults of every thread's start.
  void init();
  // A new zeroed slot's number (>= 1), or kNone when memory is exhausted.
  uint32_t add();
  MemCounts* at(uint32_t slot) {
    uint32_t i = slot - 1;
    return &chunks_[i >> kChunkBits][i & ((1u << kChunkBits) - 1)];
  }
  const MemCounts* at(uint32_t slot) const {
    uint32_t i = slot - 1;
    return &chunks_[i >> kChunkBits][i & ((1u << kChunkBits) - 1)];
  }
  uint32_t size() const { return count_; }
  size_t footprint() const;
  void release();  // unmaps every chunk (fork child)

 private:
  MemCounts* chunks_[kMaxChunks] = {};  // mapped in order from 0: the first null ends them
  uint32_t count_ = 0;
  PopulatedFront front_;
};

}  // namespace hpcrun
