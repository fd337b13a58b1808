// See check.h.
#include "check.h"

#include <sys/stat.h>

#include <cstring>

#include "hpcrun/probe/pfm_api.h"
#include "text_wrap.h"
#include "validate.h"
#include "hpcrun/probe/numa_topology.h"
#include "hpcrun/probe/source_verdict.h"
#include "hpcrun/probe/watch_probe.h"

namespace hpcrun {

namespace {

// Per-thread ring of a hardware source: 16 data pages and the header page.
constexpr long kRingKb = 68;

const char* yes(bool b) { return b ? "yes" : "no"; }

void print_pmus(FILE* out, const HardwareProbe& hw) {
  fprintf(out, "PMUs               ");
  for (int i = 0; i < hw.npmus; ++i) fprintf(out, "%s%s", i ? " " : "", hw.pmus[i]);
  fprintf(out, "%s\n", hw.npmus ? "" : "(none listed)");
  if (hw.hybrid())
    fprintf(out, "  core PMU         hybrid: cpu_core (type %d) and cpu_atom (type %d)\n",
            hw.cpu_core_type, hw.cpu_atom_type);
  else if (hw.cpu_type >= 0)
    fprintf(out, "  core PMU         cpu (type %d)\n", hw.cpu_type);
  else if (hw.arm_pmu[0])
    fprintf(out, "  core PMU         %s\n", hw.arm_pmu);
  else
    fprintf(out, "  core PMU         none: no hardware counters%s\n",
            hw.hypervisor ? " (a VM without a virtual PMU)" : "");
  if (hw.pmu_name[0]) fprintf(out, "  pmu_name         %s\n", hw.pmu_name);
  if (hw.cpu_pmu)
    fprintf(out, "  load latency     %s\n", hw.pebs ? "yes (events/mem-loads)" : "no events/mem-loads");
  if (hw.max_precise >= 0) fprintf(out, "  max_precise      %d\n", hw.max_precise);
  if (hw.ibs_op_type >= 0) fprintf(out, "  ibs_op           type %d\n", hw.ibs_op_type);
  if (hw.spe_type >= 0) fprintf(out, "  %-16s type %d\n", hw.spe_pmu, hw.spe_type);
}

void print_papi(FILE* out, const PapiView& papi) {
  if (!papi.loaded) {
    fprintf(out, "PAPI               not usable: %s\n", papi.error.c_str());
    return;
  }
  fprintf(out, "PAPI               %s (%s), %zu components\n", papi.version.c_str(),
          papi.library.c_str(), papi.components.size());
  for (const PapiComponent& c : papi.components) {
    fprintf(out, "  %-16s %s, %d counters, %d native events, %d presets", c.name.c_str(),
            c.disabled ? "disabled" : "enabled", c.counters, c.native_events, c.preset_events);
    if (c.disabled && !c.disabled_reason.empty()) fprintf(out, ": %s", c.disabled_reason.c_str());
    fprintf(out, "\n");
  }
  // Listed from libpfm4's tables for this CPU model; the PAPI_<NAME> line below says whether
  // they can be counted (not in a VM without a virtual PMU).
  fprintf(out, "  presets          %zu listed", papi.presets.size());
  for (size_t i = 0; i < papi.presets.size() && i < 12; ++i)
    fprintf(out, "%s%s", i ? " " : ": ", papi.presets[i].c_str());
  fprintf(out, "%s\n", papi.presets.size() > 12 ? " ..." : "");
}

void print_source(FILE* out, const char* name, const char* state, const char* reason, const char* fix) {
  fprintf(out, "  %-12s %-12s %s\n", name, state, reason);
  if (fix && *fix) fprintf(out, "  %-12s %-12s fix: %s\n", "", "", fix);
}

// The events a hardware source opens, one a line in the reason column: its number, PMU, type and
// encoding, and how it stands in its group.
void print_events(FILE* out, const EventPlan& plan) {
  for (int i = 0; i < plan.n; ++i) {
    const PlannedEvent& e = plan.ev[i];
    fprintf(out, "  %-12s %-12s #%d %s type %u config %#llx", "", "", i, e.pmu, e.attr.type,
            (unsigned long long)e.attr.config);
    if (e.attr.config1) fprintf(out, " config1 %#llx", (unsigned long long)e.attr.config1);
    if (e.attr.config2) fprintf(out, " config2 %#llx", (unsigned long long)e.attr.config2);
    const bool leads = i + 1 < plan.n && plan.ev[i + 1].leader == i;
    if (!e.sampling) fprintf(out, ": leads group #%d, counts only\n", i);
    else if (e.leader != i) fprintf(out, ": in group #%d, precise_ip %u\n", e.leader, e.attr.precise_ip);
    else fprintf(out, ":%s precise_ip %u\n", leads ? " leads its group," : "", e.attr.precise_ip);
  }
  if (plan.n) fprintf(out, "  %-12s %-12s (encodings from %s)\n", "", "", plan.origin);
}

}  // namespace

int print_check(FILE* out, const HardwareProbe& hw, const PapiView* papi) {
  if (hw.is_this_machine)
    fprintf(out, "hpcrun-lite --check: what this machine offers for measurement\n\n");
  else
    fprintf(out, "hpcrun-lite --check: what the machine of these files offers\n"
                 "(read from a copy: nothing opened, so no verdict of its kernel)\n\n");
  fprintf(out, "kernel             %s\n", hw.kernel[0] ? hw.kernel : "unknown");
  if (hw.paranoid == kUnknownValue) {
    fprintf(out, "perf_event_paranoid unknown (no perf_event support in this kernel?)\n");
  } else {
    bool privileged = hw.cap_perfmon() || hw.cap_sys_admin();
    const char* meaning = hw.paranoid >= 3 ? "perf_event_open is closed to unprivileged users"
                        : hw.paranoid == 2 ? "user-space samples only"
                        : hw.paranoid == 1 ? "user and kernel samples of own processes"
                                           : "no restriction on own processes";
    fprintf(out, "perf_event_paranoid %d: %s%s\n", hw.paranoid, meaning,
            privileged ? " (does not apply: privileged)" : "");
    if (hw.paranoid >= 2 && !privileged)
      fprintf(out, "  fix (IBS and kernel samples): sudo sysctl -w kernel.perf_event_paranoid=1\n");
  }
  if (hw.caps_known)
    fprintf(out, "capabilities       CAP_PERFMON %s, CAP_SYS_ADMIN %s, CAP_IPC_LOCK %s\n",
            yes(hw.cap_perfmon()), yes(hw.cap_sys_admin()), yes(hw.cap_ipc_lock()));
  else
    fprintf(out, "capabilities       unknown\n");
  if (hw.mlock_kb != kUnknownValue) {
    bool unlimited = hw.cap_ipc_lock() || hw.cap_perfmon() || hw.cap_sys_admin();
    fprintf(out, "perf mlock limit   %ld KiB per user: ", hw.mlock_kb);
    if (unlimited) fprintf(out, "does not apply (privileged)\n");
    else fprintf(out, "room for %ld per-thread rings of %ld KiB\n", hw.mlock_kb / kRingKb, kRingKb);
    if (!unlimited && hw.mlock_kb / kRingKb < 64)
      fprintf(out, "  fix (more threads with a hardware source): sudo sysctl -w "
                   "kernel.perf_event_mlock_kb=%ld\n", 256 * kRingKb);
  }
  const char* vendor = hw.vendor == CpuVendor::Intel ? "Intel" : hw.vendor == CpuVendor::Amd ? "AMD"
                     : hw.vendor == CpuVendor::Arm ? "Arm" : "unknown vendor";
  fprintf(out, "cpu                %s family %d model %d%s%s%s\n", vendor, hw.family, hw.model,
          hw.model_name[0] ? " (" : "", hw.model_name, hw.model_name[0] ? ")" : "");
  fprintf(out, "virtual machine    %s\n", hw.hypervisor ? "yes (cpuinfo hypervisor flag)" : "no");
  if (hw.is_this_machine) {
    const NumaCheck numa = check_numa();
    fprintf(out, "NUMA               %d node%s%s; placement of sampled pages %s%s\n", numa.nodes,
            numa.nodes == 1 ? "" : "s", numa.nodes ? "" : " listed (every CPU counts as node 0)",
            numa.error ? "off: move_pages fails here: " : "works (move_pages)",
            numa.error ? strerror(numa.error) : "");
  }
  print_pmus(out, hw);
  if (papi) print_papi(out, *papi);

  fprintf(out, "\nsources (-e):\n");
  for (int s = 0; s < kNumProbed; ++s) {
    SourceVerdict v = source_verdict(hw, ProbedSource(s));
    const char* state = v.verdict == Verdict::Works ? "works"
                      : v.verdict == Verdict::NoReader ? "no reader" : "unavailable";
    print_source(out, probed_name(ProbedSource(s)), state, v.reason, v.fix);
    if (v.verdict == Verdict::Works) print_events(out, hw.plan[s]);
    if (s == kProbeSoft && v.verdict == Verdict::Works) {
      const TimerSignalChoice t = timer_signal_for(hw);
      fprintf(out, "  %-12s %-12s timer signal: %s (%s%s)\n", "", "",
              t.signal == TimerSignal::Trap ? "SIGTRAP" : "the real-time signal", t.why,
              hw.is_this_machine || t.signal != TimerSignal::Trap ? "" : ", if its kernel accepts it");
    }
  }
  if (!papi) {
    char auto_why[256];
    auto_choice(hw, auto_why, sizeof auto_why);
    fprintf(out, "\nauto -> %s\n", auto_why);
    return 0;
  }
  std::string why;
  bool papi_ok = papi_event_available(*papi, "PAPI_TOT_CYC", &why);
  if (papi_ok)
    print_source(out, "PAPI_<NAME>", "works", "the presets listed above", "");
  else
    print_source(out, "PAPI_<NAME>", "unavailable", why.c_str(),
                 hw.hypervisor && !hw.cpu_pmu ? "a VM without vPMU: use -e soft" : "use -e soft");
  print_source(out, "sde:::L::E", papi->loaded ? "works" : "unavailable",
               papi->loaded ? "a library's software-defined events (PAPI's sde component); "
                              "each is checked when the program registers it"
                            : papi->error.c_str(), "");
  // Watchpoints: breakpoint events on this very thread, as each measured thread opens them.
  char wp_why[256];
  const bool wp_ok = watch_usable(probe_watchpoints(), wp_why, sizeof wp_why);
  for (const char* name : {"wp-sharing", "wp-reuse"})
    print_source(out, name, wp_ok ? "works" : "unavailable", wp_why,
                 wp_ok ? "" : kWatchFix);
  char auto_why[256];
  auto_choice(hw, auto_why, sizeof auto_why);
  fprintf(out, "\nauto -> %s\n", auto_why);
  return 0;
}

NumaCheck check_numa() {
  NumaCheck c;
  c.nodes = numa_init("/");
  c.error = numa_probe();
  return c;
}

HardwareProbe probe_this_machine() {
  HardwareProbe hw = probe_hardware("/");
  // libpfm4 opened here, as the runtime does, not linked: its 41,000 relocations and 290 page
  // faults (0.6 ms on the development VM) would be paid by every rank the launcher starts. Without
  // it the PEBS plans come from sysfs alone, and a verdict that needed it says so.
  char err[256];
  pfm_api_dlopen(err, sizeof err);
  probe_opens(&hw, true);
  return hw;
}

int run_check(const CheckRequest& req) {
  struct stat st;
  if (stat(req.root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "hpcrun-lite: --root %s: not a directory\n", req.root.c_str());
    return 2;
  }
  const bool here = strcmp(req.root.c_str(), "/") == 0;
  if (req.validate && (!here || req.json)) {
    fprintf(stderr, "hpcrun-lite: --validate measures this machine and prints text: not with %s\n",
            here ? "--json" : "--root");
    return 2;
  }
  const HardwareProbe hw = here ? probe_this_machine() : probe_hardware(req.root.c_str());
  if (req.json) return print_check_json(stdout, hw, req.root.c_str());
  // Written whole, then fitted to the terminal.
  char* text = nullptr;
  size_t len = 0;
  FILE* mem = open_memstream(&text, &len);
  if (!mem) return print_check(stdout, hw, nullptr);
  int status;
  if (hw.is_this_machine) {
    PapiView papi = papi_view();
    status = print_check(mem, hw, &papi);
  } else {
    status = print_check(mem, hw, nullptr);
  }
  fclose(mem);
  fputs(wrap_lines(std::string(text, len), terminal_width()).c_str(), stdout);
  free(text);
  if (!req.validate) return status;
  // Printed as each source finishes (a run takes seconds), each line fitted on its own.
  mem = open_memstream(&text, &len);
  if (!mem) return 1;
  status = run_validate(mem, hw);
  fclose(mem);
  fputs(wrap_lines(std::string(text, len), terminal_width()).c_str(), stdout);
  free(text);
  return status;
}

}  // namespace hpcrun
