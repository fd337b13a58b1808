// The heap the profile writer uses when the process is ending.
//
// The profile may be written from a signal handler (a fatal signal, SIGTERM from a batch system),
// from _exit() called inside a program's own handler, or while another thread holds glibc's
// malloc locks. The writer builds the profile with C++ containers and compresses it with zstd,
// both of which allocate. While t_last_words is set on a thread, the runtime's malloc-family
// wrappers serve that thread from this heap instead of the real allocator: memory comes from
// mmap in chunks, carved by a bump pointer into blocks of power-of-two size classes that free()
// puts on a free list per class for the next block of that class (the writer's containers grow
// by doubling: without reuse every outgrown copy stayed resident), so no lock is ever taken and
// nothing the interrupted code was doing can be in the way. free() of any other block while
// t_last_words is set is skipped (a leak at exit is harmless, the real free() might wait for a
// lock the interrupted code holds).
//
// Only one thread writes the profile at a time (process_end.cpp), and it frees only the blocks
// it allocated, so the heap and its free lists have one user. Its chunks are never returned: the
// process is ending.
#pragma once

#include <cstddef>

namespace hpcrun {

extern __thread int t_last_words __attribute__((tls_model("initial-exec")));

// 16-byte aligned at least; nullptr when the kernel refuses memory. Async-signal-safe.
void* last_words_alloc(size_t size, size_t align = 16);
// Gives a block of this heap back to its class (aligned and larger blocks stay where they are);
// a no-op unless t_last_words is set on the calling thread.
void last_words_free(void* p);
// realloc within this heap: in place while the block's class holds `size`; a block of the real
// allocator (`old` not ours) is not copied (the writer never reallocates one).
void* last_words_realloc(void* old, size_t size);
// Whether p is a block of this heap (one relaxed load while the heap is unused), and its
// requested size.
bool last_words_owns(const void* p);
size_t last_words_size(const void* p);
// Bytes in live blocks (requested sizes), and the address space of the chunks.
size_t last_words_used();
size_t last_words_reserved();

}  // namespace hpcrun
