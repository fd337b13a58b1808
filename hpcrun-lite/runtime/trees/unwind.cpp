// See unwind.h.
#include "trees/unwind.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

#include "process/log.h"
#include "process/real_fns.h"

namespace hpcrun {

namespace {
using BacktraceFn = int (*)(void**, int);
BacktraceFn g_backtrace = nullptr;
uint64_t g_self_lo = 0, g_self_hi = 0;
// libunwind's TLS module id, and whether a thread's unwind cache may be created by its first
// sample (see unwind_thread_init).
size_t g_tls_modid = 0;
bool g_lazy_cache = false;
// The dynamic loader's code (ld.so): see capture_sample_path.
uint64_t g_loader_lo = 0, g_loader_hi = 0;

// libunwind's caching policies (libunwind.h: UNW_CACHE_NONE, _GLOBAL, _PER_THREAD).
constexpr int kUnwCachePerThread = 2;

// Per-thread caches instead of libunwind's default global one. The global cache has a mutex
// that unw_step holds while it calls dl_iterate_phdr, which takes the loader's lock: a sampling
// handler on one thread can hold the mutex and wait for the loader's lock while the thread that
// holds that lock, interrupted inside dlopen or dlclose, waits in its own handler for the mutex.
// A dlopen/dlclose storm sampled at 10 kHz hangs in about one run in three that way. NOT
// SOLVED by this: Debian's libunwind 1.6.2 still takes the global mutex (measured), and a
// handler that interrupts glibc between taking the loader's recursive lock and recording its
// owner waits for itself. The fix is a lock-free dl_iterate_phdr for the runtime's own calls
// (issue 11).
void use_per_thread_caches(void* handle) {
  using SetPolicy = int (*)(void*, int);
  auto set_policy = reinterpret_cast<SetPolicy>(dlsym(handle, "_ULx86_64_set_caching_policy"));
  auto local = static_cast<void**>(dlsym(handle, "_ULx86_64_local_addr_space"));
  if (!set_policy || !local || set_policy(*local, kUnwCachePerThread) != 0)
    log_warn("cannot give libunwind per-thread caches: a program that loads libraries while it "
             "is sampled may hang");
}

struct TlsIndex {
  unsigned long module, offset;
};
extern "C" void* __tls_get_addr(TlsIndex*);

// unw_backtrace keeps a per-thread cache: the first call on a thread maps 256 KiB, writes all
// of it and stores it with pthread_setspecific; thread exit unmaps it. That is about 150 us of
// CPU per thread here (docs/PERFORMANCE.md, thread start and exit), paid by every thread even
// when it is never sampled. Creating it inside the first sample's handler is safe when:
//  - libunwind's thread-local variables exist already (they are dynamic TLS, which glibc
//    mallocs at the first access): unwind_thread_init touches them at thread start;
//  - libunwind's mutex is taken with every signal blocked (lock_acquire), so a handler never
//    meets it held by its own thread, and its memory comes from mmap;
//  - pthread_setspecific does not allocate: it does not for the first 32 keys. libunwind
//    creates its key at its first unw_backtrace, which is the call just before; keys are
//    handed out lowest first, so a key created after it with an index below 32 proves that
//    libunwind's is below 32 too.
// Otherwise every thread creates its cache at its start, as before.
bool lazy_cache_is_safe(void* handle) {
  if (dlinfo(handle, RTLD_DI_TLS_MODID, &g_tls_modid) != 0 || g_tls_modid == 0) return false;
  void* buf[4];
  g_backtrace(buf, 4);  // this thread's cache, and libunwind's key
  pthread_key_t probe;
  if (pthread_key_create(&probe, nullptr) != 0) return false;
  bool low = probe < 32;
  pthread_key_delete(probe);
  return low;
}
}  // namespace

bool address_in_runtime(uint64_t addr) { return addr >= g_self_lo && addr < g_self_hi; }

bool unwind_init() {
  dl_find_object self{};
  if (_dl_find_object(reinterpret_cast<void*>(&unwind_init), &self) == 0) {
    g_self_lo = reinterpret_cast<uint64_t>(self.dlfo_map_start);
    g_self_hi = reinterpret_cast<uint64_t>(self.dlfo_map_end);
  }
  // Through the real dlopen: our own exported stub would mark the module list as changed.
  void* h = real.dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
  if (!h) h = real.dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    log_warn("cannot load libunwind (%s): call paths will hold only the sampled instruction",
             dlerror());
    return false;
  }
  g_backtrace = reinterpret_cast<BacktraceFn>(dlsym(h, "unw_backtrace"));
  if (!g_backtrace) {
    log_warn("libunwind has no unw_backtrace: call paths will hold only the sampled instruction");
    return false;
  }
  use_per_thread_caches(h);
  g_lazy_cache = lazy_cache_is_safe(h);
  dl_find_object loader{};
  if (_dl_find_object(reinterpret_cast<void*>(&_r_debug), &loader) == 0) {  // ld.so's data
    g_loader_lo = reinterpret_cast<uint64_t>(loader.dlfo_map_start);
    g_loader_hi = reinterpret_cast<uint64_t>(loader.dlfo_map_end);
  }
  return true;
}

