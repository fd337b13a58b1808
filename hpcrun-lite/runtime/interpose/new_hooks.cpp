// C++ operator new and operator delete, every variant (plain, array, nothrow, aligned, sized),
// tracked in their own right: tcmalloc's, jemalloc's, mimalloc's and tbbmalloc_proxy's operator
// new never call malloc, so a block from new is tracked here, with the API the program used.
// libstdc++'s does call malloc; that malloc runs inside the allocation scope (alloc_track.h) and
// passes through, so the block is tracked once. The real functions are the next definitions
// after the runtime (the allocator's, else libstdc++'s), so new_handler, bad_alloc and a
// program's own replacement behave as without the tool.
//
// A bad_alloc (or what the program's new_handler throws) leaves the real call through the
// interposed __cxa_throw below, which ends the allocation scope (alloc_track.h).
//
// When the real operators are libstdc++'s (no allocator or library replaced them), what they do
// is known: new is malloc, then the new_handler loop and bad_alloc when malloc fails; every
// delete is free. Then new calls the real malloc and delete the real free directly, and only a
// failed malloc goes to libstdc++'s new: the hops through libstdc++ and back through the malloc
// interposer would make the pair of a glibc program 60% slower (bench/bm_alloc, BM_NewDelete).
#include <cstring>
#include <new>

#include "interpose/alloc_track.h"
#include "interpose/export.h"
#include "loader/modules.h"

using hpcl::AllocApi;

namespace hpcrun {
namespace {

// 0: not known yet (the module registry is filled at start-up); 1: the real plain, array and
// nothrow operators new and every operator delete are libstdc++'s; 2: some are another's.
std::atomic<int> g_libstdcxx{0};

bool in_libstdcxx(const void* fn) {
  const ModuleEntry* m = fn ? module_get(modules_find_code(reinterpret_cast<uint64_t>(fn))) : nullptr;
  if (!m) return false;
  const char* slash = strrchr(m->path, '/');
  return strncmp(slash ? slash + 1 : m->path, "libstdc++", 9) == 0;
}

bool libstdcxx_operators() {
  int known = g_libstdcxx.load(std::memory_order_relaxed);
  if (__builtin_expect(known != 0, 1)) return known == 1;
  if (!g_tracking.load(std::memory_order_acquire)) return false;
  bool all = true;
  for (const void* fn : {(const void*)real.op_new, (const void*)real.op_new_array,
                         (const void*)real.op_new_nothrow, (const void*)real.op_new_array_nothrow,
                         (const void*)real.op_delete, (const void*)real.op_delete_array,
                         (const void*)real.op_delete_sized, (const void*)real.op_delete_array_sized,
                         (const void*)real.op_delete_nothrow, (const void*)real.op_delete_array_nothrow,
                         (const void*)real.op_delete_aligned, (const void*)real.op_delete_array_aligned,
                         (const void*)real.op_delete_sized_aligned,
                         (const void*)real.op_delete_array_sized_aligned,
                         (const void*)real.op_delete_aligned_nothrow,
                         (const void*)real.op_delete_array_aligned_nothrow})
    all = all && in_libstdcxx(fn);
  g_libstdcxx.store(all ? 1 : 2, std::memory_order_relaxed);
  return all;
}

template <typename Throwing>
void* new_impl(size_t n, size_t align, AllocApi api, Throwing throwing) {
  ensure_real_fns();
  if (last_words()) return last_words_alloc(n, align < 16 ? 16 : align);
  if (align <= 16 && !nested_alloc() && libstdcxx_operators()) {
    void* p = allocate(n, api, [n] { return real.malloc(n ? n : 1); });
    if (p) return p;
  }
  return allocate(n, api, throwing);
}

template <typename Nothrow>
void* new_nothrow_impl(size_t n, size_t align, AllocApi api, Nothrow nothrow) {
  ensure_real_fns();
  if (last_words()) return last_words_alloc(n, align < 16 ? 16 : align);
  if (align <= 16 && !nested_alloc() && libstdcxx_operators()) {
    void* p = allocate(n, api, [n] { return real.malloc(n ? n : 1); });
    if (p) return p;
  }
  return allocate(n, api, nothrow);
}

// Every delete: the block leaves the map before the real delete hands it back.
template <typename F>
void delete_impl(void* p, F real_delete) {
  if (!p || in_bootstrap_arena(p)) return;
  ensure_real_fns();
  if (last_words_owns(p)) return last_words_free(p);
  if (last_words()) return;
  if (libstdcxx_operators())
    release(p, [](void* q) { real.free(q); });
  else
    release(p, real_delete);
}

}  // namespace
}  // namespace hpcrun

using namespace hpcrun;

