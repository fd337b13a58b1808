// The interposed allocation functions: the malloc family, C++ operator new, and anonymous mmap.
//
// Fast paths first: an allocation below --min-bytes that the thread's tracking controller
// (track_control.h) does not pick costs one thread-local decrement and one thread-local compare
// (the heap-extent check of heap_extent.h) beyond the real call; a free of an untracked block
// costs one relaxed load of the address map's filter. Only tracked blocks pay for a call path
// (unw_backtrace), the site table and the address map's writer lock.
//
// operator new forwards to the real libstdc++ operator new (so new_handler and bad_alloc behave
// exactly as without us) after leaving a per-thread hint that the malloc it calls comes from new.
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstring>
#include <new>

#include "base/clock.h"
#include "base/guard.h"
#include "base/real_fns.h"
#include "hpcl/profile.h"
#include "memory/last_words_heap.h"
#include "options.h"
#include "process/runtime.h"
#include "process/thread_state.h"
#include "sources/soft/sampler.h"
#include "trees/unwind.h"

#define HPCL_EXPORT __attribute__((visibility("default")))

namespace hpcrun {

__thread int t_in_runtime __attribute__((tls_model("initial-exec"))) = 0;
__thread BlockInfo t_freeing __attribute__((tls_model("initial-exec")));

namespace {

using hpcl::AllocApi;

__thread uint8_t t_api_hint __attribute__((tls_model("initial-exec"))) = 0;
// The 64 MiB region of the last block this thread received (heap_extent.h).
__thread uint64_t t_arena_base __attribute__((tls_model("initial-exec"))) = 1;
std::atomic<uint64_t> g_small_counter_no_state{0};

inline AllocApi take_api(AllocApi plain) {
  uint8_t h = t_api_hint;
  if (h) {
    t_api_hint = 0;
    return AllocApi(h);
  }
  return plain;
}

// The hint is for the malloc that the real operator new calls; a C++ allocator that does not
// call malloc (tcmalloc, a pool library) leaves it unused, and it must not label the program's
// next malloc.
inline void* after_new(void* p) {
  t_api_hint = 0;
  return p;
}

inline void hint(AllocApi api) {
  // Inner operator new calls (operator new[] calls operator new) keep the outer hint; the
  // runtime's own C++ allocations are not the program's and leave no hint.
  if (!t_api_hint && !t_in_runtime) t_api_hint = uint8_t(api);
}

// Threads without a state (not started through our pthread_create) track one in 64, fixed.
constexpr uint32_t kNoStateEvery = 64;

// Whether this small allocation is tracked, and with which weight (1/p).
inline bool pick_small(uint32_t* weight) {
  ThreadState* ts = t_state;
  if (__builtin_expect(!ts, 0)) {
    uint64_t every = g_config.small_every == kSmallEveryAuto ? kNoStateEvery : g_config.small_every;
    if (every == 0) return false;
    *weight = uint32_t(every);
    return g_small_counter_no_state.fetch_add(1, std::memory_order_relaxed) % every == 0;
  }
  if (__builtin_expect(!ts->track.pick(), 1)) return false;
  *weight = ts->track.weight;
  ts->track.after_tracked(g_config.track, monotonic_ns);
  return true;
}

__attribute__((noinline)) void track_slow(void* p, size_t size, AllocApi api, uint32_t weight) {
  RuntimeGuard guard;
  if (!guard.entered()) return;
  uint64_t frames[kMaxAllocFrames];
  int n = capture_alloc_path(frames, kMaxAllocFrames);
  settle_adopted_thread();  // a thread started before the runtime finishes its set-up here
  uint32_t site = g_sites.intern(uint8_t(api), weight > 1 ? hpcl::kSiteSampled : 0, frames, uint32_t(n));
  // A full site table or address map: the block stays untracked (its samples go to
  // [untracked heap]) and is counted, META allocs_lost; the program never notices.
  if (site == AllocSites::kNoSite) {
    g_allocs_lost.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  g_sites.count(site, size);
  if (!g_heap.insert(reinterpret_cast<uint64_t>(p), size, site, weight))
    g_allocs_lost.fetch_add(1, std::memory_order_relaxed);
  // The sampled pages waiting for their NUMA node: resolved here, outside the signal handler,
  // before the handler has to (numa.h).
  if (ThreadState* ts = t_state; ts && ts->numa.half_full()) sampler_numa_flush(ts);
}

__attribute__((noinline)) void note_heap_slow(uint64_t a, uint64_t base) {
  t_arena_base = base;
  if (glibc_block_in_arena_heap(a)) g_heap_extent.add_arena_heap(base);
}

// Every block malloc returns: is it in a 64 MiB arena heap we have not seen yet?
inline void note_heap(void* p) {
  auto a = reinterpret_cast<uint64_t>(p);
  uint64_t base = a & ~(HeapExtent::kArenaHeap - 1);
  if (__builtin_expect(base != t_arena_base, 0)) note_heap_slow(a, base);
}

__attribute__((noinline)) void rescan_after_dlopen() {
  RuntimeGuard guard;
  if (guard.entered()) rescan_modules_if_dirty();
}

inline void track(void* p, size_t size, AllocApi api) {
  if (!p) return;
  note_heap(p);
  if (t_in_runtime || !g_tracking.load(std::memory_order_relaxed)) return;
  if (__builtin_expect(g_modules_dirty.load(std::memory_order_relaxed), 0)) rescan_after_dlopen();
  uint32_t weight = 1;
  if (size < g_config.min_bytes && !pick_small(&weight)) return;
  track_slow(p, size, api, weight);
}

// Forgets a block before the real free/realloc gives its address back to the allocator, where
// another thread could receive and track it at once.
inline bool untrack(void* p, BlockInfo* out = nullptr) {
  auto a = reinterpret_cast<uint64_t>(p);
  if (!g_heap.maybe_tracked(a)) return false;
  RuntimeGuard guard;
  if (!g_heap.remove(a, out)) return false;
  // Sampled pages of a block must be placed before the block goes back: once unmapped they have
  // no node (numa.h). This thread's log only; another thread's samples of the block are placed
  // at its own next flush and come out unresolved if the pages are gone by then.
  if (ThreadState* ts = t_state; ts && ts->numa.size()) sampler_numa_flush(ts);
  return true;
}

// One load on the fast path; the table is resolved once, on the first call of any wrapper.
inline bool early() {
  if (__builtin_expect(g_real_state.load(std::memory_order_acquire) == 2, 1)) return false;
  resolve_real_fns();
  return real_fns_resolving();
}

// The profile writer of an ending process allocates from its own heap (last_words_heap.h).
inline bool last_words() { return __builtin_expect(t_last_words, 0); }

void* last_words_realloc(void* old, size_t size) {
  void* p = last_words_alloc(size);
  if (p && old && last_words_owns(old)) {
    size_t n = last_words_size(old);
    memcpy(p, old, n < size ? n : size);
  }
  // A block of the real allocator is left where it is (see last_words_heap.h): its bytes
  // cannot be copied without its size, and no runtime code reallocates one at exit.
  return p;
}

}  // namespace
}  // namespace hpcrun

using namespace hpcrun;
using hpcl::AllocApi;

extern "C" {

HPCL_EXPORT void* malloc(size_t size) {
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(size, 16);
  if (last_words()) return last_words_alloc(size);
  void* p = real.malloc(size);
  track(p, size, take_api(AllocApi::Malloc));
  return p;
}

HPCL_EXPORT void free(void* p) {
  if (!p || in_bootstrap_arena(p)) return;
  if (__builtin_expect(early(), 0)) return;  // cannot happen for a real block: it came after
  if (last_words() || last_words_owns(p)) return;
  // Inside the runtime on this thread: a program's signal handler interrupted it, maybe while
  // it holds the address map's lock (deferred_free.h).
  if (__builtin_expect(t_in_runtime, 0) && g_heap.maybe_tracked(reinterpret_cast<uint64_t>(p))) {
    defer_free(p);
    return;
  }
  BlockInfo was;
  if (!untrack(p, &was)) {
    real.free(p);
    return;
  }
  // While the real free() reads and writes the block's chunk header and first bytes, the
  // block is no longer in the map (another thread may receive the address at once); samples
  // of this thread there are still the block's (t_freeing, read by this thread's handler).
  // Start last: the handler reads the record only once its start is set.
  t_freeing.size = was.size;
  t_freeing.site = was.site;
  t_freeing.weight = was.weight;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_freeing.start = was.start;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  real.free(p);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_freeing.start = 0;
}

HPCL_EXPORT void* calloc(size_t n, size_t size) {
  if (__builtin_expect(early(), 0)) {
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) return nullptr;
    return bootstrap_alloc(total, 16);  // static memory: already zero
  }
  if (last_words()) {
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) return nullptr;
    return last_words_alloc(total);  // fresh mmap'd pages: already zero
  }
  void* p = real.calloc(n, size);
  track(p, n * size, take_api(AllocApi::Calloc));
  return p;
}

