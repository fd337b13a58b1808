// The run-time probe that decides which sampling source `auto` means on this machine.
// Precise hardware sources (Intel PEBS with load latency, AMD IBS op sampling) are recognised
// from sysfs; until their readers exist in this runtime, `auto` resolves to the software
// address sampler and says why with -v.
#pragma once

#include <cstddef>

#include "options.h"

namespace hpcrun {

struct HardwareProbe {
  bool cpu_pmu = false;   // /sys/bus/event_source/devices/cpu exists
  bool pebs = false;      // Intel PMU with precise sampling (caps/pmu_name present, x86 intel)
  bool ibs_op = false;    // /sys/bus/event_source/devices/ibs_op exists
};

// Reads sysfs under `root` ("/sys/bus/event_source/devices" normally; tests pass a fake tree).
HardwareProbe probe_hardware(const char* root);

// The source to use for a request, with a human-readable reason.
SourceKind choose_source(SourceKind requested, const HardwareProbe& hw, char* why, size_t whylen);

}  // namespace hpcrun
