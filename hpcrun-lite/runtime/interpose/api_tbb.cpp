// TBB's scalable allocator (allocator_apis.h): scalable_malloc and its family. Blocks carry the
// API `scalable_malloc`. tbbmalloc_proxy's malloc calls scalable_malloc through its GOT; inside
// the allocation scope of the malloc interposer that call passes through, so the block is
// tracked once, as `malloc`. Without the proxy free() cannot take these blocks, so a free made
// while the thread is inside the runtime is not deferred to it (alloc_track.h, release()).
#include <cstddef>

#include "interpose/alloc_track.h"
#include "interpose/allocator_apis.h"

using hpcl::AllocApi;

namespace hpcrun {
namespace {

enum : int {
  kMalloc, kCalloc, kRealloc, kFree, kPosixMemalign, kAlignedMalloc, kAlignedRealloc,
  kAlignedFree, kCount
};
extern ApiEntry g_api[kCount];

template <typename F>
F real(int k) {
  return real_api<F>(g_api[k]);
}

void* w_malloc(size_t n) {
  return allocate(n, AllocApi::Tbbmalloc, [&] { return real<void* (*)(size_t)>(kMalloc)(n); });
}
void* w_calloc(size_t k, size_t n) {
  return allocate(k * n, AllocApi::Tbbmalloc, [&] { return real<void* (*)(size_t, size_t)>(kCalloc)(k, n); });
}
void* w_realloc(void* p, size_t n) {
  return resize(p, n, AllocApi::Tbbmalloc, [&] { return real<void* (*)(void*, size_t)>(kRealloc)(p, n); });
}
int w_posix_memalign(void** out, size_t align, size_t n) {
  return allocate_into(out, n, AllocApi::Tbbmalloc,
                       [&] { return real<int (*)(void**, size_t, size_t)>(kPosixMemalign)(out, align, n); });
}
void* w_aligned_malloc(size_t n, size_t align) {
  return allocate(n, AllocApi::Tbbmalloc,
                  [&] { return real<void* (*)(size_t, size_t)>(kAlignedMalloc)(n, align); });
}
void* w_aligned_realloc(void* p, size_t n, size_t align) {
  return resize(p, n, AllocApi::Tbbmalloc,
                [&] { return real<void* (*)(void*, size_t, size_t)>(kAlignedRealloc)(p, n, align); });
}
template <int K>
void w_free(void* p) {
  if (p) release(p, [](void* q) { real<void (*)(void*)>(K)(q); }, /*deferrable=*/false);
}

ApiEntry g_api[kCount] = {
    {"scalable_malloc", api_fn(w_malloc), {}},
    {"scalable_calloc", api_fn(w_calloc), {}},
    {"scalable_realloc", api_fn(w_realloc), {}},
    {"scalable_free", api_fn(w_free<kFree>), {}},
    {"scalable_posix_memalign", api_fn(w_posix_memalign), {}},
    {"scalable_aligned_malloc", api_fn(w_aligned_malloc), {}},
    {"scalable_aligned_realloc", api_fn(w_aligned_realloc), {}},
    {"scalable_aligned_free", api_fn(w_free<kAlignedFree>), {}},
};

}  // namespace

ApiTable tbb_api() { return {g_api, kCount}; }

}  // namespace hpcrun
