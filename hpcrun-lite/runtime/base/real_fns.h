// The one typed table of the functions the runtime interposes, resolved once with
// dlsym(RTLD_NEXT). dlsym itself may allocate; those early requests are served from a small
// static bootstrap arena that free() and realloc() recognise, so no allocation is ever lost or
// handed to the wrong allocator.
#pragma once

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hpcrun {

struct RealFns {
  void* (*malloc)(size_t);
  void (*free)(void*);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*reallocarray)(void*, size_t, size_t);
  void* (*memalign)(size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);
  void* (*mmap)(void*, size_t, int, int, int, off_t);
  int (*munmap)(void*, size_t);
  void* (*mremap)(void*, size_t, size_t, int, ...);
  int (*pthread_create)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  void* (*dlopen)(const char*, int);
  int (*dlclose)(void*);
  // The loader's list of modules: the runtime's own calls must never take the loader's lock
  // from a signal handler (phdr_hooks.cpp), so they call this one only outside signal context.
  int (*dl_iterate_phdr)(int (*)(struct dl_phdr_info*, size_t, void*), void*);
  // Signal dispositions and masks (signal_guard.cpp).
  int (*sigaction)(int, const struct sigaction*, struct sigaction*);
  int (*sigprocmask)(int, const sigset_t*, sigset_t*);
  int (*pthread_sigmask)(int, const sigset_t*, sigset_t*);
  // The exec family (exec_hooks.cpp): resolved here, not at the call, because a forked child of
  // a threaded program may exec while the loader's lock is held by a thread that is gone.
  int (*execve)(const char*, char* const[], char* const[]);
  int (*execv)(const char*, char* const[]);
  int (*execvp)(const char*, char* const[]);
  int (*execvpe)(const char*, char* const[], char* const[]);
  int (*fexecve)(int, char* const[], char* const[]);
  // C++ operator new variants from libstdc++ or the allocator that replaces them (null when the
  // program has no C++ runtime).
  void* (*op_new)(size_t);
  void* (*op_new_array)(size_t);
  void* (*op_new_nothrow)(size_t, const void*);
  void* (*op_new_array_nothrow)(size_t, const void*);
  void* (*op_new_aligned)(size_t, size_t);
  void* (*op_new_array_aligned)(size_t, size_t);
  void* (*op_new_aligned_nothrow)(size_t, size_t, const void*);
  void* (*op_new_array_aligned_nothrow)(size_t, size_t, const void*);
  // Its operator delete variants: plain, sized, nothrow, aligned, sized aligned, aligned nothrow.
  void (*op_delete)(void*);
  void (*op_delete_array)(void*);
  void (*op_delete_sized)(void*, size_t);
  void (*op_delete_array_sized)(void*, size_t);
  void (*op_delete_nothrow)(void*, const void*);
  void (*op_delete_array_nothrow)(void*, const void*);
  void (*op_delete_aligned)(void*, size_t);
  void (*op_delete_array_aligned)(void*, size_t);
  void (*op_delete_sized_aligned)(void*, size_t, size_t);
  void (*op_delete_array_sized_aligned)(void*, size_t, size_t);
  void (*op_delete_aligned_nothrow)(void*, size_t, const void*);
  void (*op_delete_array_aligned_nothrow)(void*, size_t, const void*);
  // The C++ runtime's throw and rethrow (new_hooks.cpp); null without a C++ runtime.
  void (*cxa_throw)(void*, void*, void (*)(void*));
  void (*cxa_rethrow)();
  // System V shared memory (map_hooks.cpp).
  void* (*shmat)(int, const void*, int);
  int (*shmdt)(const void*);
};

extern RealFns real;

// 0 unresolved, 1 resolving, 2 resolved. Wrappers test it inline: one load on the fast path.
extern std::atomic<int> g_real_state;
void resolve_real_fns();  // out of line, first use only
// The same with another lookup than dlsym(RTLD_NEXT) (tests).
using SymbolLookup = void* (*)(const char* name);
void resolve_real_fns_with(SymbolLookup lookup);

// Resolves the table on first use.
inline void ensure_real_fns() {
  if (__builtin_expect(g_real_state.load(std::memory_order_acquire) != 2, 0)) resolve_real_fns();
}
// True until the table is resolved (wrappers then serve requests from the arena).
inline bool real_fns_resolving() { return g_real_state.load(std::memory_order_acquire) != 2; }

// Bootstrap arena for allocations made while the table is being resolved.
inline constexpr size_t kBootstrapArenaSize = 256 * 1024;
extern unsigned char g_bootstrap_arena[kBootstrapArenaSize];
inline bool in_bootstrap_arena(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p), lo = reinterpret_cast<uintptr_t>(g_bootstrap_arena);
  return a - lo < kBootstrapArenaSize;
}
void* bootstrap_alloc(size_t size, size_t align);
size_t bootstrap_size(const void* p);

}  // namespace hpcrun
