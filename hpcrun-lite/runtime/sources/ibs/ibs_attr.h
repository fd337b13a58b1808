// Attributes of the AMD IBS op source (`ibs-op[@PERIOD]`). IBS is not a libpfm4 event: it is its
// own PMU, `ibs_op`, whose perf type the kernel publishes in sysfs. The sampled op's registers
// come back whole in PERF_SAMPLE_RAW (decoded by ibs_decode.h). Start-up code.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace hpcrun {

struct IbsRequest {
  uint64_t period = 0;     // ops (or cycles) between samples; 0: kDefaultIbsPeriod
  bool count_ops = true;   // cnt_ctl: count dispatched ops rather than cycles, so every op
                           // (and so every memory access) has the same chance to be tagged
};

// IbsOpMaxCnt counts in units of 16: bits 0-15 of the config hold period/16, and with the
// extended count (Zen 2 and later) bits 20-26 of the config hold period bits 20-26 unshifted.
constexpr uint64_t kDefaultIbsPeriod = 0x10000;
constexpr uint64_t kMinIbsPeriod = 0x10;
constexpr uint64_t kMaxIbsPeriod = (0x7full << 20) | (0xffffull << 4);
constexpr uint64_t kIbsCntCtl = 1ull << 19;

// The config bits of a period (rounded down to a multiple of 16), as the kernel's ibs_op
// driver reads them back into a sample period.
uint64_t ibs_op_period_config(uint64_t period);

// Fills `attr` or writes why not into `err` and returns false. Reads
// <sysfs_root>/ibs_op/type and, for count_ops, <sysfs_root>/ibs_op/format/cnt_ctl.
bool ibs_op_attr(const IbsRequest& req, const char* sysfs_root, perf_event_attr* attr, char* err,
                 size_t errlen);

}  // namespace hpcrun
