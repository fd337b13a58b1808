// The decoder's per-PC cache of decisions (pc_decision.h), each with the memory operand it
// designates (AccessRecipe): 64K slots of three atomic words (2 MiB), read
// and written from signal handlers without locks (the protocol is described in pc_cache.cpp).
// The table is bounded: when a PC's probe window is full, a put evicts one entry of the window
// (round robin over a global cursor).
//
// Everything here may run inside a signal handler: no allocation, no lock, no system call.
#pragma once

#include <cstdint>

#include "decode/pc_decision.h"

namespace hpcrun {

bool decode_cache_get(uint64_t pc, PcDecision* d);
void decode_cache_put(uint64_t pc, const PcDecision& d);
// Forgets the decisions of every PC in [lo, hi): the code there was unmapped (dlclose) and
// other code may be mapped at the same addresses later. Scans the whole table (2 MiB) when a PC
// of the range may be cached, else returns at once: call it on dlclose, not per sample.
void decode_cache_invalidate(uint64_t lo, uint64_t hi);

// The cache's own counters, for decode_stats (access_decode.h).
struct PcCacheCounts {
  uint64_t inserts, full, evictions;
  uint64_t invalidate_scans;  // decode_cache_invalidate calls that had to scan the table
  uint64_t invalidate_slots;  // slots those scans read
};
PcCacheCounts pc_cache_counts();

}  // namespace hpcrun
