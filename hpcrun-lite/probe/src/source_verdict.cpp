// See source_verdict.h.
#include "hpcrun/probe/source_verdict.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hpcrun {

namespace {

constexpr const char* kParanoidFix =
    "sudo sysctl -w kernel.perf_event_paranoid=1 (or run with CAP_PERFMON, Linux >= 5.8, or "
    "CAP_SYS_ADMIN)";
constexpr const char* kVmFix = "a VM without vPMU: use -e soft (or enable the hypervisor's virtual PMU)";

bool planned(ProbedSource s) {
  return s == kProbePebsLoad || s == kProbePebsStore || s == kProbeIbsOp;
}

bool pmu_present(const HardwareProbe& hw, ProbedSource s) {
  switch (s) {
    case kProbeSoft: case kProbePageFaults: return true;
    case kProbePebsLoad: case kProbePebsStore: case kProbeIbsOp: return hw.plan[s].n > 0;
    case kProbeArmSpe: return hw.spe_type >= 0;
    case kNumProbed: break;
  }
  return false;
}

// Why the PMU a source needs is absent, and the fix.
void explain_absent(const HardwareProbe& hw, ProbedSource s, SourceVerdict* v) {
  const char* what = planned(s) ? hw.plan[s].reason : "no arm_spe PMU (Arm SPE)";
  bool want_intel = s == kProbePebsLoad || s == kProbePebsStore;
  CpuVendor want = want_intel ? CpuVendor::Intel : s == kProbeIbsOp ? CpuVendor::Amd : CpuVendor::Arm;
  const char* vendor = hw.vendor == CpuVendor::Intel ? "Intel" : hw.vendor == CpuVendor::Amd ? "AMD"
                     : hw.vendor == CpuVendor::Arm ? "Arm" : "unknown";
  bool no_core_pmu = !hw.cpu_pmu && !hw.arm_pmu[0];
  if (hw.hypervisor && no_core_pmu) {
    snprintf(v->reason, sizeof v->reason, "this is a VM without a virtual PMU (no hardware "
             "counters at all)");
    snprintf(v->fix, sizeof v->fix, "%s", kVmFix);
  } else if (hw.vendor != CpuVendor::Unknown && hw.vendor != want) {
    snprintf(v->reason, sizeof v->reason, "it needs an %s CPU, this one is %s",
             want_intel ? "Intel" : want == CpuVendor::Amd ? "AMD" : "Arm", vendor);
    snprintf(v->fix, sizeof v->fix, "use %s", hw.vendor == CpuVendor::Amd ? "-e ibs-op (or -e soft)"
             : hw.vendor == CpuVendor::Intel ? "-e pebs-load (or -e soft)" : "-e soft");
  } else {
    snprintf(v->reason, sizeof v->reason, "%s%s", what,
             hw.hypervisor ? " (in a VM: the virtual PMU does not pass it through)" : "");
    snprintf(v->fix, sizeof v->fix, "%s",
             hw.hypervisor ? kVmFix
             : s == kProbeIbsOp ? "a kernel built with CONFIG_CPU_SUP_AMD and IBS (Family 10h or later), else -e soft"
             : s == kProbeArmSpe ? "a kernel with CONFIG_ARM_SPE_PMU and the arm_spe_pmu module loaded, else -e soft"
                                 : "use -e soft");
  }
}

// What opening an ibs_op event needs (Linux before 6.14 refuses its exclude_* bits).
bool ibs_needs_kernel_samples(const HardwareProbe& hw) {
  const EventPlan& p = hw.plan[kProbeIbsOp];
  return p.n > 0 && !p.ev[0].attr.exclude_kernel;
}

void refused(const HardwareProbe& hw, ProbedSource s, const OpenResult& r, SourceVerdict* v) {
  char which[96] = "";
  if (planned(s) && r.failed_event >= 0 && r.failed_event < hw.plan[s].n) {
    const PlannedEvent& e = hw.plan[s].ev[r.failed_event];
    snprintf(which, sizeof which, " %s config %#llx", e.pmu, (unsigned long long)e.attr.config);
  }
  if (r.err == EACCES || r.err == EPERM) {
    snprintf(v->reason, sizeof v->reason, "perf_event_open refused%s (%s) at perf_event_paranoid=%d%s%s",
             which, strerror(r.err), hw.paranoid,
             hw.cap_perfmon() || hw.cap_sys_admin() ? "" : " without CAP_PERFMON",
             s == kProbeIbsOp && ibs_needs_kernel_samples(hw)
                 ? ": IBS cannot leave out kernel samples before Linux 6.14 (no ibs_op/format/swfilt)"
                 : "");
    snprintf(v->fix, sizeof v->fix, "%s", kParanoidFix);
  } else if (r.err == ENODATA) {
    snprintf(v->reason, sizeof v->reason, "perf_event_open refused%s (%s): the kernel wants the "
             "load-latency event in a group led by mem-loads-aux, which this PMU does not list",
             which, strerror(r.err));
    snprintf(v->fix, sizeof v->fix, "send the output of hpcrun-lite --check --json to the developers");
  } else {
    snprintf(v->reason, sizeof v->reason, "perf_event_open failed%s: %s", which, strerror(r.err));
    snprintf(v->fix, sizeof v->fix, "%s", hw.hypervisor ? kVmFix
             : "see the kernel log (dmesg) for the PMU driver; use -e soft meanwhile");
  }
}

}  // namespace

