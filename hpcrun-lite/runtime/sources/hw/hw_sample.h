// What every hardware memory source hands to the rest of the runtime: one sampled access with
// its instruction, data address, latency and memory level, whatever the PMU. A PEBS record gets
// here through its perf fields (ADDR, WEIGHT, DATA_SRC); an IBS record through the same fields
// where the kernel decoded its registers (Linux 6.1 and later), else through its raw registers
// decoded by the kernel's rules (ibs_decode.h); both end in decode_data_src. From here on every
// sample goes through the same classify() as the software sampler.
// Pure functions: signal- and drain-safe.
#pragma once

#include <cstdint>

#include "sources/hw/data_src.h"
#include "sources/hw/sample_record.h"

namespace hpcrun {

struct HwSample {
  uint64_t ip = 0;
  uint64_t addr = 0;        // data (linear) address; valid only with addr_valid
  uint64_t phys_addr = 0;   // 0 when not sampled or not allowed
  uint64_t time = 0;
  uint32_t pid = 0, tid = 0, cpu = 0;
  uint32_t latency = 0;     // cycles: PEBS load latency, IBS data-cache miss latency; 0 unknown
  bool addr_valid = false;
  bool dc_miss = false;     // IBS: the op missed the L1 data cache
  MemSource source;
};

enum class HwSampleResult : uint8_t {
  Ok = 0,
  NotValid,    // the hardware tagged nothing usable (IBS op not valid, no RAW registers)
  KernelMode,  // an op in the kernel (IBS cannot exclude them before Linux 6.13)
};

// From a PEBS sample parsed with the attr's sample_type.
HwSampleResult hw_sample_from_pebs(const PerfSample& s, HwSample* out);

// From an IBS op sample: the kernel's decoding when the record carries it, else RAW's
// registers. family/model: the CPU's, for decode_ibs_op.
HwSampleResult hw_sample_from_ibs(const PerfSample& s, uint32_t family, uint32_t model,
                                  HwSample* out);

}  // namespace hpcrun
