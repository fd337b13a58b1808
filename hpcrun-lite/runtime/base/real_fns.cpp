// See real_fns.h. The check that a resolved symbol is not our own wrapper protects against a
// second copy of this library (or a loader quirk) returning our definitions for RTLD_NEXT, which
// would recurse forever on the first malloc.
#include "base/real_fns.h"

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

// Slots are written atomically and only while still null: every thread that finds the table
// unresolved fills it (resolve_real_fns_with), all with the same values, and none writes a slot
// that a thread which saw the table resolved may be reading.
template <typename F>
void resolve(SymbolLookup lookup, F& slot, const char* name, bool required, void* own) {
  void* p = lookup(name);
  if (p == own) p = nullptr;
  if (!p && required) die(name);
  if (p && !__atomic_load_n(&slot, __ATOMIC_RELAXED))
    __atomic_store_n(&slot, reinterpret_cast<F>(p), __ATOMIC_RELAXED);
}

void* next_symbol(const char* name) { return dlsym(RTLD_NEXT, name); }

// The thread inside resolve_real_fns_with: dlsym may allocate, and the wrapper it reaches
// serves that from the arena instead of resolving again.
__thread bool t_resolving __attribute__((tls_model("initial-exec"))) = false;

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

void resolve_real_fns() { resolve_real_fns_with(next_symbol); }

void resolve_real_fns_with(SymbolLookup lookup) {
  if (t_resolving) return;  // re-entered from dlsym: the caller is served from the arena
  // A thread that finds another one resolving does not return with the table half filled (its
  // caller would call a null pointer), nor wait for it (that thread's dlsym may wait for the
  // loader's lock, which this thread may hold): it resolves the table itself.
  t_resolving = true;
  int expected = 0;
  g_real_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel);
  resolve(lookup, real.malloc, "malloc", true, reinterpret_cast<void*>(&::malloc));
  resolve(lookup, real.free, "free", true, nullptr);
  resolve(lookup, real.calloc, "calloc", true, nullptr);
  resolve(lookup, real.realloc, "realloc", true, nullptr);
  resolve(lookup, real.reallocarray, "reallocarray", false, nullptr);
  resolve(lookup, real.memalign, "memalign", true, nullptr);
  resolve(lookup, real.posix_memalign, "posix_memalign", true, nullptr);
  resolve(lookup, real.aligned_alloc, "aligned_alloc", true, nullptr);
  resolve(lookup, real.valloc, "valloc", true, nullptr);
  resolve(lookup, real.pvalloc, "pvalloc", false, nullptr);
  resolve(lookup, real.mmap, "mmap", true, nullptr);
  resolve(lookup, real.munmap, "munmap", true, nullptr);
  resolve(lookup, real.mremap, "mremap", true, nullptr);
  resolve(lookup, real.pthread_create, "pthread_create", true, nullptr);
  resolve(lookup, real.dlopen, "dlopen", true, nullptr);
  resolve(lookup, real.dlclose, "dlclose", true, nullptr);
  resolve(lookup, real.dl_iterate_phdr, "dl_iterate_phdr", true, nullptr);
  resolve(lookup, real.sigaction, "sigaction", true, nullptr);
  resolve(lookup, real.sigprocmask, "sigprocmask", true, nullptr);
  resolve(lookup, real.pthread_sigmask, "pthread_sigmask", true, nullptr);
  resolve(lookup, real.execve, "execve", true, nullptr);
  resolve(lookup, real.execv, "execv", true, nullptr);
  resolve(lookup, real.execvp, "execvp", true, nullptr);
  resolve(lookup, real.execvpe, "execvpe", false, nullptr);
  resolve(lookup, real.fexecve, "fexecve", false, nullptr);
  resolve(lookup, real.op_new, "_Znwm", false, nullptr);
  resolve(lookup, real.op_new_array, "_Znam", false, nullptr);
  resolve(lookup, real.op_new_nothrow, "_ZnwmRKSt9nothrow_t", false, nullptr);
  resolve(lookup, real.op_new_array_nothrow, "_ZnamRKSt9nothrow_t", false, nullptr);
  resolve(lookup, real.op_new_aligned, "_ZnwmSt11align_val_t", false, nullptr);
  resolve(lookup, real.op_new_array_aligned, "_ZnamSt11align_val_t", false, nullptr);
  resolve(lookup, real.op_new_aligned_nothrow, "_ZnwmSt11align_val_tRKSt9nothrow_t", false, nullptr);
  resolve(lookup, real.op_new_array_aligned_nothrow, "_ZnamSt11align_val_tRKSt9nothrow_t", false, nullptr);
  resolve(lookup, real.op_delete, "_ZdlPv", false, nullptr);
  resolve(lookup, real.op_delete_array, "_ZdaPv", false, nullptr);
  resolve(lookup, real.op_delete_sized, "_ZdlPvm", false, nullptr);
  resolve(lookup, real.op_delete_array_sized, "_ZdaPvm", false, nullptr);
  resolve(lookup, real.op_delete_nothrow, "_ZdlPvRKSt9nothrow_t", false, nullptr);
  resolve(lookup, real.op_delete_array_nothrow, "_ZdaPvRKSt9nothrow_t", false, nullptr);
  resolve(lookup, real.op_delete_aligned, "_ZdlPvSt11align_val_t", false, nullptr);
  resolve(lookup, real.op_delete_array_aligned, "_ZdaPvSt11align_val_t", false, nullptr);
  resolve(lookup, real.op_delete_sized_aligned, "_ZdlPvmSt11align_val_t", false, nullptr);
  resolve(lookup, real.op_delete_array_sized_aligned, "_ZdaPvmSt11align_val_t", false, nullptr);
  resolve(lookup, real.op_delete_aligned_nothrow, "_ZdlPvSt11align_val_tRKSt9nothrow_t", false, nullptr);
  resolve(lookup, real.op_delete_array_aligned_nothrow, "_ZdaPvSt11align_val_tRKSt9nothrow_t", false,
          nullptr);
  resolve(lookup, real.cxa_throw, "__cxa_throw", false, nullptr);
  resolve(lookup, real.cxa_rethrow, "__cxa_rethrow", false, nullptr);
  resolve(lookup, real.shmat, "shmat", true, nullptr);
  resolve(lookup, real.shmdt, "shmdt", true, nullptr);
  g_real_state.store(2, std::memory_order_release);
  t_resolving = false;
}

}  // namespace hpcrun
