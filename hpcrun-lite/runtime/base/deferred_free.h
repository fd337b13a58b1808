// Frees that cannot be carried out where they are called.
//
// A program's signal handler may call free() (or realloc) while its thread is inside the
// runtime, for instance tracking a region under the address map's lock. Taking a tracked block
// out of the map there would wait for a lock this very thread holds: the program would hang.
// Such a free is put on a small per-thread list instead and carried out, block untracked and
// then freed, when the thread leaves the runtime (the end of the outermost RuntimeGuard, guard.h).
// The block stays allocated for those microseconds; nothing else changes for the program. When
// the list is full the block is not freed at all (a leak is safe, a hang is not).
#pragma once

namespace hpcrun {

extern __thread int t_deferred_frees __attribute__((tls_model("initial-exec")));

// Async-signal-safe. False when the list was full (the block is then leaked).
bool defer_free(void* p);
// Frees every deferred block of this thread through free(); the caller is outside the runtime.
void flush_deferred_frees();

}  // namespace hpcrun
