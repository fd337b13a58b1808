// `hpcrun-lite --check`: what a machine offers for measurement and, for each missing piece, the
// fix; for each hardware source, the perf events it would open there. On this machine it probes
// with real perf_event_open attempts (probe/source_probe.h) and asks PAPI; with --root DIR it
// reads a copy of another machine's /sys and /proc files (what a user sends from a cluster) and
// opens nothing. --json prints the same as one JSON object (docs/USAGE.md has its shape);
// --validate measures a built-in kernel under each source that works (validate.h).
#pragma once

#include <cstdio>
#include <string>

#include "papi_query.h"
#include "hpcrun/probe/source_probe.h"

namespace hpcrun {

struct CheckRequest {
  std::string root = "/";  // a machine root: "/" is this machine
  bool json = false;
  bool validate = false;
};

// This machine, with real opens; libpfm4 is asked where sysfs names no event of a core PMU.
HardwareProbe probe_this_machine();

// NUMA placement on this machine, found with the calls the runtime makes at start-up (numa.h).
struct NumaCheck {
  int nodes = 0;  // node directories in sysfs; 0: none (every CPU counts as node 0)
  int error = 0;  // errno of the move_pages probe; 0: sampled pages can be placed
};
NumaCheck check_numa();

// Probes and prints as asked; the exit status of --check (0: the report is the answer; 2 when
// the root cannot be read; --validate: validate.h).
int run_check(const CheckRequest& req);

// The text report. `papi` is null for another machine's files (PAPI and the watchpoints are
// asked of this machine only).
int print_check(FILE* out, const HardwareProbe& hw, const PapiView* papi);
// The JSON report (check_json.cpp).
int print_check_json(FILE* out, const HardwareProbe& hw, const char* root);

}  // namespace hpcrun
