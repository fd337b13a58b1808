// `hpcrun-lite --check --validate`: a self-test a user runs on a new machine. The built-in
// kernel (validate/kernel.c: three arrays read in the ratio 1:2:3, its own loads and CPU times
// printed as the truth) is measured under soft and under each hardware source that works here,
// each run through this launcher exactly as a user's program would be; the profile is read with
// the format library and the arrays' shares of the samples compared with the truth: the time
// for soft (its samples are time-weighted), the loads for the hardware sources (they count
// loads or ops). A source passes when every share is within 5 points of its truth and the
// arrays took enough samples to say so; the hardware sources also print their latency and
// data-source figures, which a user can judge against the machine (the arrays miss every cache).
#pragma once

#include <cstdio>

#include "hpcrun/probe/source_probe.h"

namespace hpcrun {

// Runs the validation, printing as it goes; 0 when every source it ran passed, 1 otherwise.
int run_validate(FILE* out, const HardwareProbe& hw);

}  // namespace hpcrun
