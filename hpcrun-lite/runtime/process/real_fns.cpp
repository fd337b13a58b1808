// See real_fns.h. The check that a resolved symbol is not our own wrapper protects against a
// second copy of this library (or a loader quirk) returning our definitions for RTLD_NEXT, which
// would recurse forever on the first malloc.
#include "process/real_fns.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace hpcrun {

RealFns real;
constinit std::atomic<int> g_real_state{0};
alignas(64) unsigned char g_bootstrap_arena[kBootstrapArenaSize];

namespace {

std::atomic<size_t> g_arena_used{0};

void die(const char* what) {
  static const char prefix[] = "hpcrun-lite: cannot find the real ";
  ssize_t r = write(2, prefix, sizeof prefix - 1);
  r = write(2, what, strlen(what));
  r = write(2, "\n", 1);
  (void)r;
  _exit(127);
}

template <typename F>
void resolve(F& slot, const char* name, bool required, void* own) {
  void* p = dlsym(RTLD_NEXT, name);
  if (p == own) p = nullptr;
  if (!p && required) die(name);
  slot = reinterpret_cast<F>(p);
}

}  // namespace

// Each block is preceded by its size so realloc can copy it out.
void* bootstrap_alloc(size_t size, size_t align) {
  if (align < 16) align = 16;
  size_t old = g_arena_used.load(std::memory_order_relaxed);
  for (;;) {
    size_t start = (old + sizeof(size_t) + align - 1) & ~(align - 1);
    size_t end = start + size;
    if (end > kBootstrapArenaSize) return nullptr;
    if (g_arena_used.compare_exchange_weak(old, end, std::memory_order_relaxed)) {
      memcpy(g_bootstrap_arena + start - sizeof(size_t), &size, sizeof size);
      return g_bootstrap_arena + start;
    }
  }
}

size_t bootstrap_size(const void* p) {
  size_t n;
  memcpy(&n, static_cast<const unsigned char*>(p) - sizeof(size_t), sizeof n);
  return n;
}

extern "C" void* malloc(size_t);  // our own wrappers, to detect self-resolution

void resolve_real_fns() {
  int expected = 0;
  if (!g_real_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    // Another thread is resolving (or this thread re-entered from dlsym): wait for the other
    // thread; a re-entering caller sees state 1 and is served from the arena by the wrapper.
    return;
  }
  resolve(real.malloc, "malloc", true, reinterpret_cast<void*>(&::malloc));
  resolve(real.free, "free", true, nullptr);
  resolve(real.calloc, "calloc", true, nullptr);
  resolve(real.realloc, "realloc", true, nullptr);
  resolve(real.reallocarray, "reallocarray", false, nullptr);
  resolve(real.memalign, "memalign", true, nullptr);
  resolve(real.posix_memalign, "posix_memalign", true, nullptr);
  resolve(real.aligned_alloc, "aligned_alloc", true, nullptr);
  resolve(real.valloc, "valloc", true, nullptr);
  resolve(real.pvalloc, "pvalloc", false, nullptr);
  resolve(real.mmap, "mmap", true, nullptr);
  resolve(real.munmap, "munmap", true, nullptr);
  resolve(real.mremap, "mremap", true, nullptr);
  resolve(real.pthread_create, "pthread_create", true, nullptr);
  resolve(real.dlopen, "dlopen", true, nullptr);
  resolve(real.sigaction, "sigaction", true, nullptr);
  resolve(real.sigprocmask, "sigprocmask", true, nullptr);
  resolve(real.pthread_sigmask, "pthread_sigmask", true, nullptr);
  resolve(real.execve, "execve", true, nullptr);
  resolve(real.execv, "execv", true, nullptr);
  resolve(real.execvp, "execvp", true, nullptr);
  resolve(real.execvpe, "execvpe", false, nullptr);
  resolve(real.fexecve, "fexecve", false, nullptr);
  resolve(real.op_new, "_Znwm", false, nullptr);
  resolve(real.op_new_array, "_Znam", false, nullptr);
  resolve(real.op_new_nothrow, "_ZnwmRKSt9nothrow_t", false, nullptr);
  resolve(real.op_new_array_nothrow, "_ZnamRKSt9nothrow_t", false, nullptr);
  resolve(real.op_new_aligned, "_ZnwmSt11align_val_t", false, nullptr);
  resolve(real.op_new_array_aligned, "_ZnamSt11align_val_t", false, nullptr);
  resolve(real.op_new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t", false, nullptr);
  resolve(real.op_new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t", false, nullptr);
  g_real_state.store(2, std::memory_order_release);
}

}  // namespace hpcrun
