// Per-thread measurement state. It lives in mmap'd memory reached through an initial-exec TLS
// pointer (trivially destructible: a thread_local with a destructor would make the C++ runtime
// call malloc at thread exit), and is linked into a push-only global list so the writer finds
// the trees of every thread, including those that already exited.
//
// The state of an exited thread, tree included, is handed to the next thread that starts: the
// analyzer merges all threads' trees anyway, and a program that runs thousands of short threads
// one after another would otherwise keep thousands of trees (20,000 threads: 340 MiB). Memory is
// then bounded by the most threads alive at once; META `threads` still counts every thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "trees/cct.h"
#include "memory/alloc_sites.h"
#include "loader/modules.h"
#include "memory/track_control.h"

namespace hpcrun {

// Frames of the call path that created a thread, kept with it (see ThreadState::creator).
inline constexpr int kMaxCreatorFrames = 32;

// Room for each source's per-thread state (sources/source_state.h): slots for 10 sources of up
// to 3 KiB each (the largest today, the NUMA placement's log of sampled pages, takes 2 KiB; the
// watches' under 400 bytes). Pages of the mapping that no slot touches are never faulted in.
inline constexpr int kSourceSlotCount = 10;
inline constexpr size_t kSourceSlotBytes = 3072;
struct alignas(64) SourceSlotBytes {
  unsigned char bytes[kSourceSlotBytes];
};

struct ThreadState {
  ThreadState* next;         // global list, newest first
  ThreadState* next_free;    // list of states of exited threads, ready for reuse
  uint32_t index;            // 0 = the first thread measured (main)
  pid_t tid;
  uint64_t fs_base;          // thread pointer, for fs: addresses and static TLS
  // The thread's stack, [stack_lo, stack_hi); none while stack_lo is 0. Written by the thread
  // itself (or at adoption) with stack_lo last, read by every thread's handler (set_stack).
  uint64_t stack_lo, stack_hi;
  // The lowest stack pointer seen on the thread's stack (a sample's interrupted one): the kernel
  // never shrinks a stack mapping, so [stack_floor, stack_hi) is mapped, where the main thread's
  // stack_lo (its rlimit) may lie below what the kernel mapped so far (on_own_stacks).
  uint64_t stack_floor;
  void* alt_stack;           // the signal stack's mapping (alt_stack.h), kept when reused
  std::atomic<int> in_handler;
  std::atomic<int> alive;
  bool stale;                // fork child: a thread of the parent, not written
  // Set once the thread has called unwind_thread_init outside a signal handler: at its start, or
  // for a thread that was adopted (below) when it settles. Until then it unwinds no call path
  // (its samples keep only the leaf).
  int unwind_ready;
  // The call path that created this thread (pthread_create's caller and its callers, then the
  // creating thread's own creator path), innermost first; none for the main thread. Every
  // sample of the thread hangs under it, as its outermost frames: the report then shows which
  // code (which parallel region) started the thread that touched the data.
  uint32_t ncreator;
  uint64_t creator[kMaxCreatorFrames];
  // Counters (only the owning thread's handler writes them).
  uint64_t samples;          // every signal that reached the handler
  uint64_t busy;             // landed inside the runtime: code time under no data, PC only
  uint64_t dropped;          // tree full: not recorded
  uint64_t nested;           // landed in another source's handler on this thread: not recorded
  uint64_t overruns;         // the event overflowed again while the handler ran: not recorded
  uint64_t nodata;           // no memory operand
  uint64_t unresolved;       // memory operand whose address could not be computed
  // Which small allocations this thread tracks (owned by the thread's allocation wrappers).
  TrackControl track;
  SiteCache site_cache;      // the sites this thread tracked lately (alloc_sites.h)
  // The sources' own per-thread state, a slot each (sources/source_state.h): the soft timer and
  // its dlopen pause, the page-fault and hardware sources' events and rings, the watches (armed
  // by this thread's handler or by other threads'), the PAPI event set, the NUMA log, the
  // frames stack placement published.
  SourceSlotBytes source_slots[kSourceSlotCount];
  Cct cct;
};

extern __thread ThreadState* t_state __attribute__((tls_model("initial-exec")));

// Creates and registers the calling thread's state (idempotent) and starts sampling it, with
// `creator` (n frames, innermost first) as the call path that created the thread.
// Not signal-safe; the caller holds the runtime guard.
ThreadState* thread_begin(const uint64_t* creator = nullptr, uint32_t n = 0);
// Threads that existed before the runtime started (a library constructor's thread pool, such as
// OpenBLAS's) never pass through our pthread_create. At start-up the runtime lists them in
// /proc/self/task, makes a state for each, records the stack of those that wait (most pools do:
// thread_stack.h) and starts every source that can start for another thread (source_table.h),
// its events routed to that thread; the thread takes the state at its first sample
// (thread_claim_adopted). Not signal-safe; the caller holds the runtime guard. Returns how many
// threads were adopted.
uint32_t threads_adopt_existing();
// Async-signal-safe: the state prepared for the calling thread by threads_adopt_existing, now
// its own (t_state), or nullptr when there is none. `sp`, the thread's stack pointer (the
// interrupted one, in a handler; 0: none): a thread that was running when it was adopted has no
// stack bounds yet, and the mapping that holds `sp` gives them (thread_stack.h).
ThreadState* thread_claim_adopted(uint64_t sp = 0);
// An adopted thread at its first entry into the runtime outside a handler: takes its state if no
// sample did yet, records its stack bounds, prepares unwinding and starts the sources that only
// the thread itself can start. Returns the state when it settled now (the caller then has its
// end followed, runtime.cpp), nullptr otherwise; cheap after the first call on a thread. Not
// signal-safe; the caller holds the runtime guard.
ThreadState* thread_settle_adopted();
// Stops sampling the calling thread (call it on that thread); its tree stays for the writer and
// the state goes to the next thread that starts.
void thread_end(ThreadState* ts);
ThreadState* threads_head();
uint32_t threads_count();  // threads measured so far, including exited ones
// Whether [lo, hi) lies on the calling thread's stack, above the lowest stack pointer seen on it
// (the caller's own frame, or ts->stack_floor), or in its signal stack: memory that is mapped.
// Async-signal-safe.
bool on_own_stacks(uint64_t lo, uint64_t hi);

// Whether addr lies on the stack of some measured live thread (the caller's own first).
bool address_on_a_stack(uint64_t addr, const ThreadState* self);
// The live thread other than `self` whose stack holds addr, or nullptr.
const ThreadState* other_stack_thread(uint64_t addr, const ThreadState* self);
// Whether addr is a TLS variable of some measured live thread (see modules_find_tls): `self`
// first, then the others through the FS base each recorded at its start. Async-signal-safe;
// the list walk is bounded, and a thread that exits meanwhile costs at most a failed read.
bool threads_find_tls(uint64_t addr, const ThreadState* self, bool dynamic, StaticHit* out);
// Fork child: keeps only the calling thread, with an empty tree.
void threads_after_fork_child();

}  // namespace hpcrun
