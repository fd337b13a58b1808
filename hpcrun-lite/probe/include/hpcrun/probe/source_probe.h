// The run-time probe: what a machine offers for sampling, read from a root directory ("/"
// normally; --check --root DIR and the tests pass a copy of another machine's files). It reads
// the perf PMUs under sys/bus/event_source/devices, and the events each hardware source would
// open there (event_plan.h), the kernel's perf limits under proc/sys/kernel, the CPU from
// proc/cpuinfo and the process's capabilities from proc/self/status; a file a copy lacks stays
// unknown. probe_opens() then tries a perf_event_open of each source on this machine through
// perf_open() (mockable): the hardware sources' plans as the runtime opens them. Reading
// allocates nothing (raw open/read/getdents64), so the runtime can call it at start-up;
// source_verdict.h turns the result into "works / why not / the fix".
#pragma once

#include <cstddef>
#include <cstdint>

#include <linux/perf_event.h>

#include "options.h"
#include "hpcrun/probe/event_plan.h"

namespace hpcrun {

enum class CpuVendor : uint8_t { Unknown, Intel, Amd, Arm };

// The sources the probe tries to open, in the order --check prints them.
enum ProbedSource : uint8_t { kProbeSoft, kProbePageFaults, kProbePebsLoad, kProbePebsStore,
                              kProbeIbsOp, kProbeArmSpe, kNumProbed };

struct OpenResult {
  bool tried = false;   // false: its PMU is absent, or probe_opens() was not called
  int err = 0;          // 0: it opened; else the errno of the last attempt
  int precise_ip = -1;  // the highest precise_ip that opened (PEBS), -1 otherwise
  int failed_event = -1;  // a plan's event the kernel refused (index in HardwareProbe::plan)
};

inline constexpr int kUnknownValue = -1000;
// PMUs listed (a server has a hundred uncore ones; those the sources use are read by name).
inline constexpr int kMaxPmus = 128;

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
  int npmus = 0;
  char pmus[kMaxPmus][32] = {};    // every PMU directory (up to kMaxPmus), for --check

  bool cpu_pmu = false;            // a core PMU (cpu or cpu_core) exists
  bool pebs = false;               // a core PMU publishes events/mem-loads (the pebs-load plan)
  bool ibs_op = false;             // ibs_op exists

  // The events each hardware source would open (pebs-load, pebs-store, ibs-op; empty for the
  // others), with the reason where it cannot; after probe_opens(), as this kernel took them.
  EventPlan plan[kNumProbed];
  bool is_this_machine = true;     // root "/": opens can be tried, libpfm4 asked

  OpenResult open[kNumProbed];
  bool opens_tried = false;
  bool hybrid() const { return cpu_core_type >= 0; }
};

// Reads everything under `root` ("/" normally). Never fails: what it cannot read stays unknown.
HardwareProbe probe_hardware(const char* root);

// Tries perf_event_open of every source whose PMU exists, on this thread, closing each at once:
// the hardware sources' plans (probe_plan), lowered to what the kernel takes. `allow_libpfm`: a
// core PMU whose sysfs is silent is asked of libpfm4 (the caller has set pfm_api()).
void probe_opens(HardwareProbe* hw, bool allow_libpfm = false);

// The one event the probe opens for soft, page-faults and arm-spe (exposed for tests and
// --check --json); false for the sources with a plan (HardwareProbe::plan), which opens theirs.
bool probe_attr(const HardwareProbe& hw, ProbedSource s, perf_event_attr* out);

}  // namespace hpcrun
