// The heap the profile writer uses when the process is ending.
//
// The profile may be written from a signal handler (a fatal signal, SIGTERM from a batch system),
// from _exit() called inside a program's own handler, or while another thread holds glibc's
// malloc locks. The writer builds the profile with C++ containers and compresses it with zstd,
// both of which allocate. While t_last_words is set on a thread, the runtime's malloc-family
// wrappers serve that thread from this heap instead of the real allocator: memory comes from
// mmap in chunks, is handed out by a bump pointer and is never reused, so no lock is ever taken
// and nothing the interrupted code was doing can be in the way. free() of a block of this heap
// does nothing; free() of any other block while t_last_words is set is skipped too (a leak at
// exit is harmless, the real free() might wait for a lock the interrupted code holds).
//
// Only one thread writes the profile at a time (process_end.cpp), so the heap has one writer.
// Its memory is never returned: the process is ending.
#pragma once

#include <cstddef>

namespace hpcrun {

extern __thread int t_last_words __attribute__((tls_model("initial-exec")));

// 16-byte aligned at least; nullptr when the kernel refuses memory. Async-signal-safe.
void* last_words_alloc(size_t size, size_t align = 16);
// Whether p is a block of this heap (one relaxed load while the heap is unused), and its
// requested size.
bool last_words_owns(const void* p);
size_t last_words_size(const void* p);
// Bytes handed out so far (the writer's log line).
size_t last_words_used();

}  // namespace hpcrun
