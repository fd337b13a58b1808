// The run-time probe: what this machine offers for sampling, read from a root directory ("/"
// normally; tests pass fake sysfs/procfs trees). It reads the perf PMUs under
// sys/bus/event_source/devices, the kernel's perf limits under proc/sys/kernel, the CPU from
// proc/cpuinfo and the process's capabilities from proc/self/status; probe_opens() then tries a
// perf_event_open of each source through perf_open() (mockable), precise_ip from 3 down.
// Reading allocates nothing (raw open/read/getdents64), so the runtime can call it at start-up;
// source_verdict.h turns the result into "works / why not / the fix".
#pragma once

#include <cstddef>
#include <cstdint>

#include <linux/perf_event.h>

#include "options.h"

namespace hpcrun {

enum class CpuVendor : uint8_t { Unknown, Intel, Amd, Arm };

// The sources the probe tries to open, in the order --check prints them.
enum ProbedSource : uint8_t { kProbeSoft, kProbePageFaults, kProbePebsLoad, kProbePebsStore,
                              kProbeIbsOp, kProbeArmSpe, kNumProbed };

struct OpenResult {
  bool tried = false;   // false: its PMU is absent, or probe_opens() was not called
  int err = 0;          // 0: it opened; else the errno of the last attempt
  int precise_ip = -1;  // the highest precise_ip that opened (PEBS), -1 otherwise
};

inline constexpr int kUnknownValue = -1000;

struct HardwareProbe {
  // Kernel and permissions.
  char kernel[64] = {};            // proc/sys/kernel/osrelease
  int paranoid = kUnknownValue;    // proc/sys/kernel/perf_event_paranoid
  long mlock_kb = kUnknownValue;   // proc/sys/kernel/perf_event_mlock_kb
  bool caps_known = false;
  uint64_t cap_eff = 0;            // CapEff of proc/self/status
  bool cap_perfmon() const { return caps_known && (cap_eff >> 38 & 1); }
  bool cap_sys_admin() const { return caps_known && (cap_eff >> 21 & 1); }
  bool cap_ipc_lock() const { return caps_known && (cap_eff >> 14 & 1); }

  // The CPU (first processor of proc/cpuinfo).
  CpuVendor vendor = CpuVendor::Unknown;
  int family = -1, model = -1;     // x86 "cpu family"/"model"; Arm: implementer/part
  char model_name[64] = {};
  bool hypervisor = false;         // x86 "hypervisor" flag: running in a VM

  // PMUs: their perf type from <pmu>/type, -1 when absent.
  int cpu_type = -1;               // "cpu": Intel or AMD core PMU
  int cpu_core_type = -1, cpu_atom_type = -1;  // hybrid Intel (Alder Lake and later)
  int ibs_op_type = -1, ibs_fetch_type = -1;   // AMD IBS
  int spe_type = -1;               // arm_spe_N
  char spe_pmu[32] = {};           // its directory name
  char arm_pmu[32] = {};           // an Arm core PMU (armv8_*/armv9_*), "" if none
  char pmu_name[32] = {};          // caps/pmu_name of the Intel core PMU ("skylake", ...)
  int max_precise = -1;            // caps/max_precise of the core PMU, when the kernel says
  bool ldlat = false;              // the core PMU has the load-latency "ldlat" format field
  int npmus = 0;
  char pmus[16][32] = {};          // every PMU directory, for --check

  // Kept for the callers of the first probe.
  bool cpu_pmu = false;            // a core PMU (cpu or cpu_core) exists
  bool pebs = false;               // Intel core PMU with load latency
  bool ibs_op = false;             // ibs_op exists

  OpenResult open[kNumProbed];
  bool opens_tried = false;
  bool hybrid() const { return cpu_core_type >= 0; }
};

// Reads everything under `root` ("/" normally). Never fails: what it cannot read stays unknown.
HardwareProbe probe_hardware(const char* root);

// Tries perf_event_open of every source whose PMU exists, on this thread, closing each at once.
void probe_opens(HardwareProbe* hw);

// The attribute the probe opens for a source (exposed for tests; the hardware sources build
// their own per CPU model).
bool probe_attr(const HardwareProbe& hw, ProbedSource s, int precise_ip, perf_event_attr* out);

}  // namespace hpcrun
