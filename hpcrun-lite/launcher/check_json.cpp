// `hpcrun-lite --check --json`: the verdicts and, for each source, the perf events it would
// open, as one JSON object (its shape is in docs/USAGE.md). Hex fields are strings ("0x1cd"),
// so that 64-bit values survive every JSON reader.
#include <cstdio>
#include <cstring>
#include <string>

#include "check.h"
#include "hpcrun/probe/perf_event.h"
#include "hpcrun/probe/source_verdict.h"
#include "hpcrun/probe/watch_probe.h"

namespace hpcrun {

namespace {

void put_string(FILE* out, const char* s) {
  fputc('"', out);
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(s); *p; ++p) {
    if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
    else fputc(*p, out);
  }
  fputc('"', out);
}

void hex_field(FILE* out, const char* key, uint64_t v, bool comma = true) {
  fprintf(out, "\"%s\": \"0x%llx\"%s", key, (unsigned long long)v, comma ? ", " : "");
}

void put_event(FILE* out, const PlannedEvent& e) {
  fprintf(out, "{\"pmu\": ");
  put_string(out, e.pmu);
  fprintf(out, ", \"type\": %u, ", e.attr.type);
  hex_field(out, "config", e.attr.config);
  hex_field(out, "config1", e.attr.config1);
  hex_field(out, "config2", e.attr.config2);
  fprintf(out, "\"precise_ip\": %u, ", e.attr.precise_ip);
  hex_field(out, "sample_type", e.attr.sample_type);
  fprintf(out, "\"sample_period\": %llu, \"sampling\": %s, \"exclude_kernel\": %s, \"leader\": %d}",
          (unsigned long long)e.attr.sample_period, e.sampling ? "true" : "false",
          e.attr.exclude_kernel ? "true" : "false", e.leader);
}

// The software sources' one event each, as the runtime opens it.
bool software_event(const HardwareProbe& hw, ProbedSource s, PlannedEvent* e) {
  if (s != kProbeSoft && s != kProbePageFaults) return false;
  *e = PlannedEvent{};
  snprintf(e->pmu, sizeof e->pmu, "software");
  e->sampling = true;
  return probe_attr(hw, s, &e->attr);
}

const char* verdict_name(Verdict v) {
  return v == Verdict::Works ? "works" : v == Verdict::NoReader ? "no reader" : "unavailable";
}

const char* vendor_name(CpuVendor v) {
  return v == CpuVendor::Intel ? "Intel" : v == CpuVendor::Amd ? "AMD"
       : v == CpuVendor::Arm ? "Arm" : "unknown";
}

}  // namespace

int print_check_json(FILE* out, const HardwareProbe& hw, const char* root) {
  fprintf(out, "{\n  \"root\": ");
  put_string(out, root);
  fprintf(out, ",\n  \"this_machine\": %s,\n  \"kernel\": ", hw.is_this_machine ? "true" : "false");
  put_string(out, hw.kernel);
  if (hw.paranoid == kUnknownValue) fprintf(out, ",\n  \"perf_event_paranoid\": null");
  else fprintf(out, ",\n  \"perf_event_paranoid\": %d", hw.paranoid);
  fprintf(out, ",\n  \"cpu\": {\"vendor\": \"%s\", \"family\": %d, \"model\": %d, \"model_name\": ",
          vendor_name(hw.vendor), hw.family, hw.model);
  put_string(out, hw.model_name);
  fprintf(out, ", \"hypervisor\": %s},\n  \"pmus\": [", hw.hypervisor ? "true" : "false");
  for (int i = 0; i < hw.npmus; ++i) {
    fprintf(out, "%s", i ? ", " : "");
    put_string(out, hw.pmus[i]);
  }
  fprintf(out, "]");
  if (hw.is_this_machine) {
    const NumaCheck numa = check_numa();
    fprintf(out, ",\n  \"numa\": {\"nodes\": %d, \"placement\": %s", numa.nodes,
            numa.error ? "false" : "true");
    if (numa.error) {
      fprintf(out, ", \"reason\": ");
      put_string(out, (std::string("move_pages fails here: ") + strerror(numa.error)).c_str());
    }
    fprintf(out, "}");
  }
  fprintf(out, ",\n  \"sources\": [");
  for (int s = 0; s < kNumProbed; ++s) {
    const SourceVerdict v = source_verdict(hw, ProbedSource(s));
    fprintf(out, "%s\n    {\"name\": \"%s\", \"available\": %s, \"verdict\": \"%s\", ",
            s ? "," : "", probed_name(ProbedSource(s)),
            v.verdict == Verdict::Works ? "true" : "false", verdict_name(v.verdict));
    fprintf(out, "\"%s\": ", v.verdict == Verdict::Works ? "detail" : "reason");
    put_string(out, v.reason);
    if (v.fix[0]) {
      fprintf(out, ", \"%s\": ", v.verdict == Verdict::Works ? "note" : "fix");
      put_string(out, v.fix);
    }
    fprintf(out, ",\n     \"events\": [");
    PlannedEvent soft;
    const EventPlan& plan = hw.plan[s];
    if (plan.n > 0) {
      for (int i = 0; i < plan.n; ++i) {
        fprintf(out, "%s\n       ", i ? "," : "");
        put_event(out, plan.ev[i]);
      }
    } else if (software_event(hw, ProbedSource(s), &soft)) {
      fprintf(out, "\n       ");
      put_event(out, soft);
    }
    fprintf(out, "]");
    if (plan.n > 0) {
      fprintf(out, ", \"origin\": ");
      put_string(out, plan.origin);
    }
    if (s == kProbeSoft) {
      const TimerSignalChoice t = timer_signal_for(hw);
      fprintf(out, ",\n     \"timer_signal\": \"%s\", \"timer_signal_reason\": ",
              timer_signal_name(t.signal));
      put_string(out, t.why);
    }
    fprintf(out, "}");
  }
  // The watchpoint sources, on this machine only: breakpoints are opened on this very thread,
  // as each measured thread opens them (a copy of another machine's files cannot say).
  if (hw.is_this_machine) {
    char wp_why[256];
    const WatchProbe wp = probe_watchpoints();
    const bool wp_ok = watch_usable(wp, wp_why, sizeof wp_why);
    for (const char* name : {"wp-sharing", "wp-reuse"}) {
      fprintf(out, ",\n    {\"name\": \"%s\", \"available\": %s, \"verdict\": \"%s\", \"%s\": ", name,
              wp_ok ? "true" : "false", wp_ok ? "works" : "unavailable", wp_ok ? "detail" : "reason");
      put_string(out, wp_why);
      if (!wp_ok) {
        fprintf(out, ", \"fix\": ");
        put_string(out, kWatchFix);
      }
      fprintf(out, ",\n     \"registers\": %d, \"modify\": %s, \"counting\": %s, \"events\": []}",
              wp.registers, wp.modify ? "true" : "false", wp.counted ? "true" : "false");
    }
  }
  char why[256];
  const ProbedSource a = auto_choice(hw, why, sizeof why);
  fprintf(out, "\n  ],\n  \"auto\": \"%s\",\n  \"auto_reason\": ", probed_name(a));
  put_string(out, why);
  fprintf(out, "\n}\n");
  return 0;
}

}  // namespace hpcrun
