// The AMD IBS op source's period (`ibs-op[@PERIOD]`). IBS is not a libpfm4 event: it is its own
// PMU, `ibs_op`, whose type and config fields the kernel publishes in sysfs; event_plan.h builds
// the attributes from them. The sampled op's registers come back whole in PERF_SAMPLE_RAW
// (ibs_decode.h), and since Linux 6.1 also decoded by the kernel (hw_sample.h).
#pragma once

#include <cstdint>

namespace hpcrun {

// Ops (with cnt_ctl; cycles without) between two samples. IbsOpMaxCnt counts in units of 16:
// the driver rounds sample_period down to a multiple of 16; with the extended count (Zen 2 and
// later, IBS_CAPS_OPCNTEXT) it has 27 bits, 0x7fffff0 at most.
constexpr uint64_t kDefaultIbsPeriod = 0x10000;
constexpr uint64_t kMinIbsPeriod = 0x10;
constexpr uint64_t kMaxIbsPeriod = 0x7fffff0;

}  // namespace hpcrun
