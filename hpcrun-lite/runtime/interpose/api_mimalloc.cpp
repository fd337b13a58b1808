// mimalloc's own entry points (allocator_apis.h): mi_malloc and its family, the heap-explicit
// mi_heap_* forms, the C++ helpers mi_new*, and their frees. Blocks carry the API `mi_malloc`.
// The mi_new* helpers throw bad_alloc as operator new does (the allocation scope ends in
// __cxa_throw, new_hooks.cpp).
//
// Not followed: mi_heap_destroy frees every block of a heap at once; tracked blocks of such a
// heap stay in the address map until their addresses are allocated again.
#include <cstddef>

#include "interpose/alloc_track.h"
#include "interpose/allocator_apis.h"

using hpcl::AllocApi;

namespace hpcrun {
namespace {

enum : int {
  kMalloc, kZalloc, kMallocSmall, kZallocSmall, kCalloc, kMallocn, kRealloc, kReallocn,
  kReallocf, kRezalloc, kRecalloc, kExpand, kMallocAligned, kZallocAligned, kMallocAlignedAt,
  kZallocAlignedAt, kCallocAligned, kCallocAlignedAt, kReallocAligned, kReallocAlignedAt,
  kRezallocAligned, kRezallocAlignedAt, kRecallocAligned, kRecallocAlignedAt, kMemalign,
  kAlignedAlloc, kPosixMemalign, kValloc, kPvalloc, kReallocarray,
  kFree, kCfree, kFreeSize, kFreeAligned, kFreeSizeAligned,
  kNew, kNewNothrow, kNewAligned, kNewAlignedNothrow, kNewN, kNewRealloc, kNewReallocn,
  kHeapMalloc, kHeapZalloc, kHeapMallocSmall, kHeapCalloc, kHeapMallocn, kHeapRealloc,
  kHeapReallocn, kHeapReallocf, kHeapMallocAligned, kHeapZallocAligned, kHeapMallocAlignedAt,
  kHeapZallocAlignedAt, kHeapCallocAligned, kHeapReallocAligned,
  kCount
};
extern ApiEntry g_api[kCount];

template <typename F>
F real(int k) {
  return real_api<F>(g_api[k]);
}

constexpr AllocApi kApi = AllocApi::Mimalloc;

// The forms whose first argument is the size (mi_malloc, mi_malloc_aligned(size, align, ...)).
template <int K, typename... A>
void* w_first(size_t n, A... a) {
  return allocate(n, kApi, [&] { return real<void* (*)(size_t, A...)>(K)(n, a...); });
}
// count * size, then anything (alignment, offset).
template <int K, typename... A>
void* w_counted(size_t count, size_t n, A... a) {
  return allocate(count * n, kApi, [&] { return real<void* (*)(size_t, size_t, A...)>(K)(count, n, a...); });
}
// (align, size): mi_memalign, mi_aligned_alloc.
template <int K>
void* w_align_first(size_t align, size_t n) {
  return allocate(n, kApi, [&] { return real<void* (*)(size_t, size_t)>(K)(align, n); });
}
int w_posix_memalign(void** out, size_t align, size_t n) {
  return allocate_into(out, n, kApi,
                       [&] { return real<int (*)(void**, size_t, size_t)>(kPosixMemalign)(out, align, n); });
}
void* w_pvalloc(size_t n) {
  return allocate((n + 4095) & ~size_t(4095), kApi, [&] { return real<void* (*)(size_t)>(kPvalloc)(n); });
}
// Resizes: (p, size, ...) and (p, count, size, ...).
template <int K, bool FreesOnFail = false, typename... A>
void* w_resize(void* p, size_t n, A... a) {
  return resize(p, n, kApi, [&] { return real<void* (*)(void*, size_t, A...)>(K)(p, n, a...); },
                FreesOnFail);
}
template <int K, typename... A>
void* w_resize_counted(void* p, size_t count, size_t n, A... a) {
  return resize(p, count * n, kApi,
                [&] { return real<void* (*)(void*, size_t, size_t, A...)>(K)(p, count, n, a...); });
}
// The heap-explicit forms: the heap first, then as above.
template <int K, typename... A>
void* w_heap_first(void* heap, size_t n, A... a) {
  return allocate(n, kApi, [&] { return real<void* (*)(void*, size_t, A...)>(K)(heap, n, a...); });
}
template <int K, typename... A>
void* w_heap_counted(void* heap, size_t count, size_t n, A... a) {
  return allocate(count * n, kApi,
                  [&] { return real<void* (*)(void*, size_t, size_t, A...)>(K)(heap, count, n, a...); });
}
template <int K, bool FreesOnFail = false, typename... A>
void* w_heap_resize(void* heap, void* p, size_t n, A... a) {
  return resize(p, n, kApi,
                [&] { return real<void* (*)(void*, void*, size_t, A...)>(K)(heap, p, n, a...); },
                FreesOnFail);
}
template <int K>
void* w_heap_resize_counted(void* heap, void* p, size_t count, size_t n) {
  return resize(p, count * n, kApi,
                [&] { return real<void* (*)(void*, void*, size_t, size_t)>(K)(heap, p, count, n); });
}

template <int K, typename... A>
void w_free(void* p, A... a) {
  if (p) release(p, [a...](void* q) { real<void (*)(void*, A...)>(K)(q, a...); });
}

using Z = size_t;
ApiEntry g_api[kCount] = {
    {"mi_malloc", api_fn(w_first<kMalloc>), {}},
    {"mi_zalloc", api_fn(w_first<kZalloc>), {}},
    {"mi_malloc_small", api_fn(w_first<kMallocSmall>), {}},
    {"mi_zalloc_small", api_fn(w_first<kZallocSmall>), {}},
    {"mi_calloc", api_fn(w_counted<kCalloc>), {}},
    {"mi_mallocn", api_fn(w_counted<kMallocn>), {}},
    {"mi_realloc", api_fn(w_resize<kRealloc>), {}},
    {"mi_reallocn", api_fn(w_resize_counted<kReallocn>), {}},
    {"mi_reallocf", api_fn(w_resize<kReallocf, true>), {}},
    {"mi_rezalloc", api_fn(w_resize<kRezalloc>), {}},
    {"mi_recalloc", api_fn(w_resize_counted<kRecalloc>), {}},
    {"mi_expand", api_fn(w_resize<kExpand>), {}},
    {"mi_malloc_aligned", api_fn(w_first<kMallocAligned, Z>), {}},
    {"mi_zalloc_aligned", api_fn(w_first<kZallocAligned, Z>), {}},
    {"mi_malloc_aligned_at", api_fn(w_first<kMallocAlignedAt, Z, Z>), {}},
    {"mi_zalloc_aligned_at", api_fn(w_first<kZallocAlignedAt, Z, Z>), {}},
    {"mi_calloc_aligned", api_fn(w_counted<kCallocAligned, Z>), {}},
    {"mi_calloc_aligned_at", api_fn(w_counted<kCallocAlignedAt, Z, Z>), {}},
    {"mi_realloc_aligned", api_fn(w_resize<kReallocAligned, false, Z>), {}},
    {"mi_realloc_aligned_at", api_fn(w_resize<kReallocAlignedAt, false, Z, Z>), {}},
    {"mi_rezalloc_aligned", api_fn(w_resize<kRezallocAligned, false, Z>), {}},
    {"mi_rezalloc_aligned_at", api_fn(w_resize<kRezallocAlignedAt, false, Z, Z>), {}},
    {"mi_recalloc_aligned", api_fn(w_resize_counted<kRecallocAligned, Z>), {}},
    {"mi_recalloc_aligned_at", api_fn(w_resize_counted<kRecallocAlignedAt, Z, Z>), {}},
    {"mi_memalign", api_fn(w_align_first<kMemalign>), {}},
    {"mi_aligned_alloc", api_fn(w_align_first<kAlignedAlloc>), {}},
    {"mi_posix_memalign", api_fn(w_posix_memalign), {}},
    {"mi_valloc", api_fn(w_first<kValloc>), {}},
    {"mi_pvalloc", api_fn(w_pvalloc), {}},
    {"mi_reallocarray", api_fn(w_resize_counted<kReallocarray>), {}},
    {"mi_free", api_fn(w_free<kFree>), {}},
    {"mi_cfree", api_fn(w_free<kCfree>), {}},
    {"mi_free_size", api_fn(w_free<kFreeSize, Z>), {}},
    {"mi_free_aligned", api_fn(w_free<kFreeAligned, Z>), {}},
    {"mi_free_size_aligned", api_fn(w_free<kFreeSizeAligned, Z, Z>), {}},
    {"mi_new", api_fn(w_first<kNew>), {}},
    {"mi_new_nothrow", api_fn(w_first<kNewNothrow>), {}},
    {"mi_new_aligned", api_fn(w_first<kNewAligned, Z>), {}},
    {"mi_new_aligned_nothrow", api_fn(w_first<kNewAlignedNothrow, Z>), {}},
    {"mi_new_n", api_fn(w_counted<kNewN>), {}},
    {"mi_new_realloc", api_fn(w_resize<kNewRealloc>), {}},
    {"mi_new_reallocn", api_fn(w_resize_counted<kNewReallocn>), {}},
    {"mi_heap_malloc", api_fn(w_heap_first<kHeapMalloc>), {}},
    {"mi_heap_zalloc", api_fn(w_heap_first<kHeapZalloc>), {}},
    {"mi_heap_malloc_small", api_fn(w_heap_first<kHeapMallocSmall>), {}},
    {"mi_heap_calloc", api_fn(w_heap_counted<kHeapCalloc>), {}},
    {"mi_heap_mallocn", api_fn(w_heap_counted<kHeapMallocn>), {}},
    {"mi_heap_realloc", api_fn(w_heap_resize<kHeapRealloc>), {}},
    {"mi_heap_reallocn", api_fn(w_heap_resize_counted<kHeapReallocn>), {}},
    {"mi_heap_reallocf", api_fn(w_heap_resize<kHeapReallocf, true>), {}},
    {"mi_heap_malloc_aligned", api_fn(w_heap_first<kHeapMallocAligned, Z>), {}},
    {"mi_heap_zalloc_aligned", api_fn(w_heap_first<kHeapZallocAligned, Z>), {}},
    {"mi_heap_malloc_aligned_at", api_fn(w_heap_first<kHeapMallocAlignedAt, Z, Z>), {}},
    {"mi_heap_zalloc_aligned_at", api_fn(w_heap_first<kHeapZallocAlignedAt, Z, Z>), {}},
    {"mi_heap_calloc_aligned", api_fn(w_heap_counted<kHeapCallocAligned, Z>), {}},
    {"mi_heap_realloc_aligned", api_fn(w_heap_resize<kHeapReallocAligned, false, Z>), {}},
};

}  // namespace

ApiTable mimalloc_api() { return {g_api, kCount}; }

}  // namespace hpcrun