HPCL_EXPORT void* realloc(void* old, size_t size) {
  if (in_bootstrap_arena(old) || __builtin_expect(early(), 0)) {
    void* p = early() ? bootstrap_alloc(size, 16) : malloc(size);
    if (p && old) {
      size_t n = bootstrap_size(old);
      memcpy(p, old, n < size ? n : size);
    }
    return p;
  }
  if (last_words() || (old && last_words_owns(old))) return last_words_realloc(old, size);
  if (__builtin_expect(t_in_runtime, 0) && old &&
      g_heap.maybe_tracked(reinterpret_cast<uint64_t>(old))) {
    // As in free(): a new block, the old one freed once the thread leaves the runtime.
    if (size == 0) {
      defer_free(old);
      return nullptr;
    }
    void* p = real.malloc(size);
    if (!p) return nullptr;  // the old block stays valid, as realloc leaves it on failure
    size_t have = malloc_usable_size(old);
    memcpy(p, old, have < size ? have : size);
    (void)defer_free(old);  // when the list is full the old block is leaked, never freed twice
    return p;
  }
  AllocApi api = take_api(AllocApi::Realloc);
  BlockInfo was{};
  bool tracked = old && untrack(old, &was);
  void* p = real.realloc(old, size);
  if (tracked && (p == old || (!p && size != 0))) {
    // Resized in place, the same variable: no new call path. Failed: the old block is still
    // valid and stays tracked as it was.
    RuntimeGuard guard;
    g_heap.insert(was.start, p ? size : was.size, was.site, was.weight);
    return p;
  }
  track(p, size, api);
  return p;
}

