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
  IbsOpRegs regs;
  const bool have_regs = (s.sample_type & PERF_SAMPLE_RAW) &&
                         read_ibs_op_regs(s.raw, s.raw_size, &regs) == IbsParse::Ok;
  // A kernel that decodes IBS (Linux 6.1) names every load and store in DATA_SRC; an older one
  // leaves it "not available", and the registers are decoded here by the same rules.
  const MemSource kernel = (s.sample_type & PERF_SAMPLE_DATA_SRC) ? decode_data_src(s.data_src) : MemSource{};
  if (kernel.op == MemOp::Load || kernel.op == MemOp::Store) {
    hw_sample_from_pebs(s, h);  // the kernel set IP to the op's own address where it was valid
    h->dc_miss = have_regs ? (regs.op_data3 >> 7 & 1) != 0
                           : kernel.level != MemLevel::L1 && kernel.level != MemLevel::NotAvailable;
    return kernel_address(h->ip) ? HwSampleResult::KernelMode : HwSampleResult::Ok;
  }
  *h = HwSample{};
  copy_common(s, h);
  if (!have_regs) return HwSampleResult::NotValid;
  IbsOp op = decode_ibs_op(regs, family, model);
  if (!op.valid) return HwSampleResult::NotValid;
  // The tagged op's own address, not the (possibly later) interrupted one.
  if (op.rip_valid) h->ip = op.rip;
  if (kernel_address(h->ip)) return HwSampleResult::KernelMode;
  h->addr = op.addr;
  h->addr_valid = op.addr_valid;
  if (op.phys_valid) h->phys_addr = op.phys;
  h->latency = op.latency;
  h->dc_miss = op.dc_miss;
  h->source = decode_data_src(op.data_src);
  return HwSampleResult::Ok;
}

}  // namespace hpcrun
