// The golden test's second scenario: a process profile of an imaginary pointer-chasing run
// measured with PEBS load latency (see golden_memory.cpp).
#pragma once

#include "hpcl/profile.h"

namespace hpcl::testing {

// Rank `r` (0 or 1) of the memory scenario.
Profile memory_rank(int r);

}  // namespace hpcl::testing
