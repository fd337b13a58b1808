// A copy of the loaded modules' program headers, for the runtime's own dl_iterate_phdr calls
// (issue 11).
//
// libunwind looks up unwind information with dl_iterate_phdr, which takes the loader's lock, and
// it does so while holding a mutex of its own. A sampling handler that unwinds could then hold
// libunwind's mutex and wait for the loader's lock while the thread that holds that lock,
// interrupted inside dlopen or dlclose, waits in its own handler for the mutex: a dlopen/dlclose
// storm sampled at 10 kHz hung in about one run in three. So the runtime answers its own calls
// (phdr_hooks.cpp: the exported dl_iterate_phdr, when the thread is inside the runtime) from this
// snapshot, and never takes the loader's lock from a signal handler or while holding libunwind's
// mutex.
//
// The snapshot is taken outside signal context (start-up, after the module scan that follows a
// dlopen, after dlclose returns) into memory of its own (mmap), and published lock-free in one
// of a few slots: readers announce themselves in the slot's reader count and check that the slot
// is still the published one; a writer reuses (and unmaps the memory of) only a slot that is not
// published and has no readers. A reader therefore never sees freed memory, and never waits.
//
// Modules being closed: before the real dlclose runs, the module is listed as closing and its
// entry marked; readers skip it (and snapshots taken meanwhile mark it too), so a module mapped
// later at the same address is never described by the old module's headers. After dlclose
// returns it leaves the list and a new snapshot has the entry or not, as the loader now does.
// Dependencies that the same dlclose unloads are not marked: a narrow window remains for them
// (a concurrent dlopen mapping another module at their address before the new snapshot).
//
// Writers never wait for each other (phdr_snapshot.cpp says why); readers never wait at all.
#pragma once

#include <link.h>

#include <cstddef>
#include <cstdint>

namespace hpcrun {

using PhdrCallback = int (*)(dl_phdr_info*, size_t, void*);
using PhdrSource = int (*)(PhdrCallback, void*);

// Takes a new snapshot from `source` (the real dl_iterate_phdr; tests pass their own) and
// publishes it. Not signal-safe: it maps memory and may wait (bounded) for readers of an older
// slot. A call while another thread is writing leaves the snapshot to that thread, which takes
// it again once done. Returns false when nothing new was published (no memory, or every free
// slot still read): the previous snapshot stays.
bool phdr_snapshot_refresh(PhdrSource source);

// Lists the module whose link map is `handle` (a dlopen handle) as closing and marks its entry:
// readers skip it. Lock-free; not for signal handlers (nothing needs it there).
void phdr_snapshot_mark_closing(const void* handle);
// After the real dlclose returned: `handle` leaves the closing list (refresh afterwards).
void phdr_snapshot_closed(const void* handle);

// Signal-safe, lock-free, allocates nothing: calls `cb` on a copy of each published entry, in the
// loader's order, until it returns non-zero; returns that value (0 after the last). Sets
// *answered to false, and calls nothing, when no snapshot is published yet.
int phdr_snapshot_iterate(PhdrCallback cb, void* data, bool* answered);

// Number of snapshots published so far (tests, log).
uint64_t phdr_snapshot_generation();
// Number of mappings made for snapshots so far (tests): a refresh whose modules fit in a free
// slot's earlier snapshot writes over it instead of mapping new memory.
uint64_t phdr_snapshot_mappings();

// In a fork child: the parent's other threads are gone, so their reader counts, the modules
// they were closing and a write they were doing are cleared.
void phdr_snapshot_after_fork_child();

}  // namespace hpcrun
