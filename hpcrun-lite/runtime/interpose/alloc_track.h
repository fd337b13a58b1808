// What every allocation interposer shares: the allocation scope, and tracking a block in and out
// of the address map. The malloc family (alloc_hooks.cpp), operator new and delete
// (new_hooks.cpp), the allocators' own entry points (allocator_apis.cpp) and the mappings
// (map_hooks.cpp) are all built from these.
//
// The allocation scope. Allocation functions call one another: libstdc++'s operator new calls
// malloc, tbbmalloc_proxy's malloc calls scalable_malloc, and every allocator maps its arenas
// with mmap. Only the outermost call is the program's; what it calls on the way is the
// allocator's. So the outermost interposer sets t_in_alloc *before* the real call and clears it
// after, and every interposer that finds it set passes straight through: no block is tracked
// twice (operator new and the malloc under it), and a mapping made inside an allocation is the
// allocator's arena, never a variable of the program. Unlike the runtime guard (guard.h), the
// scope does not mark samples: time inside malloc is the program's.
//
// An exception may leave a real call made inside the scope (operator new's bad_alloc, or what a
// new_handler throws), and the runtime has no landing pads to clear the flag on the way out:
// the interposed __cxa_throw and __cxa_rethrow clear it instead (new_hooks.cpp). A throw caught
// inside the scope clears it early; the outermost interposer clears it on return all the same.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "base/guard.h"
#include "base/real_fns.h"
#include "hpcl/ids.h"
#include "memory/heap_map.h"
#include "memory/last_words_heap.h"
#include "process/runtime.h"
#include "process/thread_state.h"

namespace hpcrun {

extern __thread uint8_t t_in_alloc __attribute__((tls_model("initial-exec")));
// Set while this thread is inside MPI_Init (interpose/mpi_init_hooks.cpp): its small blocks are then
// tracked one in 64 with weight 64, as a thread without a state tracks them. Open MPI's
// initialisation makes ~29,000 small allocations on ~20,000 call paths, all of them the MPI
// runtime's (its group row): tracking each one was ~45 ms of a LAMMPS rank's ~80 ms start-up.
extern __thread uint8_t t_in_mpi_init __attribute__((tls_model("initial-exec")));

class AllocScope {
 public:
  AllocScope() : outer_(t_in_alloc == 0) { t_in_alloc = 1; }
  ~AllocScope() {
    if (outer_) t_in_alloc = 0;
  }
  AllocScope(const AllocScope&) = delete;
  AllocScope& operator=(const AllocScope&) = delete;

