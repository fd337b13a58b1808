// Realistic synthetic process profiles for the analyzer benchmarks: what one rank of an
// MPI+OpenMP application measured, built with the format library only.
//
// Every profile of a run shares one program: the same modules (paths that do not exist on disk,
// so symbolization fails fast and the timings are of the merge itself), the same pool of code
// locations, allocation sites and static variables (at load biases that differ by rank, as under
// ASLR), with a rank-dependent part (about 10% of access paths differ between ranks), so the
// merged tree grows with the number of inputs much more slowly than the sum of the inputs, as
// with a real run.
#pragma once

#include <cstdint>

#include "hpcl/profile.h"

namespace hpcl_bench {

struct SyntheticShape {
  int threads = 4;
  int paths_per_thread = 700;  // distinct access paths; about 3,000 tree nodes per thread
  int heap_sites = 50;
  int statics = 20;
};

hpcl::Profile make_process_profile(int rank, const SyntheticShape& shape = {});

}  // namespace hpcl_bench
