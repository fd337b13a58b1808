// Where inside each variable the samples fall: one histogram per heap site and per static
// variable, 32 bins over the variable's extent (the sampled block for a heap site, the symbol for
// a static one) plus the lowest and highest byte offset seen. The profile writer copies them into
// the OFFSETS section (docs/FORMAT.md); the report turns them into "hot: 0-25% of the block".
//
// The table is a fixed array in zero-initialised memory, open-addressed by variable, claimed with
// a compare-and-swap and counted with relaxed fetch_add: offsets_count() allocates nothing, takes
// no lock and may be called from a signal handler. A sample is not counted, only tallied in
// offsets_lost(), when the table is full or the variable's extent cannot be known from this thread
// (a TLS variable of another thread or in a dynamically allocated TLS block: its block start is
// that thread's).
#pragma once

#include <cstdint>

#include "memory/heap_map.h"
#include "loader/modules.h"

namespace hpcrun {

inline constexpr uint32_t kOffsetBinCount = 32;  // = hpcl::kOffsetBins

// The bin of a byte offset in an extent of `size` bytes (0 when the size is unknown).
inline uint32_t offset_bin(uint64_t offset, uint64_t size) {
  if (size == 0 || offset >= size) return size == 0 ? 0 : kOffsetBinCount - 1;
  return uint32_t((unsigned __int128)offset * kOffsetBinCount / size);
}

// Signal-safe. Counts a sample at data address `ea`, found in a heap block (`heap`) or in a static
// variable (`stat`, with `tp` the thread pointer for TLS); both null: nothing to count.
void offsets_count(uint64_t ea, uint64_t tp, const BlockInfo* heap, const StaticHit* stat);

// One variable's histogram as the writer sees it.
struct OffsetRecord {
  bool is_static;
  uint32_t site;     // heap
  uint32_t module;   // static
  int64_t symbol;    // static: symbol index, -1 = the module's data without a symbol
  uint64_t min, max;
  uint64_t bins[kOffsetBinCount];
};

// Calls fn(record, ctx) for every variable with at least one counted sample. Not signal-safe.
void offsets_for_each(void (*fn)(const OffsetRecord&, void*), void* ctx);
// Samples that found the table full.
uint64_t offsets_lost();
// Fork child: forget the parent's counts (its samples start from zero as well).
void offsets_reset();

}  // namespace hpcrun
