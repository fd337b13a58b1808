// Decoding of an IBS op sample's raw registers, as the kernel's ibs_op driver puts them in
// PERF_SAMPLE_RAW: a u32 of IBS capabilities (CPUID 8000_001B EAX), then the MSRs IbsOpCtl,
// IbsOpRip, IbsOpData, IbsOpData2, IbsOpData3, IbsDcLinAd, IbsDcPhysAd, then IbsBrTarget when
// the capabilities have it and IbsOpData4 when they have that (arch/x86/events/amd/ibs.c).
//
// Since Linux 6.1 the kernel decodes the registers itself into the perf sample's ADDR, WEIGHT
// and DATA_SRC (perf_ibs_parse_ld_st_data), which hw_sample.h then reads as it reads PEBS.
// This decoder is for older kernels: it turns the registers into the same three values, by
// the kernel's rules (its table of DataSrc encodings, errata 1293 and the CacheHitSt validity
// by model, the remote-node bit where it applies), so that both paths end in the one
// perf_mem_data_src decoder (data_src.h) and a profile reads the same on every kernel. Register
// fields: AMD's PPR for family 19h (the kernel's asm/amd-ibs.h). Pure functions: signal- and
// drain-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include <linux/perf_event.h>

namespace hpcrun {

// Capability bits of the raw record's first word (the kernel's IBS_CAPS_*).
constexpr uint32_t kIbsCapsBrnTrgt = 1u << 5;
constexpr uint32_t kIbsCapsOpCntExt = 1u << 6;
constexpr uint32_t kIbsCapsOpData4 = 1u << 10;
constexpr uint32_t kIbsCapsZen4 = 1u << 11;

// The kernel's PERF_MEM_NA (include/linux/perf_event.h, not in the uapi header): every field
// "not available".
constexpr uint64_t kPerfMemNa =
    (uint64_t(PERF_MEM_OP_NA) << PERF_MEM_OP_SHIFT) | (uint64_t(PERF_MEM_LVL_NA) << PERF_MEM_LVL_SHIFT) |
    (uint64_t(PERF_MEM_SNOOP_NA) << PERF_MEM_SNOOP_SHIFT) | (uint64_t(PERF_MEM_LOCK_NA) << PERF_MEM_LOCK_SHIFT) |
    (uint64_t(PERF_MEM_TLB_NA) << PERF_MEM_TLB_SHIFT);

struct IbsOpRegs {
  uint32_t caps = 0;
  uint64_t op_ctl = 0, op_rip = 0, op_data = 0, op_data2 = 0, op_data3 = 0;
  uint64_t dc_lin_addr = 0, dc_phys_addr = 0;
  uint64_t br_target = 0, op_data4 = 0;  // only when caps say so
};

// One op as the kernel reports it: its perf_mem_data_src word, the access latency the WEIGHT
// field carries (the data-cache miss latency of a load that missed, else 0), its addresses.
struct IbsOp {
  bool valid = false;          // IbsOpCtl.IbsOpVal: the registers hold a tagged op
  bool rip_valid = false;      // not IbsOpData.IbsRipInvalid
  uint64_t rip = 0;
  bool addr_valid = false, phys_valid = false;
  uint64_t addr = 0, phys = 0;
  uint64_t data_src = 0;       // kPerfMemNa unless a load or store
  uint32_t latency = 0;
  bool dc_miss = false;        // IbsOpData3.DcMiss
};

enum class IbsParse : uint8_t { Ok = 0, Truncated };

// Reads the registers from a RAW payload of `size` bytes.
IbsParse read_ibs_op_regs(const uint8_t* raw, uint32_t size, IbsOpRegs* out);

// Decodes the registers. `family` and `model` are the CPU's (erratum 1293 of family 19h models
// 0-0Fh; CacheHitSt is not valid on family 19h models 0-0Fh and 20h-5Fh).
IbsOp decode_ibs_op(const IbsOpRegs& r, uint32_t family, uint32_t model);

}  // namespace hpcrun
