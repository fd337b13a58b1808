// Where a thread's stack lies, for the classification of sampled addresses as [stack].
//
// A thread the runtime starts itself records its bounds on itself (pthread_getattr_np). A thread
// that existed before the runtime (adopted, thread_state.h) cannot be asked that from another
// thread, and most such threads (a library's pool, as OpenBLAS's) wait for work without ever
// entering the runtime. The kernel answers for a waiting thread: /proc/self/task/TID/syscall
// ends with the thread's stack pointer whenever it is blocked (in a system call or not; "running"
// otherwise), and the mapping of /proc/self/maps that holds that pointer is its stack (glibc maps
// each thread's stack with its guard below and the thread's TLS and descriptor at the top). A
// thread that was running gets them at its first sample, from the interrupted stack pointer
// (thread_claim_adopted), and exact ones when it settles (thread_settle_adopted).
//
// Reads with open/read into stack buffers: no malloc, no lock; the runtime's constructor calls
// it, and the sampling handler once per adopted thread.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace hpcrun {

// The stack pointer from the text of /proc/.../syscall; false for "running" or unparsable text.
bool stack_pointer_of_blocked(const char* syscall_text, uint64_t* sp);

// The mapping of the maps file at `maps_path` that contains `addr`: [lo, hi). False when none does.
bool mapping_containing(const char* maps_path, uint64_t addr, uint64_t* lo, uint64_t* hi);

// Both for thread `tid` of the process whose proc directory is `proc_self` ("/proc/self").
bool blocked_thread_stack(const char* proc_self, pid_t tid, uint64_t* lo, uint64_t* hi);

}  // namespace hpcrun
