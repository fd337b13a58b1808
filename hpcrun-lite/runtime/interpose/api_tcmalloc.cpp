// tcmalloc's own entry points (allocator_apis.h): tc_malloc and its C family, tc_new and its
// C++ family, and their frees. Blocks carry the API `tc_malloc`.
#include <cstddef>

#include "interpose/alloc_track.h"
#include "interpose/allocator_apis.h"

using hpcl::AllocApi;

namespace hpcrun {
namespace {

enum : int {
  kMalloc, kMallocSkipNewHandler, kCalloc, kRealloc, kMemalign, kPosixMemalign, kValloc, kPvalloc,
  kFree, kCfree, kFreeSized,
  kNew, kNewArray, kNewNothrow, kNewArrayNothrow, kNewAligned, kNewArrayAligned,
  kNewAlignedNothrow, kNewArrayAlignedNothrow,
  kDelete, kDeleteArray, kDeleteSized, kDeleteArraySized, kDeleteNothrow, kDeleteArrayNothrow,
  kDeleteAligned, kDeleteArrayAligned, kDeleteSizedAligned, kDeleteArraySizedAligned,
  kDeleteAlignedNothrow, kDeleteArrayAlignedNothrow, kCount
};
extern ApiEntry g_api[kCount];

template <typename F>
F real(int k) {
  return real_api<F>(g_api[k]);
}

using Size = void* (*)(size_t);
using SizeNt = void* (*)(size_t, const void*);
using SizeAlign = void* (*)(size_t, size_t);
using SizeAlignNt = void* (*)(size_t, size_t, const void*);

template <int K>
void* w_size(size_t n) {
  return allocate(n, AllocApi::Tcmalloc, [&] { return real<Size>(K)(n); });
}
void* w_calloc(size_t k, size_t n) {
  return allocate(k * n, AllocApi::Tcmalloc, [&] { return real<void* (*)(size_t, size_t)>(kCalloc)(k, n); });
}
void* w_realloc(void* p, size_t n) {
  return resize(p, n, AllocApi::Tcmalloc, [&] { return real<void* (*)(void*, size_t)>(kRealloc)(p, n); });
}
void* w_memalign(size_t align, size_t n) {
  return allocate(n, AllocApi::Tcmalloc, [&] { return real<SizeAlign>(kMemalign)(align, n); });
}
int w_posix_memalign(void** out, size_t align, size_t n) {
  return allocate_into(out, n, AllocApi::Tcmalloc,
                       [&] { return real<int (*)(void**, size_t, size_t)>(kPosixMemalign)(out, align, n); });
}
void* w_pvalloc(size_t n) {
  return allocate((n + 4095) & ~size_t(4095), AllocApi::Tcmalloc, [&] { return real<Size>(kPvalloc)(n); });
}

// tc_new* throw bad_alloc as operator new does (the allocation scope ends in __cxa_throw,
// new_hooks.cpp).
template <int K>
void* w_new_nothrow(size_t n, const void* nt) {
  return allocate(n, AllocApi::Tcmalloc, [&] { return real<SizeNt>(K)(n, nt); });
}
template <int K>
void* w_new_aligned(size_t n, size_t align) {
  return allocate(n, AllocApi::Tcmalloc, [&] { return real<SizeAlign>(K)(n, align); });
}
template <int K>
void* w_new_aligned_nothrow(size_t n, size_t align, const void* nt) {
  return allocate(n, AllocApi::Tcmalloc, [&] { return real<SizeAlignNt>(K)(n, align, nt); });
}

template <int K>
void w_free(void* p) {
  if (p) release(p, [](void* q) { real<void (*)(void*)>(K)(q); });
}
template <int K>
void w_free_x(void* p, size_t x) {
  if (p) release(p, [x](void* q) { real<void (*)(void*, size_t)>(K)(q, x); });
}
template <int K>
void w_free_nt(void* p, const void* nt) {
  if (p) release(p, [nt](void* q) { real<void (*)(void*, const void*)>(K)(q, nt); });
}
template <int K>
void w_free_sized_aligned(void* p, size_t n, size_t align) {
  if (p) release(p, [n, align](void* q) { real<void (*)(void*, size_t, size_t)>(K)(q, n, align); });
}
template <int K>
void w_free_aligned_nt(void* p, size_t align, const void* nt) {
  if (p) release(p, [align, nt](void* q) { real<void (*)(void*, size_t, const void*)>(K)(q, align, nt); });
}

ApiEntry g_api[kCount] = {
    {"tc_malloc", api_fn(w_size<kMalloc>), {}},
    {"tc_malloc_skip_new_handler", api_fn(w_size<kMallocSkipNewHandler>), {}},
    {"tc_calloc", api_fn(w_calloc), {}},
    {"tc_realloc", api_fn(w_realloc), {}},
    {"tc_memalign", api_fn(w_memalign), {}},
    {"tc_posix_memalign", api_fn(w_posix_memalign), {}},
    {"tc_valloc", api_fn(w_size<kValloc>), {}},
    {"tc_pvalloc", api_fn(w_pvalloc), {}},
    {"tc_free", api_fn(w_free<kFree>), {}},
    {"tc_cfree", api_fn(w_free<kCfree>), {}},
    {"tc_free_sized", api_fn(w_free_x<kFreeSized>), {}},
    {"tc_new", api_fn(w_size<kNew>), {}},
    {"tc_newarray", api_fn(w_size<kNewArray>), {}},
    {"tc_new_nothrow", api_fn(w_new_nothrow<kNewNothrow>), {}},
    {"tc_newarray_nothrow", api_fn(w_new_nothrow<kNewArrayNothrow>), {}},
    {"tc_new_aligned", api_fn(w_new_aligned<kNewAligned>), {}},
    {"tc_newarray_aligned", api_fn(w_new_aligned<kNewArrayAligned>), {}},
    {"tc_new_aligned_nothrow", api_fn(w_new_aligned_nothrow<kNewAlignedNothrow>), {}},
    {"tc_newarray_aligned_nothrow", api_fn(w_new_aligned_nothrow<kNewArrayAlignedNothrow>), {}},
    {"tc_delete", api_fn(w_free<kDelete>), {}},
    {"tc_deletearray", api_fn(w_free<kDeleteArray>), {}},
    {"tc_delete_sized", api_fn(w_free_x<kDeleteSized>), {}},
    {"tc_deletearray_sized", api_fn(w_free_x<kDeleteArraySized>), {}},
    {"tc_delete_nothrow", api_fn(w_free_nt<kDeleteNothrow>), {}},
    {"tc_deletearray_nothrow", api_fn(w_free_nt<kDeleteArrayNothrow>), {}},
    {"tc_delete_aligned", api_fn(w_free_x<kDeleteAligned>), {}},
    {"tc_deletearray_aligned", api_fn(w_free_x<kDeleteArrayAligned>), {}},
    {"tc_delete_sized_aligned", api_fn(w_free_sized_aligned<kDeleteSizedAligned>), {}},
    {"tc_deletearray_sized_aligned", api_fn(w_free_sized_aligned<kDeleteArraySizedAligned>), {}},
    {"tc_delete_aligned_nothrow", api_fn(w_free_aligned_nt<kDeleteAlignedNothrow>), {}},
    {"tc_deletearray_aligned_nothrow", api_fn(w_free_aligned_nt<kDeleteArrayAlignedNothrow>), {}},
};

}  // namespace

ApiTable tcmalloc_api() { return {g_api, kCount}; }

}  // namespace hpcrun
