// The perf type number of a dynamic PMU (ibs_op, cpu_core, cpu_atom, arm_spe_0, ...), which the
// kernel assigns at boot and publishes in sysfs. `root` is normally
// "/sys/bus/event_source/devices"; tests pass a fake tree. Start-up code.
#pragma once

#include <cstdint>

namespace hpcrun {

// Reads <root>/<pmu>/type. Returns 0, or -errno (-ENOENT: no such PMU, -EINVAL: not a number).
int read_pmu_type(const char* root, const char* pmu, uint32_t* type);

// True when <root>/<pmu>/<rel> exists (a format field such as "format/cnt_ctl").
bool pmu_has(const char* root, const char* pmu, const char* rel);

}  // namespace hpcrun
