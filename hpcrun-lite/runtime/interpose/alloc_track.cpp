// The out-of-line paths of alloc_track.h: a tracked block's call path, site and address-map
// entry; a block's untracking and the free that follows; which 64 MiB glibc arena heaps exist.
#include "interpose/alloc_track.h"

#include "base/clock.h"
#include "memory/regions.h"
#include "options.h"
#include "process/thread_state.h"
#include "python/py_paths.h"
#include "python/py_probe.h"
#include "process/source_table.h"
#include "unwind/unwind.h"

namespace hpcrun {

__thread BlockInfo t_freeing __attribute__((tls_model("initial-exec")));
__thread uint8_t t_in_alloc __attribute__((tls_model("initial-exec"))) = 0;
__thread uint8_t t_in_mpi_init __attribute__((tls_model("initial-exec"))) = 0;
// The 64 MiB region of the last block this thread received (heap_extent.h).
__thread uint64_t t_arena_base __attribute__((tls_model("initial-exec"))) = 1;

namespace {

std::atomic<uint64_t> g_small_counter_no_state{0};

// Threads without a state (not started through our pthread_create) track one in 64, fixed.
constexpr uint32_t kNoStateEvery = 64;

// The Python interpreter's own small blocks: one in this many of those picked (track_slow).
constexpr uint32_t kPythonOwnEvery = 16;

}  // namespace

bool pick_small_without_state(uint32_t* weight) {
  uint64_t every = g_config.small_every == kSmallEveryAuto ? kNoStateEvery : g_config.small_every;
  if (every == 0) return false;
  *weight = uint32_t(every);
  return g_small_counter_no_state.fetch_add(1, std::memory_order_relaxed) % every == 0;
}

// The controller picked this one.
bool pick_small_slow(uint32_t* weight) {
  ThreadState* ts = t_state;
  *weight = ts->track.weight;
  ts->track.after_tracked(g_config.track, thread_cpu_ns);
  return true;
}

__attribute__((noinline)) void track_slow(void* p, size_t size, hpcl::AllocApi api, uint32_t weight) {
  RuntimeGuard guard;
  if (!guard.entered()) return;
  // The controller prices its budget by what a small block's tracking costs (track_control.h):
  // one in TrackControl::kCheckEvery is timed, from here to the address map's insert.
  ThreadState* timed = t_state;
  if (timed && !(timed->track.time_next && size < g_config.min_bytes)) timed = nullptr;
  const uint64_t t0 = timed ? monotonic_ns() : 0;
  uint64_t frames[kMaxAllocFrames];
  int n;
  // A block the Python interpreter allocates for its own objects (a dict's table, a code
  // object, a list's items) is one variable of the interpreter whatever the path above: its
  // caller alone is its path, and the unwinding through the interpreter's deep native stack is
  // spared (a NumPy program makes tens of thousands of them while it imports).
  // They are one row whatever they hold, so that row needs far fewer of them than the program's
  // own data: of the small ones the controller picks, one in kPythonOwnEvery is tracked, with
  // that much more weight (the tracking budget is for the program's data, issue 34's bound on
  // the profiler's own work: an import of NumPy and mpi4py makes 8,000 of them per process).
  const uint64_t caller = python_target() ? runtime_call_site() : 0;
  if (caller && python_interpreter_code(caller)) {
    if (ThreadState* ts = t_state; ts && size < g_config.min_bytes) {
      if (!ts->track.one_in(kPythonOwnEvery)) return;
      weight *= kPythonOwnEvery;
    }
    frames[0] = caller;
    n = 1;
  } else {
    n = capture_alloc_path(frames, kMaxAllocFrames);
    n = python_alloc_path(frames, n, kMaxAllocFrames);
  }
  settle_adopted_thread();  // a thread started before the runtime finishes its set-up here
  const uint8_t flags = weight > 1 ? hpcl::kSiteSampled : 0;
  ThreadState* ts = t_state;
  uint32_t site = ts ? g_sites.intern_cached(ts->site_cache, uint8_t(api), flags, frames, uint32_t(n))
                     : g_sites.intern(uint8_t(api), flags, frames, uint32_t(n));
  // A full site table or address map: the block stays untracked (its samples go to
  // [untracked heap]) and is counted, META allocs_lost; the program never notices.
  if (site == AllocSites::kNoSite) {
    g_allocs_lost.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  g_sites.count(site, size);
  if (!g_heap.insert(reinterpret_cast<uint64_t>(p), size, site, weight))
    g_allocs_lost.fetch_add(1, std::memory_order_relaxed);
  else if (ts && size < g_config.min_bytes)
    ts->track.note_tracked(reinterpret_cast<uint64_t>(p));  // to tell if it dies young
  if (timed) timed->track.note_cost(monotonic_ns() - t0);
  // Work the handler deferred (the sampled pages waiting for their NUMA node: numa.h), done here
  // before the handler has to.
  if (ts) sources_after_track(ts);
}

bool track_region(HeapMap& map, uint64_t lo, uint64_t len, hpcl::AllocApi api, const char* name,
                  uint32_t name_len) {
  RuntimeGuard guard;
  if (!guard.entered()) return false;
  uint64_t frames[kMaxAllocFrames];
  int n = capture_alloc_path(frames, kMaxAllocFrames);
  uint32_t site = g_sites.intern(uint8_t(api), 0, frames, uint32_t(n), name, name_len);
  if (site == AllocSites::kNoSite || !insert_carved(map, lo, lo + len, site)) {
    g_allocs_lost.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  g_sites.count(site, len);
  return true;
}

__attribute__((noinline)) void note_heap_slow(uint64_t a, uint64_t base) {
  t_arena_base = base;
  if (glibc_block_in_arena_heap(a)) g_heap_extent.add_arena_heap(base);
}

__attribute__((noinline)) void rescan_after_dlopen() {
  RuntimeGuard guard;
  if (guard.entered()) rescan_modules_if_dirty();
}

bool untrack_slow(void* p, BlockInfo* out) {
  auto a = reinterpret_cast<uint64_t>(p);
  RuntimeGuard guard;
  ThreadState* ts = t_state;
  // Records this thread's rings still hold may be of this block: read while the map knows it.
  if (ts) sources_before_forget(ts);
  BlockInfo was;
  if (!g_heap.remove(a, &was)) return false;
  if (ts && was.size < g_config.min_bytes) ts->track.note_freed(a);
  // Names given to parts of the block end with it (regions.h): the address goes back to the
  // allocator, and a name must not claim whatever is allocated there next.
  if (g_named.ever_used()) carve(g_named, was.start, was.start + was.size);
  // What the sources logged of the block's pages is resolved before the block goes back: once
  // unmapped they have no NUMA node (numa.h).
  if (ts) sources_forgotten(ts, was.start, was.start + was.size);
  if (out) *out = was;
  return true;
}

void release_tracked(void* p, const BlockInfo& was, void (*call)(void*, void*), void* ctx) {
  // While the real free reads and writes the block's chunk header and first bytes, the block is
  // no longer in the map (another thread may receive the address at once); samples of this
  // thread there are still the block's (t_freeing, read by this thread's handler). Start last:
  // the handler reads the record only once its start is set.
  t_freeing.size = was.size;
  t_freeing.site = was.site;
  t_freeing.weight = was.weight;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_freeing.start = was.start;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  {
    AllocScope scope;
    call(p, ctx);
  }
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_freeing.start = 0;
}

}  // namespace hpcrun