void unwind_thread_init() {
  if (!g_backtrace) return;
  if (g_lazy_cache) {
    TlsIndex ti{g_tls_modid, 0};
    __tls_get_addr(&ti);
    return;
  }
  void* buf[4];
  g_backtrace(buf, 4);
}

namespace {
// Return addresses buf[from, n) as call sites (return address - 1), without our own frames: the
// allocation wrappers anywhere in an allocation path, the thread-start trampoline at the bottom
// of every thread's access paths.
int call_sites(void* const* buf, int from, int n, uint64_t* out, int max,
               const CodeRange* skip = nullptr, int nskip = 0) {
  int k = 0;
  for (int i = from; i < n && k < max; ++i) {
    auto a = reinterpret_cast<uint64_t>(buf[i]);
    bool skipped = address_in_runtime(a);
    for (int j = 0; j < nskip && !skipped; ++j) skipped = skip[j].contains(a);
    if (!skipped) out[k++] = a - 1;
  }
  return k;
}
}  // namespace

int capture_alloc_path(uint64_t* out, int max) {
  if (!g_backtrace) return 0;
  // A few more than max: our own wrapper frames are dropped.
  constexpr int kSlack = 6;
  void* buf[kMaxSampleFrames + kSlack];
  int want = max + kSlack < kMaxSampleFrames + kSlack ? max + kSlack : kMaxSampleFrames + kSlack;
  int n = g_backtrace(buf, want);
  return call_sites(buf, 0, n, out, max);
}

int capture_path_outside(const CodeRange* skip, int nskip, uint64_t* out, int max) {
  if (!g_backtrace) return 0;
  void* buf[kMaxSampleFrames + 16];
  int n = g_backtrace(buf, kMaxSampleFrames + 16);
  return call_sites(buf, 0, n, out, max, skip, nskip);
}

int capture_sample_path(uint64_t interrupted_pc, uint64_t* out, int max) {
  if (!g_backtrace) return 0;
  // Interrupted inside the dynamic loader, the thread may hold the loader's write lock with its
  // list of modules half changed: unwinding would walk that list (dl_iterate_phdr, whose lock is
  // recursive, lets the same thread in). The sample keeps its instruction, without callers.
  if (interrupted_pc - g_loader_lo < g_loader_hi - g_loader_lo) return 0;
  void* buf[kMaxSampleFrames + 16];
  int n = g_backtrace(buf, kMaxSampleFrames + 16);
  // buf = [handler frames..., signal trampoline, interrupted pc, its callers...]
  int i = 0;
  while (i < n && reinterpret_cast<uint64_t>(buf[i]) != interrupted_pc) ++i;
  if (i == n) return 0;
  return call_sites(buf, i + 1, n, out, max);
}

}  // namespace hpcrun
