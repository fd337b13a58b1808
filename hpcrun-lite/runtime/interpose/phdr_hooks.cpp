// The runtime's dl_iterate_phdr and dlclose (issue 11; phdr_snapshot.h says why).
//
// libunwind is loaded with dlopen(RTLD_LOCAL), but its undefined symbols are still looked up
// in the global scope first, where this preloaded library comes before libc: its calls of
// dl_iterate_phdr reach the definition here (e2e dl_storm checks the binding with LD_DEBUG).
// Inside the runtime (t_in_runtime: the sampling handler's unwinding, the allocation wrappers'
// call paths) the answer comes from the snapshot, without the loader's lock; the program's own
// calls go to the real dl_iterate_phdr.
//
// dlclose marks the module closing in the snapshot before the loader may unmap it, and takes a
// new snapshot after it returns. (dlopen has its stub in dlopen_hooks.cpp, which regains control
// after the real call only for some calls: new modules enter the snapshot with the module scan
// that follows every dlopen.)
#include <dlfcn.h>
#include <link.h>

#include "interpose/export.h"
#include "loader/phdr_snapshot.h"
#include "base/guard.h"
#include "base/real_fns.h"
#include "process/runtime.h"

using namespace hpcrun;

extern "C" {

// Signal-safe inside the runtime: the snapshot is read lock-free and nothing is allocated.
HPCL_EXPORT int dl_iterate_phdr(int (*cb)(dl_phdr_info*, size_t, void*), void* data) {
  if (t_in_runtime) {
    bool answered;
    int rc = phdr_snapshot_iterate(cb, data, &answered);
    if (answered) return rc;
  }
  ensure_real_fns();
  return real.dl_iterate_phdr(cb, data);
}

HPCL_EXPORT int dlclose(void* handle) {
  ensure_real_fns();
  if (!g_tracking.load(std::memory_order_acquire)) return real.dlclose(handle);
  {
    RuntimeGuard guard;
    if (guard.entered()) phdr_snapshot_mark_closing(handle);
  }
  int rc = real.dlclose(handle);
  {
    RuntimeGuard guard;
    if (guard.entered()) {
      phdr_snapshot_closed(handle);
      forget_unloaded_modules();
      refresh_phdr_snapshot();
    }
  }
  return rc;
}

}  // extern "C"