HPCL_EXPORT void* reallocarray(void* old, size_t n, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(n, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  t_api_hint = uint8_t(AllocApi::ReallocArray);
  return realloc(old, total);
}

HPCL_EXPORT void* memalign(size_t align, size_t size) {
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(size, align);
  if (last_words()) return last_words_alloc(size, align);
  void* p = real.memalign(align, size);
  track(p, size, take_api(AllocApi::Memalign));
  return p;
}

HPCL_EXPORT int posix_memalign(void** out, size_t align, size_t size) {
  if (__builtin_expect(early(), 0)) {
    *out = bootstrap_alloc(size, align);
    return *out ? 0 : ENOMEM;
  }
  if (last_words()) {
    void* p = last_words_alloc(size, align);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
  }
  int rc = real.posix_memalign(out, align, size);
  if (rc == 0) track(*out, size, take_api(AllocApi::PosixMemalign));
  return rc;
}

HPCL_EXPORT void* aligned_alloc(size_t align, size_t size) {
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(size, align);
  if (last_words()) return last_words_alloc(size, align);
  void* p = real.aligned_alloc(align, size);
  track(p, size, take_api(AllocApi::AlignedAlloc));
  return p;
}

HPCL_EXPORT void* valloc(size_t size) {
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(size, 4096);
  if (last_words()) return last_words_alloc(size, 4096);
  void* p = real.valloc(size);
  track(p, size, take_api(AllocApi::Valloc));
  return p;
}

HPCL_EXPORT void* pvalloc(size_t size) {
  size_t rounded = (size + 4095) & ~size_t(4095);  // pvalloc's size: whole pages
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(rounded, 4096);
  if (last_words()) return last_words_alloc(rounded, 4096);
  if (!real.pvalloc) return valloc(rounded);
  void* p = real.pvalloc(size);
  track(p, rounded, take_api(AllocApi::Pvalloc));
  return p;
}

// Large anonymous regions the program maps itself are variables too, named by the call path of
// the mmap. glibc's malloc maps through an internal alias and never reaches this wrapper.
HPCL_EXPORT void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  ensure_real_fns();
  void* p = real.mmap(addr, len, prot, flags, fd, off);
  if (p == MAP_FAILED || t_in_runtime || !g_tracking.load(std::memory_order_relaxed)) return p;
  if (flags & MAP_FIXED) {
    RuntimeGuard guard;  // whatever was mapped there before is gone
    auto a = reinterpret_cast<uint64_t>(p);
    g_heap.remove_range(a, a + len);
  }
  if ((flags & MAP_ANONYMOUS) && !(flags & MAP_STACK) && (prot & (PROT_READ | PROT_WRITE)) &&
      len >= g_config.min_bytes)
    track(p, len, AllocApi::Mmap);
  return p;
}

