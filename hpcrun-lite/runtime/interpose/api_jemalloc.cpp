// jemalloc's own entry points (allocator_apis.h): mallocx, rallocx, xallocx, sdallocx, dallocx,
// and the je_-prefixed names of a build configured with a prefix (Debian's exports none). Blocks
// carry the API `mallocx`. The flags (alignment, zeroing, arena, tcache) go to jemalloc as given.
#include <cstddef>

#include "interpose/alloc_track.h"
#include "interpose/allocator_apis.h"

using hpcl::AllocApi;

namespace hpcrun {
namespace {

enum : int {
  kMallocx, kRallocx, kXallocx, kSdallocx, kDallocx,
  kJeMallocx, kJeRallocx, kJeXallocx, kJeSdallocx, kJeDallocx,
  kJeMalloc, kJeCalloc, kJeRealloc, kJeFree, kJePosixMemalign, kJeAlignedAlloc, kJeMemalign,
  kJeValloc, kCount
};
extern ApiEntry g_api[kCount];

using Mallocx = void* (*)(size_t, int);
using Rallocx = void* (*)(void*, size_t, int);
using Xallocx = size_t (*)(void*, size_t, size_t, int);
using Sdallocx = void (*)(void*, size_t, int);
using Dallocx = void (*)(void*, int);

template <int K>
void* w_mallocx(size_t n, int flags) {
  return allocate(n, AllocApi::Jemalloc, [&] { return real_api<Mallocx>(g_api[K])(n, flags); });
}
template <int K>
void* w_rallocx(void* p, size_t n, int flags) {
  return resize(p, n, AllocApi::Jemalloc, [&] { return real_api<Rallocx>(g_api[K])(p, n, flags); });
}
// Resizes in place and returns the block's new usable size: the same variable, its new size.
template <int K>
size_t w_xallocx(void* p, size_t n, size_t extra, int flags) {
  if (nested_alloc()) return real_api<Xallocx>(g_api[K])(p, n, extra, flags);
  BlockInfo was{};
  bool tracked = p && untrack(p, &was);
  size_t got;
  {
    AllocScope scope;
    got = real_api<Xallocx>(g_api[K])(p, n, extra, flags);
  }
  if (tracked) {
    RuntimeGuard guard;
    g_heap.insert(was.start, got, was.site, was.weight);
  }
  return got;
}
template <int K>
void w_sdallocx(void* p, size_t n, int flags) {
  if (p) release(p, [n, flags](void* q) { real_api<Sdallocx>(g_api[K])(q, n, flags); });
}
template <int K>
void w_dallocx(void* p, int flags) {
  if (p) release(p, [flags](void* q) { real_api<Dallocx>(g_api[K])(q, flags); });
}

void* w_je_malloc(size_t n) {
  return allocate(n, AllocApi::Jemalloc, [&] { return real_api<void* (*)(size_t)>(g_api[kJeMalloc])(n); });
}
void* w_je_calloc(size_t k, size_t n) {
  return allocate(k * n, AllocApi::Jemalloc,
                  [&] { return real_api<void* (*)(size_t, size_t)>(g_api[kJeCalloc])(k, n); });
}
void* w_je_realloc(void* p, size_t n) {
  return resize(p, n, AllocApi::Jemalloc,
                [&] { return real_api<void* (*)(void*, size_t)>(g_api[kJeRealloc])(p, n); });
}
void w_je_free(void* p) {
  if (p) release(p, [](void* q) { real_api<void (*)(void*)>(g_api[kJeFree])(q); });
}
int w_je_posix_memalign(void** out, size_t align, size_t n) {
  return allocate_into(out, n, AllocApi::Jemalloc, [&] {
    return real_api<int (*)(void**, size_t, size_t)>(g_api[kJePosixMemalign])(out, align, n);
  });
}
template <int K>
void* w_je_aligned(size_t align, size_t n) {
  return allocate(n, AllocApi::Jemalloc,
                  [&] { return real_api<void* (*)(size_t, size_t)>(g_api[K])(align, n); });
}
void* w_je_valloc(size_t n) {
  return allocate(n, AllocApi::Jemalloc, [&] { return real_api<void* (*)(size_t)>(g_api[kJeValloc])(n); });
}

ApiEntry g_api[kCount] = {
    {"mallocx", api_fn(w_mallocx<kMallocx>), {}},
    {"rallocx", api_fn(w_rallocx<kRallocx>), {}},
    {"xallocx", api_fn(w_xallocx<kXallocx>), {}},
    {"sdallocx", api_fn(w_sdallocx<kSdallocx>), {}},
    {"dallocx", api_fn(w_dallocx<kDallocx>), {}},
    {"je_mallocx", api_fn(w_mallocx<kJeMallocx>), {}},
    {"je_rallocx", api_fn(w_rallocx<kJeRallocx>), {}},
    {"je_xallocx", api_fn(w_xallocx<kJeXallocx>), {}},
    {"je_sdallocx", api_fn(w_sdallocx<kJeSdallocx>), {}},
    {"je_dallocx", api_fn(w_dallocx<kJeDallocx>), {}},
    {"je_malloc", api_fn(w_je_malloc), {}},
    {"je_calloc", api_fn(w_je_calloc), {}},
    {"je_realloc", api_fn(w_je_realloc), {}},
    {"je_free", api_fn(w_je_free), {}},
    {"je_posix_memalign", api_fn(w_je_posix_memalign), {}},
    {"je_aligned_alloc", api_fn(w_je_aligned<kJeAlignedAlloc>), {}},
    {"je_memalign", api_fn(w_je_aligned<kJeMemalign>), {}},
    {"je_valloc", api_fn(w_je_valloc), {}},
};

}  // namespace

ApiTable jemalloc_api() { return {g_api, kCount}; }

}  // namespace hpcrun
