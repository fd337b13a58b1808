// Decoding of the kernel's perf_mem_data_src word (PERF_SAMPLE_DATA_SRC) into the one memory
// level and the flags our metrics count. Both PEBS (the kernel translates Intel's data-source
// codes) and IBS (the kernel or ibs_decode.h translates AMD's) end in this form, so the analyzer
// sees one vocabulary whatever the source. Pure functions on integers: signal- and drain-safe.
#pragma once

#include <cstdint>

#include "hpcl/ids.h"

namespace hpcrun {

// Where the data of one sampled access came from: the format's levels (hpcl/profile.h), so
// that a level is its metric id kMetricDataSrcBase + level. NotAvailable covers non-memory ops
// and accesses whose source the hardware did not say (a miss at some level with no hit named).
using MemLevel = hpcl::MemLevel;

// Short stable names ("l1", "lfb", "l2", "l3", "local_dram", ...): the metric names.
inline const char* mem_level_name(MemLevel level) {
  return hpcl::metric_name(uint16_t(hpcl::kMetricDataSrcBase + uint16_t(level)));
}

enum class MemOp : uint8_t { NotAvailable = 0, Load, Store, Prefetch, Exec };
enum class TlbState : uint8_t { NotAvailable = 0, Hit, Miss };

struct MemSource {
  MemLevel level = MemLevel::NotAvailable;
  MemOp op = MemOp::NotAvailable;
  TlbState tlb = TlbState::NotAvailable;
  uint8_t hops = 0;      // PERF_MEM_HOPS_*: 0 none said, 1 other core same node, 2 other node,
                         // 3 other socket, 4 other board
  bool remote = false;   // the kernel's mem_remote: another node, or with hops 0 another core
                         // complex of this node (AMD's peer cache in a near CCX); no metric reads
                         // it, the level (remote_cache, remote_dram) says where
  bool hitm = false;     // a snoop found the line modified in another core's cache
  bool peer = false;     // transferred from a peer cache (snoopx PEER)
  bool locked = false;   // a locked (atomic) instruction
};

// Decodes a perf_mem_data_src value as the kernel encodes it. mem_lvl_num (with mem_remote and
// mem_hops) is preferred when set; older kernels fill only the mem_lvl bit set.
MemSource decode_data_src(uint64_t data_src);

}  // namespace hpcrun