HPCL_EXPORT void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mmap(addr, len, prot, flags, fd, off);
}

HPCL_EXPORT int munmap(void* addr, size_t len) {
  ensure_real_fns();
  if (!t_in_runtime && g_heap.size() > 0) {
    RuntimeGuard guard;
    auto a = reinterpret_cast<uint64_t>(addr);
    g_heap.remove_range(a, a + len);
  }
  return real.munmap(addr, len);
}

HPCL_EXPORT void* mremap(void* old, size_t old_len, size_t new_len, int flags, ...) {
  ensure_real_fns();
  void* new_addr = nullptr;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    new_addr = va_arg(ap, void*);
    va_end(ap);
  }
  BlockInfo was{};
  bool tracked = !t_in_runtime && untrack(old, &was);
  void* p = (flags & MREMAP_FIXED) ? real.mremap(old, old_len, new_len, flags, new_addr)
                                   : real.mremap(old, old_len, new_len, flags);
  if (tracked) {
    RuntimeGuard guard;  // the same variable, maybe moved and resized
    if (p != MAP_FAILED) g_heap.insert(reinterpret_cast<uint64_t>(p), new_len, was.site, was.weight);
    else g_heap.insert(was.start, was.size, was.site, was.weight);
  }
  return p;
}

}  // extern "C"

// C++ allocation: see the file comment. The nothrow_t and align_val_t objects are passed on.
HPCL_EXPORT void* operator new(size_t n) {
  ensure_real_fns();
  hint(AllocApi::New);
  return after_new(real.op_new(n));
}
HPCL_EXPORT void* operator new[](size_t n) {
  ensure_real_fns();
  hint(AllocApi::NewArray);
  return after_new(real.op_new_array(n));
}
HPCL_EXPORT void* operator new(size_t n, const std::nothrow_t& nt) noexcept {
  ensure_real_fns();
  hint(AllocApi::New);
  return after_new(real.op_new_nothrow(n, &nt));
}
HPCL_EXPORT void* operator new[](size_t n, const std::nothrow_t& nt) noexcept {
  ensure_real_fns();
  hint(AllocApi::NewArray);
  return after_new(real.op_new_array_nothrow(n, &nt));
}
HPCL_EXPORT void* operator new(size_t n, std::align_val_t a) {
  ensure_real_fns();
  hint(AllocApi::NewAligned);
  return after_new(real.op_new_aligned(n, size_t(a)));
}
HPCL_EXPORT void* operator new[](size_t n, std::align_val_t a) {
  ensure_real_fns();
  hint(AllocApi::NewArrayAligned);
  return after_new(real.op_new_array_aligned(n, size_t(a)));
}
HPCL_EXPORT void* operator new(size_t n, std::align_val_t a, const std::nothrow_t& nt) noexcept {
  ensure_real_fns();
  hint(AllocApi::NewAligned);
  return after_new(real.op_new_aligned_nothrow(n, size_t(a), &nt));
}
HPCL_EXPORT void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t& nt) noexcept {
  ensure_real_fns();
  hint(AllocApi::NewArrayAligned);
  return after_new(real.op_new_array_aligned_nothrow(n, size_t(a), &nt));
}
