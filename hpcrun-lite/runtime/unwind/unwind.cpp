// See unwind.h.
#include "unwind/unwind.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstring>

// Only for the types and register numbers: libunwind is loaded with dlopen (unwind.h).
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "base/clock.h"
#include "base/guard.h"
#include "loader/find_object.h"
#include "loader/phdr_snapshot.h"
#include "trees/mask_batch.h"
#include "unwind/unwind_validate.h"
#include "base/log.h"
#include "base/real_fns.h"

namespace hpcrun {

namespace {
using BacktraceFn = int (*)(void**, int);
BacktraceFn g_backtrace = nullptr;
// The stepping interface, for find_stack_owner: the names unw_init_local2 and friends stand for.
struct Stepper {
  int (*init)(unw_cursor_t*, unw_context_t*, int) = nullptr;
  int (*step)(unw_cursor_t*) = nullptr;
  int (*get_reg)(unw_cursor_t*, unw_regnum_t, unw_word_t*) = nullptr;
} g_stepper;
uint64_t g_self_lo = 0, g_self_hi = 0;
// libunwind's TLS module id, and whether a thread's unwind cache may be created by its first
// sample (see unwind_thread_init).
size_t g_tls_modid = 0;
bool g_lazy_cache = false;
// Unwinds under way, and whether a fork is about to happen (unwind_before_fork).
constinit std::atomic<int> g_unwinders{0};
constinit std::atomic<bool> g_fork_pending{false};
constexpr uint64_t kForkWaitNs = 200 * 1000 * 1000;

// Every unwind runs inside one: a fork waits for it (unwind_before_fork), and one block of
// every signal covers it, or none inside the runtime (mask_batch.h). Signal-safe: two atomic
// operations.
class Unwinding {
 public:
  Unwinding() : batch_(t_in_runtime != 0) { g_unwinders.fetch_add(1, std::memory_order_seq_cst); }
  ~Unwinding() { g_unwinders.fetch_sub(1, std::memory_order_release); }
  Unwinding(const Unwinding&) = delete;
  Unwinding& operator=(const Unwinding&) = delete;
  bool refused() const { return g_fork_pending.load(std::memory_order_seq_cst); }

 private:
  MaskBatch batch_;
};

// Every call of unw_backtrace goes through here.
int backtrace(void** buf, int n) {
  Unwinding u;
  return u.refused() ? 0 : g_backtrace(buf, n);
}

// libunwind's caching policies (libunwind.h: UNW_CACHE_NONE, _GLOBAL, _PER_THREAD).
constexpr int kUnwCachePerThread = 2;

// Per-thread caches instead of libunwind's default global one, where the libunwind build honours
// it (Debian's 1.6.2 still takes its global mutex, measured). The mutex was half of a deadlock:
// unw_step held it while it called dl_iterate_phdr, which takes the loader's lock, and the thread
// holding that lock, interrupted inside dlopen or dlclose, waited in its own handler for the
// mutex. libunwind's dl_iterate_phdr calls are now answered from a snapshot without the loader's
// lock (phdr_snapshot.h), so whoever holds the mutex finishes without waiting for anyone.
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
  backtrace(buf, 4);  // this thread's cache, and libunwind's key
  pthread_key_t probe;
  if (pthread_key_create(&probe, nullptr) != 0) return false;
  bool low = probe < 32;
  pthread_key_delete(probe);
  return low;
}
}  // namespace

// The code of the libraries only the runtime runs: libunwind (loaded locally by us) and Zydis
// (linked by us; its tables are static data the decoder faults in). A page fault or a frame in
// them is the runtime's work, not the program's.
namespace {
struct CodeSpan {
  uint64_t lo = 0, hi = 0;
};
CodeSpan g_helpers[2];

void note_helper_library(int i, const void* code) {
  CodeObject obj;
  if (code && find_object(code, &obj)) g_helpers[i] = {obj.map_start, obj.map_end};
}
}  // namespace

__attribute__((noinline)) uint64_t runtime_call_site() {
  auto* fp = static_cast<void* const*>(__builtin_frame_address(0));
  for (int depth = 0; fp && depth < 16; ++depth) {
    const auto ret = reinterpret_cast<uint64_t>(fp[1]);  // into the caller of this frame's function
    if (ret < g_self_lo || ret >= g_self_hi) return ret ? ret - 1 : 0;
    fp = static_cast<void* const*>(fp[0]);  // that caller is ours: its frame pointer is one
  }
  return 0;
}

bool address_in_runtime(uint64_t addr) {
  if (addr >= g_self_lo && addr < g_self_hi) return true;
  for (const CodeSpan& s : g_helpers)
    if (addr - s.lo < s.hi - s.lo) return true;
  return false;
}

// Points libunwind's memory checks at unwind_validate.h's, before its first use opens its pipe.
void answer_libunwind_checks(void* handle) {
  link_map* lm = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm) return;
  struct Find {
    const link_map* lm;
    int patched;
  } find{lm, -1};
  auto each = [](dl_phdr_info* info, size_t, void* data) {
    auto* f = static_cast<Find*>(data);
    if (info->dlpi_addr != f->lm->l_addr || !info->dlpi_name ||
        strcmp(info->dlpi_name, f->lm->l_name) != 0)
      return 0;
    f->patched = unwind_validate_install(info);
    return 1;
  };
  (real.dl_iterate_phdr ? real.dl_iterate_phdr : ::dl_iterate_phdr)(each, &find);
  if (find.patched <= 0)
    log_info("libunwind's memory checks stay system calls (no slot to redirect)");
}

