// The list of the runtime's sources (process/source_table.h): each row is defined in its source's
// folder, and this list says which rows run and in which order. Adding a source is a folder under
// sources/ whose .cpp defines its row (a `const SourceOps`, its per-thread state in its slot:
// source_state.h) and one line here; nothing else in the runtime names it.
//
// The order is the order threads start the sources, the handler asks them whose signal it took,
// and the profile's META lists their lines. Stack placement comes first (a thread's published
// frames are reset before any source samples), NUMA placement last (it resolves the pages every
// source before it logged).
#include "process/source_table.h"
#include "process/thread_state.h"

namespace hpcrun {

#define HPCRUN_SOURCE_ROWS(ROW)                                                \
  ROW(kStackPlacement)   /* sources/stack_place.cpp */                        \
  ROW(kSoftSource)       /* sources/soft/sampler.cpp: the timer */            \
  ROW(kPageFaultsSource) /* sources/page_faults/page_faults.cpp */            \
  ROW(kHardwareSource)   /* sources/hw/hw_source.cpp: PEBS, IBS */            \
  ROW(kWatchSource)      /* sources/watch/watch.cpp: debug registers */       \
  ROW(kPapiSource)       /* sources/papi/papi_source.cpp: counters */         \
  ROW(kNumaPlacement)    /* sources/numa_place/numa_place.cpp */

#define HPCRUN_DECLARE_ROW(row) extern const SourceOps row;
HPCRUN_SOURCE_ROWS(HPCRUN_DECLARE_ROW)
#undef HPCRUN_DECLARE_ROW

#define HPCRUN_ROW_ADDRESS(row) &row,
constinit const SourceOps* const g_source_rows[] = {HPCRUN_SOURCE_ROWS(HPCRUN_ROW_ADDRESS)};
#undef HPCRUN_ROW_ADDRESS
#undef HPCRUN_SOURCE_ROWS

constinit const int g_source_row_count = int(sizeof g_source_rows / sizeof g_source_rows[0]);
static_assert(sizeof g_source_rows / sizeof g_source_rows[0] <= kSourceSlotCount,
              "more sources than thread-state slots (thread_state.h)");

}  // namespace hpcrun