const char* probed_name(ProbedSource s) {
  switch (s) {
    case kProbeSoft: return "soft";
    case kProbePageFaults: return "page-faults";
    case kProbePebsLoad: return "pebs-load";
    case kProbePebsStore: return "pebs-store";
    case kProbeIbsOp: return "ibs-op";
    case kProbeArmSpe: return "arm-spe";
    case kNumProbed: break;
  }
  return "?";
}

ProbedSource probed_for(SourceKind kind) {
  switch (kind) {
    case SourceKind::Soft: return kProbeSoft;
    case SourceKind::Pebs: return kProbePebsLoad;
    case SourceKind::PebsStore: return kProbePebsStore;
    case SourceKind::Ibs: return kProbeIbsOp;
    case SourceKind::PageFaults: return kProbePageFaults;
    default: return kNumProbed;
  }
}

// Arm SPE has no reader yet (docs/DESIGN.md says what it would take).
bool source_has_reader(ProbedSource s) { return s != kProbeArmSpe && s != kNumProbed; }

SourceVerdict source_verdict(const HardwareProbe& hw, ProbedSource s) {
  SourceVerdict v;
  if (!pmu_present(hw, s)) {
    explain_absent(hw, s, &v);
    return v;
  }
  const OpenResult& r = hw.open[s];
  if (hw.opens_tried && r.tried && r.err != 0) {
    refused(hw, s, r, &v);
    return v;
  }
  v.precise_ip = r.precise_ip;
  char level[48] = "";
  if (r.precise_ip >= 0) snprintf(level, sizeof level, ", precise_ip=%d", r.precise_ip);
  if (!source_has_reader(s)) {
    v.verdict = Verdict::NoReader;
    snprintf(v.reason, sizeof v.reason, "%s%s, but this version has no reader for its records yet",
             hw.opens_tried ? "opens here" : "present", level);
    snprintf(v.fix, sizeof v.fix, "use -e soft until its reader lands");
    return v;
  }
  v.verdict = Verdict::Works;
  snprintf(v.reason, sizeof v.reason, "%s%s", hw.opens_tried ? "opens here" : "present", level);
  // On a copy of another machine nothing is opened: say what opening will need there.
  if (!hw.opens_tried && s == kProbeIbsOp && ibs_needs_kernel_samples(hw))
    snprintf(v.fix, sizeof v.fix, "needs perf_event_paranoid <= 1 or CAP_PERFMON there (no "
             "ibs_op/format/swfilt: the kernel cannot leave out kernel samples)");
  return v;
}

ProbedSource auto_choice(const HardwareProbe& hw, char* why, size_t whylen) {
  static const ProbedSource kPrecise[] = {kProbePebsLoad, kProbeIbsOp, kProbeArmSpe};
  for (ProbedSource s : kPrecise) {
    if (source_verdict(hw, s).verdict == Verdict::Works) {
      snprintf(why, whylen, "%s: the precise hardware source that works here", probed_name(s));
      return s;
    }
  }
  const char* hwdesc = hw.pebs ? "PEBS load latency is present"
                     : hw.ibs_op ? "AMD IBS op is present"
                     : hw.spe_type >= 0 ? "Arm SPE is present"
                                        : "no PEBS, IBS or SPE on this machine";
  bool present = hw.pebs || hw.ibs_op || hw.spe_type >= 0;
  snprintf(why, whylen, "soft: %s%s", hwdesc,
           present ? ", but this version cannot use it yet" : "");
  return kProbeSoft;
}

SourceKind choose_source(SourceKind requested, const HardwareProbe& hw, char* why, size_t whylen) {
  if (requested == SourceKind::Auto) {
    switch (auto_choice(hw, why, whylen)) {
      case kProbePebsLoad: return SourceKind::Pebs;
      case kProbeIbsOp: return SourceKind::Ibs;
      default: return SourceKind::Soft;
    }
  }
  const ProbedSource p = probed_for(requested);
  if (requested != SourceKind::PageFaults && p != kNumProbed && p != kProbeSoft &&
      source_verdict(hw, p).verdict == Verdict::Works) {
    snprintf(why, whylen, "%s: requested", source_name(requested));
    return requested;
  }
  // An Intel core PMU whose sysfs names no such event: libpfm4 may know it, which only the
  // source's start-up can ask (hw_source.h); it falls back to soft itself if not.
  if ((p == kProbePebsLoad || p == kProbePebsStore) && !hw.opens_tried && hw.cpu_pmu &&
      hw.vendor == CpuVendor::Intel && hw.is_this_machine) {
    snprintf(why, whylen, "%s: requested (sysfs is silent: libpfm4 is asked)", source_name(requested));
    return requested;
  }
  if (requested == SourceKind::Soft) {
    snprintf(why, whylen, "soft: requested");
    return SourceKind::Soft;
  }
  snprintf(why, whylen, "%s is not available in this run (see hpcrun-lite --check); using soft",
           source_name(requested));
  return SourceKind::Soft;
}

TimerSignalChoice timer_signal_for(const HardwareProbe& hw) {
  if (hw.is_this_machine) return timer_signal_decide(timer_signal_facts());
  TimerSignalFacts f;
  parse_kernel_release(hw.kernel, &f.kernel_major, &f.kernel_minor);
  f.probe_opens = true;  // not known from files: said as "if its kernel accepts it"
  return timer_signal_decide(f);
}

}  // namespace hpcrun