bool unwind_init() {
  // Through the real dlopen: our own exported stub would mark the module list as changed.
  void* h = real.dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
  if (!h) h = real.dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    log_warn("cannot load libunwind (%s): call paths will hold only the sampled instruction",
             dlerror());
    return false;
  }
  answer_libunwind_checks(h);
  // The runtime's dl_iterate_phdr answers libunwind from the snapshot (phdr_snapshot.h): it must
  // hold libunwind itself, whose frames are the first that every unwind steps through.
  if (!phdr_snapshot_refresh(real.dl_iterate_phdr))
    log_warn("cannot copy the loaded modules' program headers: call paths will be empty");
  // After the snapshot: without _dl_find_object, find_object reads it.
  if (find_object_uses_snapshot())
    log_info("module lookups: from the program-header snapshot (no _dl_find_object)");
  if (CodeObject self; find_object(reinterpret_cast<const void*>(&unwind_init), &self)) {
    g_self_lo = self.map_start;
    g_self_hi = self.map_end;
  }
  g_backtrace = reinterpret_cast<BacktraceFn>(dlsym(h, "unw_backtrace"));
  g_stepper.init = reinterpret_cast<decltype(Stepper::init)>(dlsym(h, "_ULx86_64_init_local2"));
  g_stepper.step = reinterpret_cast<decltype(Stepper::step)>(dlsym(h, "_ULx86_64_step"));
  g_stepper.get_reg = reinterpret_cast<decltype(Stepper::get_reg)>(dlsym(h, "_ULx86_64_get_reg"));
  if (!g_stepper.init || !g_stepper.step || !g_stepper.get_reg) {
    g_stepper = {};
    log_info("libunwind has no unw_init_local2: stack samples stay one [stack] row");
  }
  note_helper_library(0, reinterpret_cast<const void*>(g_backtrace));
  note_helper_library(1, dlsym(RTLD_DEFAULT, "ZydisDecoderDecodeFull"));
  if (!g_backtrace) {
    log_warn("libunwind has no unw_backtrace: call paths will hold only the sampled instruction");
    return false;
  }
  // libunwind keeps each thread's cache under a pthread key and ignores a failure to create it:
  // it would then store its cache under key 0, another library's, whose destructor would
  // receive it at thread exit (libgomp's aborts). With no key left, no libunwind.
  pthread_key_t probe;
  if (pthread_key_create(&probe, nullptr) != 0) {
    g_backtrace = nullptr;
    log_warn("no pthread key left for libunwind: call paths will hold only the sampled "
             "instruction");
    return false;
  }
  pthread_key_delete(probe);
  use_per_thread_caches(h);
  g_lazy_cache = lazy_cache_is_safe(h);
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
  backtrace(buf, 4);
}

void unwind_before_fork() {
  g_fork_pending.store(true, std::memory_order_seq_cst);
  const uint64_t start = monotonic_ns();
  while (g_unwinders.load(std::memory_order_seq_cst) != 0) {
    sched_yield();
    if (monotonic_ns() - start > kForkWaitNs) return;  // a stopped thread: fork all the same
  }
}

void unwind_after_fork(bool child) {
  if (child) g_unwinders.store(0, std::memory_order_relaxed);  // the other threads are gone
  g_fork_pending.store(false, std::memory_order_seq_cst);
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
  int n = backtrace(buf, want);
  return call_sites(buf, 0, n, out, max);
}

// The x86-64 System V red zone: a function may use the 128 bytes below its stack pointer
// without moving it, so an address there is the interrupted frame's.
constexpr uint64_t kRedZone = 128;

bool find_stack_owner(const void* uc, uint64_t leaf_pc, uint64_t addr, FrameOwner* owner) {
  if (!g_stepper.init) return false;
  const auto* ctx = static_cast<const ucontext_t*>(uc);
  uint64_t lo = uint64_t(ctx->uc_mcontext.gregs[REG_RSP]) - kRedZone;
  if (addr < lo) return false;
  Unwinding u;
  if (u.refused()) return false;
  unw_cursor_t cursor;
  // libunwind reads the registers from the context and writes nothing to it.
  if (g_stepper.init(&cursor, const_cast<unw_context_t*>(static_cast<const unw_context_t*>(ctx)),
                     UNW_INIT_SIGNAL_FRAME) != 0)
    return false;
  uint64_t here = leaf_pc;
  for (int depth = 0; depth < kMaxSampleFrames; ++depth) {
    unw_word_t sp = 0, ip = 0;
    if (g_stepper.step(&cursor) <= 0 || g_stepper.get_reg(&cursor, UNW_REG_SP, &sp) != 0 ||
        g_stepper.get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0)
      return false;
    if (addr < sp) {
      *owner = FrameOwner{here, sp, lo, ip};
      return true;
    }
    here = ip - 1;  // the caller's call site
    lo = sp;
  }
  return false;
}

int capture_path_outside(const CodeRange* skip, int nskip, uint64_t* out, int max) {
  if (!g_backtrace) return 0;
  void* buf[kMaxSampleFrames + 16];
  // Through the fork guard as every other unwind: a fork during it would leave the child with
  // libunwind's mutex held.
  int n = backtrace(buf, kMaxSampleFrames + 16);
  return call_sites(buf, 0, n, out, max, skip, nskip);
}

int capture_sample_path(uint64_t interrupted_pc, uint64_t* out, int max) {
  if (!g_backtrace) return 0;
  // Also inside the dynamic loader: libunwind's module lookups read the snapshot, never the
  // loader's list that the interrupted thread may be changing.
  void* buf[kMaxSampleFrames + 16];
  int n = backtrace(buf, kMaxSampleFrames + 16);
  // buf = [handler frames..., signal trampoline, interrupted pc, its callers...]
  int i = 0;
  while (i < n && reinterpret_cast<uint64_t>(buf[i]) != interrupted_pc) ++i;
  if (i == n) return 0;
  return call_sites(buf, i + 1, n, out, max);
}

}  // namespace hpcrun
