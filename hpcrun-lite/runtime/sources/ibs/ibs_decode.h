// Decoding of an IBS op sample's raw registers, as the kernel's ibs_op driver puts them in
// PERF_SAMPLE_RAW: a u32 of IBS capabilities (CPUID 8000_001B EAX), then the MSRs IbsOpCtl,
// IbsOpRip, IbsOpData, IbsOpData2, IbsOpData3, IbsDcLinAd, IbsDcPhysAd, then IbsBrTarget when
// the capabilities have it and IbsOpData4 when they have that. Field layouts from AMD's PPRs
// (families 10h to 19h). Pure functions: signal- and drain-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sources/hw/data_src.h"

namespace hpcrun {

// Capability bits of the raw record's first word (the kernel's IBS_CAPS_*).
constexpr uint32_t kIbsCapsBrnTrgt = 1u << 5;
constexpr uint32_t kIbsCapsOpCntExt = 1u << 6;
constexpr uint32_t kIbsCapsOpData4 = 1u << 10;
constexpr uint32_t kIbsCapsZen4 = 1u << 11;

struct IbsOpRegs {
  uint32_t caps = 0;
  uint64_t op_ctl = 0, op_rip = 0, op_data = 0, op_data2 = 0, op_data3 = 0;
  uint64_t dc_lin_addr = 0, dc_phys_addr = 0;
  uint64_t br_target = 0, op_data4 = 0;  // only when caps say so
};

struct IbsOp {
  bool valid = false;          // IbsOpCtl.IbsOpVal: the registers hold a tagged op
  bool rip_valid = false;      // not IbsOpData.IbsRipInvalid
  uint64_t rip = 0;
  bool load = false, store = false;
  bool dc_miss = false;        // the data cache missed
  bool l2_miss = false;
  bool lin_addr_valid = false, phys_addr_valid = false;
  uint64_t lin_addr = 0, phys_addr = 0;
  uint16_t dc_miss_latency = 0;  // cycles from the miss to the fill (DcMissLat)
  uint16_t tag_to_retire = 0;    // cycles from tagging to retirement (IbsTagToRetCtr)
  bool l1_tlb_miss = false, l2_tlb_miss = false;
  bool locked = false, uncached = false, write_combining = false;
  bool no_mab_alloc = false, sw_prefetch = false;
  uint8_t data_src = 0;        // IbsOpData2 DataSrc, with bits 6-7 as bits 3-4 on Zen 4
  bool remote_node = false;    // IbsOpData2.RmtNode
  bool cache_hit_owned = false;  // IbsOpData2.CacheHitSt: 1 = O state, 0 = M state
  MemSource source;            // the above in the vocabulary every source shares
};

enum class IbsParse : uint8_t { Ok = 0, Truncated };

// Reads the registers from a RAW payload of `size` bytes.
IbsParse read_ibs_op_regs(const uint8_t* raw, uint32_t size, IbsOpRegs* out);

// Decodes the registers. `family` and `model` are the CPU's (erratum 1293 of family 19h models
// 0-0Fh reports L2 hits for software prefetches and no-MAB misses that are not).
IbsOp decode_ibs_op(const IbsOpRegs& r, uint32_t family, uint32_t model);

}  // namespace hpcrun
