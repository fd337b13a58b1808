// Where a sampled access goes in a thread's calling-context tree, for every source that records
// addresses (the soft timer, PEBS and IBS records, page faults, PAPI's overflows): the node of
// the variable its data address belongs to, and the call path that hangs below it.
#pragma once

#include <cstdint>

namespace hpcrun {

class Cct;
struct SampleEstimate;
struct ThreadState;

// The tree node of the variable that data address `ea` belongs to (heap block, static or TLS
// variable, stack, untracked heap, other), in thread `ts`'s tree `c`; Cct::kNone when the tree
// is full. With `est` (a sample) also counts the offset histogram and the sampling estimate;
// without (a page fault) neither. Async-signal-safe.
uint32_t classify_address(Cct& c, uint64_t ea, const ThreadState* ts, SampleEstimate* est);

// Below `node`, the path that created the thread `ts`, then `frames` (n call sites, innermost
// first, as capture_sample_path gives them): the node of the innermost, to which the caller adds
// the sampled instruction. Cct::kNone when the tree is full. Async-signal-safe.
uint32_t attach_access_path(Cct& c, uint32_t node, const ThreadState* ts, const uint64_t* frames,
                            int n);

}  // namespace hpcrun
