// See ibs_attr.h.
#include "sources/ibs/ibs_attr.h"

#include <cstdio>
#include <cstring>

#include "sources/hw/pmu_type.h"

namespace hpcrun {

uint64_t ibs_op_period_config(uint64_t period) {
  return ((period >> 4) & 0xffff) | (period & (0x7full << 20));
}

bool ibs_op_attr(const IbsRequest& req, const char* root, perf_event_attr* a, char* err,
                 size_t errlen) {
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  const uint64_t period = req.period ? req.period : kDefaultIbsPeriod;
  if (period < kMinIbsPeriod || period > kMaxIbsPeriod) {
    snprintf(err, errlen, "ibs-op period %llu is outside %llu..%llu",
             (unsigned long long)period, (unsigned long long)kMinIbsPeriod,
             (unsigned long long)kMaxIbsPeriod);
    return false;
  }
  int rc = read_pmu_type(root, "ibs_op", &a->type);
  if (rc != 0) {
    snprintf(err, errlen, "no AMD IBS op PMU (%s/ibs_op/type: %s)", root, strerror(-rc));
    return false;
  }
  // The period goes in the config, not in sample_period: the driver then takes it as the
  // hardware's own max count. A kernel without the cnt_ctl format field counts cycles only.
  a->config = ibs_op_period_config(period);
  if (req.count_ops && pmu_has(root, "ibs_op", "format/cnt_ctl")) a->config |= kIbsCntCtl;
  // The registers come whole in RAW; the kernel's own translation (ADDR, DATA_SRC, WEIGHT for
  // IBS, Linux 6.1+) is not asked for, so older kernels accept the event too.
  a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                   PERF_SAMPLE_RAW;
  // No exclude_* bits: before Linux 6.13 the ibs_op PMU refuses them (it cannot filter by
  // privilege level), so kernel-mode samples are dropped when decoded instead. This needs
  // perf_event_paranoid <= 1 or CAP_PERFMON, which --check reports.
  a->disabled = 1;
  return true;
}

}  // namespace hpcrun
