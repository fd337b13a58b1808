// See fault_record.h.
#include "sources/page_faults/fault_record.h"

#include <cstring>

namespace hpcrun {

perf_event_attr page_fault_attr(uint64_t period, uint32_t wakeup_bytes) {
  perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_PAGE_FAULTS;
  a.sample_period = period ? period : 1;
  a.sample_type = kFaultSampleType;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.watermark = 1;
  a.wakeup_watermark = wakeup_bytes;
  return a;
}

static uint64_t u64_at(const uint8_t* p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

bool parse_fault_record(const uint8_t* body, size_t size, FaultRecord* out) {
  if (size < kFaultRecordBody) return false;
  out->ip = u64_at(body);
  uint64_t pid_tid = u64_at(body + 8);  // u32 pid, u32 tid
  out->pid = uint32_t(pid_tid);
  out->tid = uint32_t(pid_tid >> 32);
  out->time = u64_at(body + 16);
  out->addr = u64_at(body + 24);
  out->cpu = uint32_t(u64_at(body + 32));  // u32 cpu, u32 reserved
  return true;
}

}  // namespace hpcrun
