// See hw_sample.h.
#include "sources/hw/hw_sample.h"

#include <linux/perf_event.h>

#include "sources/ibs/ibs_decode.h"

namespace hpcrun {

namespace {

void copy_common(const PerfSample& s, HwSample* h) {
  h->ip = s.ip;
  h->time = s.time;
  h->pid = s.pid;
  h->tid = s.tid;
  h->cpu = s.cpu;
  h->phys_addr = s.phys_addr;
}

// x86-64 user space is the lower half of the address space.
bool kernel_address(uint64_t ip) { return (ip >> 63) != 0; }

}  // namespace

HwSampleResult hw_sample_from_pebs(const PerfSample& s, HwSample* h) {
  *h = HwSample{};
  copy_common(s, h);
  // A store sample or a load the hardware could not attribute has address 0.
  h->addr = s.addr;
  h->addr_valid = (s.sample_type & PERF_SAMPLE_ADDR) && s.addr != 0;
  // With WEIGHT_STRUCT the access latency is var1; the u64 WEIGHT of older kernels holds it
  // whole.
  if (s.sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
    h->latency = s.weight_var1;
  else if (s.sample_type & PERF_SAMPLE_WEIGHT)
    h->latency = s.weight > UINT32_MAX ? UINT32_MAX : uint32_t(s.weight);
  if (s.sample_type & PERF_SAMPLE_DATA_SRC) h->source = decode_data_src(s.data_src);
  return HwSampleResult::Ok;
}

HwSampleResult hw_sample_from_ibs(const PerfSample& s, uint32_t family, uint32_t model,
                                  HwSample* h) {
  *h = HwSample{};
  copy_common(s, h);
  IbsOpRegs regs;
  if (!(s.sample_type & PERF_SAMPLE_RAW) ||
      read_ibs_op_regs(s.raw, s.raw_size, &regs) != IbsParse::Ok)
    return HwSampleResult::NotValid;
  IbsOp op = decode_ibs_op(regs, family, model);
  if (!op.valid) return HwSampleResult::NotValid;
  // The tagged op's own address, not the (possibly later) interrupted one.
  if (op.rip_valid) h->ip = op.rip;
  if (kernel_address(h->ip)) return HwSampleResult::KernelMode;
  h->addr = op.lin_addr;
  h->addr_valid = op.lin_addr_valid;
  if (op.phys_addr_valid) h->phys_addr = op.phys_addr;
  h->latency = op.dc_miss_latency;
  h->dc_miss = op.dc_miss;
  h->source = op.source;
  return HwSampleResult::Ok;
}

}  // namespace hpcrun
