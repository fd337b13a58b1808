// `hpcrun-lite --check`: what this machine offers for measurement and, for each missing piece,
// the fix. Reads the probe (sources/source_probe.h, with real perf_event_open attempts) and PAPI.
#pragma once

#include <cstdio>

#include "papi_query.h"
#include "sources/source_probe.h"

namespace hpcrun {

// Prints the report; the exit status of --check (always 0: the report is the answer).
int print_check(FILE* out, const HardwareProbe& hw, const PapiView& papi);

}  // namespace hpcrun