HPCL_EXPORT void* operator new(size_t n) {
  return new_impl(n, 16, AllocApi::New, [&] { return real.op_new(n); });
}
HPCL_EXPORT void* operator new[](size_t n) {
  return new_impl(n, 16, AllocApi::NewArray, [&] { return real.op_new_array(n); });
}
HPCL_EXPORT void* operator new(size_t n, std::align_val_t a) {
  return new_impl(n, size_t(a), AllocApi::NewAligned, [&] { return real.op_new_aligned(n, size_t(a)); });
}
HPCL_EXPORT void* operator new[](size_t n, std::align_val_t a) {
  return new_impl(n, size_t(a), AllocApi::NewArrayAligned,
                  [&] { return real.op_new_array_aligned(n, size_t(a)); });
}
HPCL_EXPORT void* operator new(size_t n, const std::nothrow_t& nt) noexcept {
  return new_nothrow_impl(n, 16, AllocApi::New, [&] { return real.op_new_nothrow(n, &nt); });
}
HPCL_EXPORT void* operator new[](size_t n, const std::nothrow_t& nt) noexcept {
  return new_nothrow_impl(n, 16, AllocApi::NewArray,
                          [&] { return real.op_new_array_nothrow(n, &nt); });
}
HPCL_EXPORT void* operator new(size_t n, std::align_val_t a, const std::nothrow_t& nt) noexcept {
  return new_nothrow_impl(n, size_t(a), AllocApi::NewAligned,
                          [&] { return real.op_new_aligned_nothrow(n, size_t(a), &nt); });
}
HPCL_EXPORT void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t& nt) noexcept {
  return new_nothrow_impl(n, size_t(a), AllocApi::NewArrayAligned,
                          [&] { return real.op_new_array_aligned_nothrow(n, size_t(a), &nt); });
}

// Every C++ throw ends the allocation scope: a bad_alloc from a real operator new, or whatever
// the program's new_handler throws, leaves the interposer's frame without returning through it.
// The C++ runtime's own forms are the next definitions; the runtime throws nothing itself.
extern "C" {
HPCL_EXPORT [[noreturn]] void __cxa_throw(void* object, void* type, void (*destructor)(void*)) {
  t_in_alloc = 0;
  ensure_real_fns();
  real.cxa_throw(object, type, destructor);
  __builtin_unreachable();
}
HPCL_EXPORT [[noreturn]] void __cxa_rethrow() {
  t_in_alloc = 0;
  ensure_real_fns();
  real.cxa_rethrow();
  __builtin_unreachable();
}
}  // extern "C"

HPCL_EXPORT void operator delete(void* p) noexcept {
  delete_impl(p, [](void* q) { real.op_delete(q); });
}
HPCL_EXPORT void operator delete[](void* p) noexcept {
  delete_impl(p, [](void* q) { real.op_delete_array(q); });
}
HPCL_EXPORT void operator delete(void* p, size_t n) noexcept {
  delete_impl(p, [n](void* q) { real.op_delete_sized(q, n); });
}
HPCL_EXPORT void operator delete[](void* p, size_t n) noexcept {
  delete_impl(p, [n](void* q) { real.op_delete_array_sized(q, n); });
}
HPCL_EXPORT void operator delete(void* p, const std::nothrow_t& nt) noexcept {
  delete_impl(p, [&nt](void* q) { real.op_delete_nothrow(q, &nt); });
}
HPCL_EXPORT void operator delete[](void* p, const std::nothrow_t& nt) noexcept {
  delete_impl(p, [&nt](void* q) { real.op_delete_array_nothrow(q, &nt); });
}
HPCL_EXPORT void operator delete(void* p, std::align_val_t a) noexcept {
  delete_impl(p, [a](void* q) { real.op_delete_aligned(q, size_t(a)); });
}
HPCL_EXPORT void operator delete[](void* p, std::align_val_t a) noexcept {
  delete_impl(p, [a](void* q) { real.op_delete_array_aligned(q, size_t(a)); });
}
HPCL_EXPORT void operator delete(void* p, size_t n, std::align_val_t a) noexcept {
  delete_impl(p, [n, a](void* q) { real.op_delete_sized_aligned(q, n, size_t(a)); });
}
HPCL_EXPORT void operator delete[](void* p, size_t n, std::align_val_t a) noexcept {
  delete_impl(p, [n, a](void* q) { real.op_delete_array_sized_aligned(q, n, size_t(a)); });
}
HPCL_EXPORT void operator delete(void* p, std::align_val_t a, const std::nothrow_t& nt) noexcept {
  delete_impl(p, [a, &nt](void* q) { real.op_delete_aligned_nothrow(q, size_t(a), &nt); });
}
HPCL_EXPORT void operator delete[](void* p, std::align_val_t a, const std::nothrow_t& nt) noexcept {
  delete_impl(p, [a, &nt](void* q) { real.op_delete_array_aligned_nothrow(q, size_t(a), &nt); });
}
