// hpcrun_lite_name: the program names a range of its memory (a pool's sub-array, an arena's
// region), include/hpcrun-lite.h. The range becomes a variable of its own (kind heap, allocator
// `named`), named by the given name and by the call path of the annotation, and it wins over the
// block or mapping it lies in (regions.h). A later name over the same bytes cuts the older one;
// a null or empty name removes the names in the range (a pool that reuses the range for other
// data). Names end with the tracked block or mapping they lie in (its free or munmap).
#include <cstring>

#include "interpose/alloc_track.h"
#include "interpose/export.h"
#include "memory/regions.h"

extern "C" HPCL_EXPORT void hpcrun_lite_name(const void* addr, size_t bytes, const char* name) {
  using namespace hpcrun;
  if (!addr || bytes == 0 || t_in_runtime || !g_tracking.load(std::memory_order_relaxed)) return;
  auto lo = reinterpret_cast<uint64_t>(addr);
  uint64_t hi = lo + bytes < lo ? UINT64_MAX : lo + bytes;
  if (!name || !name[0]) {
    RuntimeGuard guard;
    if (guard.entered()) carve(g_named, lo, hi);
    return;
  }
  track_region(g_named, lo, hi - lo, hpcl::AllocApi::Named, name,
               uint32_t(strnlen(name, kMaxSiteName)));
}