 private:
  bool outer_;
};

// Inside an allocation interposer's real call: pass through.
inline bool nested_alloc() { return __builtin_expect(t_in_alloc != 0, 0); }

// One load on the fast path; the table is resolved once, on the first call of any wrapper.
// True while the table is being resolved: the caller serves the request from the bootstrap arena.
inline bool early() {
  if (__builtin_expect(g_real_state.load(std::memory_order_acquire) == 2, 1)) return false;
  resolve_real_fns();
  return real_fns_resolving();
}

// The profile writer of an ending process allocates from its own heap (last_words_heap.h).
inline bool last_words() { return __builtin_expect(t_last_words, 0); }

// The slow paths, out of line.
void track_slow(void* p, size_t size, hpcl::AllocApi api, uint32_t weight);
void note_heap_slow(uint64_t a, uint64_t base);
void rescan_after_dlopen();
bool pick_small_slow(uint32_t* weight);
bool pick_small_without_state(uint32_t* weight);
bool untrack_slow(void* p, BlockInfo* out);
extern __thread uint64_t t_arena_base __attribute__((tls_model("initial-exec")));

// Whether this small allocation is tracked, and with which weight (1/p): the thread's controller
// (track_control.h) decides; its common answer, no, costs a decrement.
inline bool pick_small(uint32_t* weight) {
  ThreadState* ts = t_state;
  if (__builtin_expect(!ts || t_in_mpi_init, 0)) return pick_small_without_state(weight);
  if (__builtin_expect(!ts->track.pick(), 1)) return false;
  return pick_small_slow(weight);
}

// Every block an allocator returns: is it in a 64 MiB glibc arena heap not seen yet
// (heap_extent.h)?
inline void note_heap(void* p) {
  auto a = reinterpret_cast<uint64_t>(p);
  uint64_t base = a & ~(HeapExtent::kArenaHeap - 1);
  if (__builtin_expect(base != t_arena_base, 0)) note_heap_slow(a, base);
}

// A block the program received from an allocation API: tracked when large enough or picked by
// the thread's controller (track_control.h).
inline void track(void* p, size_t size, hpcl::AllocApi api) {
  if (!p) return;
  note_heap(p);
  if (t_in_runtime || !g_tracking.load(std::memory_order_relaxed)) return;
  if (__builtin_expect(g_modules_dirty.load(std::memory_order_relaxed), 0)) rescan_after_dlopen();
  uint32_t weight = 1;
  if (size < g_config.min_bytes && !pick_small(&weight)) return;
  track_slow(p, size, api, weight);
}

// A range of a region map (regions.h): a mapping of the program (g_maps) or a named range
// (g_named), always tracked, its site (api, call path, name) and bytes counted. The caller checked
// that tracking is on and that it is not inside the runtime. False when the site table or the
// map is full (counted in META allocs_lost).
bool track_region(HeapMap& map, uint64_t lo, uint64_t len, hpcl::AllocApi api, const char* name,
                  uint32_t name_len);

// Forgets a block before the real free/realloc gives its address back to the allocator, where
// another thread could receive and track it at once. One load for a block never tracked.
inline bool untrack(void* p, BlockInfo* out = nullptr) {
  if (!g_heap.maybe_tracked(reinterpret_cast<uint64_t>(p))) return false;
  return untrack_slow(p, out);
}

// Async-signal-unsafe paths of a free: see release().
void release_tracked(void* p, const BlockInfo& was, void (*call)(void*, void*), void* ctx);

// The free of any allocation API: untracks the block, then `free_fn(p)` gives it back. A free
// that a program's signal handler makes while its thread is inside the runtime is deferred
// (deferred_free.h) when `deferrable`: the deferred block is later handed to free(), which is
// right for every API whose blocks free() takes (all but TBB's scalable_* without its proxy).
template <typename F>
inline void release(void* p, F&& free_fn, bool deferrable = true) {
  if (__builtin_expect(t_in_runtime, 0) && g_heap.maybe_tracked(reinterpret_cast<uint64_t>(p))) {
    // Maybe holding the address map's lock (deferred_free.h): untracking here could hang. When
    // the list is full the block is leaked, never freed behind the map's back.
    if (deferrable) {
      (void)defer_free(p);
      return;
    }
    free_fn(p);  // the map keeps a stale entry until the address is tracked again
    return;
  }
  BlockInfo was;
  // No allocation scope on a free's fast path: what an allocator maps while it frees is found
  // as its own by the mapping's caller (map_hooks.cpp), and the two stores cost 10% of a
  // tcmalloc free.
  if (!untrack(p, &was)) {
    free_fn(p);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  release_tracked(p, was, [](void* q, void* ctx) { (*static_cast<Fn*>(ctx))(q); },
                  const_cast<void*>(static_cast<const void*>(&free_fn)));
}

// The realloc of any allocation API: `resize()` returns the new block (or null). `frees_on_fail`:
// the API frees the old block when it fails (mi_reallocf).
template <typename F>
inline void* resize(void* old, size_t size, hpcl::AllocApi api, F&& resize_fn,
                    bool frees_on_fail = false) {
  if (nested_alloc()) return resize_fn();
  BlockInfo was{};
  bool tracked = old && untrack(old, &was);
  void* p;
  {
    AllocScope scope;
    p = resize_fn();
  }
  if (tracked && (p == old || (!p && size != 0 && !frees_on_fail))) {
    // Resized in place, the same variable: no new call path. Failed: the old block is still
    // valid and stays tracked as it was.
    RuntimeGuard guard;
    g_heap.insert(was.start, p ? size : was.size, was.site, was.weight);
    return p;
  }
  track(p, size, api);
  return p;
}

// An allocation of `size` bytes by `alloc_fn()`, tracked with `api` unless nested.
template <typename F>
inline void* allocate(size_t size, hpcl::AllocApi api, F&& alloc_fn) {
  if (nested_alloc()) return alloc_fn();
  t_in_alloc = 1;  // the outermost call: the scope without its bookkeeping
  void* p = alloc_fn();
  t_in_alloc = 0;
  track(p, size, api);
  return p;
}

// A posix_memalign-like API: `call()` returns 0 and stores the block in *out, or an error.
template <typename F>
inline int allocate_into(void** out, size_t size, hpcl::AllocApi api, F&& call) {
  int rc = 0;
  allocate(size, api, [&]() -> void* {
    rc = call();
    return rc == 0 ? *out : nullptr;
  });
  return rc;
}

}  // namespace hpcrun
