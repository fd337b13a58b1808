// The interposed malloc family: malloc, free, calloc, realloc, reallocarray, memalign,
// posix_memalign, aligned_alloc, valloc, pvalloc. Built from alloc_track.h.
//
// Fast paths first: an allocation below --min-bytes that the thread's tracking controller
// (track_control.h) does not pick costs the allocation scope (two thread-local stores), one
// thread-local decrement and one thread-local compare (the heap-extent check of heap_extent.h)
// beyond the real call; a free of an untracked block costs one relaxed load of the address map's
// filter. Only tracked blocks pay for a call path (unw_backtrace), the site table and the address
// map's writer lock.
#include <malloc.h>

#include <cerrno>
#include <cstring>

#include "interpose/alloc_track.h"
#include "interpose/export.h"

using namespace hpcrun;
using hpcl::AllocApi;

namespace hpcrun {
namespace {

void* realloc_as(void* old, size_t size, AllocApi api) {
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
  return resize(old, size, api, [&] { return real.realloc(old, size); });
}

}  // namespace
}  // namespace hpcrun

extern "C" {

HPCL_EXPORT void* malloc(size_t size) {
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(size, 16);
  if (last_words()) return last_words_alloc(size);
  return allocate(size, AllocApi::Malloc, [&] { return real.malloc(size); });
}

HPCL_EXPORT void free(void* p) {
  if (!p || in_bootstrap_arena(p)) return;
  if (__builtin_expect(early(), 0)) return;  // cannot happen for a real block: it came after
  if (last_words_owns(p)) return last_words_free(p);
  if (last_words()) return;
  release(p, [](void* q) { real.free(q); });
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
    void* p = last_words_alloc(total);
    if (p) memset(p, 0, total);  // a block may come back from a free list
    return p;
  }
  return allocate(n * size, AllocApi::Calloc, [&] { return real.calloc(n, size); });
}

HPCL_EXPORT void* realloc(void* old, size_t size) { return realloc_as(old, size, AllocApi::Realloc); }

HPCL_EXPORT void* reallocarray(void* old, size_t n, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(n, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc_as(old, total, AllocApi::ReallocArray);
}

HPCL_EXPORT void* memalign(size_t align, size_t size) {
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(size, align);
  if (last_words()) return last_words_alloc(size, align);
  return allocate(size, AllocApi::Memalign, [&] { return real.memalign(align, size); });
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
  return allocate_into(out, size, AllocApi::PosixMemalign,
                       [&] { return real.posix_memalign(out, align, size); });
}

HPCL_EXPORT void* aligned_alloc(size_t align, size_t size) {
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(size, align);
  if (last_words()) return last_words_alloc(size, align);
  return allocate(size, AllocApi::AlignedAlloc, [&] { return real.aligned_alloc(align, size); });
}

HPCL_EXPORT void* valloc(size_t size) {
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(size, 4096);
  if (last_words()) return last_words_alloc(size, 4096);
  return allocate(size, AllocApi::Valloc, [&] { return real.valloc(size); });
}

HPCL_EXPORT void* pvalloc(size_t size) {
  size_t rounded = (size + 4095) & ~size_t(4095);  // pvalloc's size: whole pages
  if (__builtin_expect(early(), 0)) return bootstrap_alloc(rounded, 4096);
  if (last_words()) return last_words_alloc(rounded, 4096);
  if (!real.pvalloc) return valloc(rounded);
  return allocate(rounded, AllocApi::Pvalloc, [&] { return real.pvalloc(size); });
}

}  // extern "C"
