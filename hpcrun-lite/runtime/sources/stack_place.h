// A sampled access to stack data, placed in the frame that owns its address (format 1.10 node
// kinds StackOwner and StackSlot), for every source with a data address: the software sampler
// and, for the record its signal interrupted, the hardware sources.
//
// Stack storage that one thread owns and another reads: an OpenMP region's workers reading an
// array their master declared (shared by default), a task reading its creator's local. The
// reading thread cannot walk the owner's frames, so each thread publishes the frames its own
// placed samples found (in the placement row's slot of its thread state) and a reader of its
// stack looks there: a published frame whose storage holds the address and whose return
// address is still where its call left it is that address's owner.
#pragma once

#include <cstdint>

#include "process/thread_state.h"
#include "unwind/unwind.h"

namespace hpcrun {

struct SourceOps;

// The node a sample of data address `ea` by instruction `insn` goes under, given `node`, the
// variable node its address was classified to: for the [stack] class, the slot of the owning
// frame's storage below a StackOwner node of that frame (created in ts->cct), else `node`. On
// the thread's own stack the owner is found by walking `uc`, the context the sample
// interrupted (the thread's signal context; nullptr when there is none, as for a hardware
// record older than its drain's signal), and published; on another thread's stack, from what
// that thread published. A walk cut short, or a frame nobody published, stays `node`.
// Async-signal-safe.
uint32_t place_on_stack(ThreadState* ts, const void* uc, uint64_t insn, uint64_t ea, uint32_t node);

// Forgets what the state's last thread published: a state (and often its stack mapping, which
// glibc caches) passes to the next thread that starts. Call on the thread, before its samples.
void shared_frames_reset(ThreadState* ts);

// Remembers `owner`, a frame of the calling thread's stack (its own signal handler only).
// Async-signal-safe: plain stores under the cache's sequence count.
void shared_frames_publish(ThreadState* ts, const FrameOwner& owner);

// The frame of another live thread's stack that holds `addr`, from what that thread published:
// false when none holds it, the entry was being rewritten, or the frame has returned (the word
// at its cfa - 8 is no longer its return address; read with safe_read, one system call, since
// the other thread may be unmapping its stack). Async-signal-safe.
bool shared_frames_find(uint64_t addr, const ThreadState* self, FrameOwner* out);

// The row of the source table (process/source_table.h) that sources/source_list.cpp lists.
extern const SourceOps kStackPlacement;

}  // namespace hpcrun
