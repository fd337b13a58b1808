// The process's life cycle once the runtime started (startup/runtime_init.cpp): thread start and
// exit, fork, the module scans after dlopen and dlclose (dlopen: dlopen_hooks.cpp), and the profile
// written at normal exit. Sources are reached through the source table only.
#include "process/runtime.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>

#include "base/clock.h"
#include "base/guard.h"
#include "base/log.h"
#include "base/real_fns.h"
#include "base/spinlock.h"
#include "options.h"
#include "loader/modules.h"
#include "memory/offset_hist.h"
#include "loader/phdr_snapshot.h"
#include "memory/regions.h"
#include "process/alt_stack.h"
#include "process/process_end.h"
#include "process/source_table.h"
#include "process/thread_state.h"
#include "unwind/unwind.h"

// glibc's registration of thread_local destructors (what a C++ thread_local compiles to).
extern "C" int __cxa_thread_atexit_impl(void (*fn)(void*), void* arg, void* dso);
extern "C" void* __dso_handle;

namespace hpcrun {

constinit RuntimeConfig g_config = {kDefaultMinBytes, kDefaultSmallEvery, TrackPolicy{},
                                    kDefaultSoftRate, "soft", true, 0, 0, 0, 0, {}, {}, {}, {}, {},
                                    0, nullptr, {}};
constinit HeapMap g_heap;
constinit std::atomic<uint64_t> g_allocs_lost{0};
constinit HeapExtent g_heap_extent;
constinit AllocSites g_sites;
constinit std::atomic<bool> g_tracking{false};

namespace {

pthread_key_t g_thread_key;
// Whether g_thread_key exists: a program (or its libraries) may have taken every key before our
// constructor runs. Without one, each thread's end is registered with the C++ runtime's
// thread-exit list instead (register_thread), which also runs at pthread_exit.
bool g_have_thread_key = false;
// Held while ELF files are read (milliseconds).
constinit SpinLock g_scan_lock;

void on_thread_exit(void* p) {
  RuntimeGuard guard;
  auto* ts = static_cast<ThreadState*>(p);
  alt_stack_thread_end(ts->alt_stack);
  thread_end(ts);
}

// The thread's signal stack, and its end followed: the key's destructor runs at thread exit,
// also through pthread_exit. The fallback allocates (one small block per thread, not tracked: we
// are inside the runtime). The main thread ends with the process, as its key destructor never
// runs.
void follow_thread(ThreadState* ts, bool main_thread) {
  alt_stack_thread_start(&ts->alt_stack);
  if (g_have_thread_key) pthread_setspecific(g_thread_key, ts);
  else if (!main_thread) __cxa_thread_atexit_impl(on_thread_exit, ts, &__dso_handle);
}

void register_thread(const uint64_t* creator = nullptr, uint32_t ncreator = 0) {
  rescan_modules_if_dirty();
  ThreadState* ts = thread_begin(creator, ncreator);
  if (ts) follow_thread(ts, creator == nullptr);
}

struct StartArgs {
  void* (*fn)(void*);
  void* arg;
  uint32_t ncreator;
  uint64_t creator[kMaxCreatorFrames];
};

// The creating thread's call path, innermost first: pthread_create's caller and its callers,
// then the path that created the creating thread itself, so a thread started by a thread keeps
// the whole chain. Not signal context: unw_backtrace may lock and allocate here.
//
// Not for the threads of libgomp's pool: libgomp keeps its workers for every later parallel
// region, so the path that created them is the first region's, and the samples of all later
// regions would hang under it (e2e tail_calls: an array read only in a second region appeared
// under the first region's caller). Their own frames name the region they run.
bool created_by_thread_pool(uint64_t call_site) {
  uint32_t m = modules_find_code(call_site);
  const ModuleEntry* e = m == kNoModuleIndex ? nullptr : module_get(m);
  return e && strstr(e->path, "libgomp") != nullptr;
}

uint32_t capture_creator_path(uint64_t* out) {
  int n = capture_alloc_path(out, kMaxCreatorFrames);
  if (n <= 0 || created_by_thread_pool(out[0])) return 0;
  const ThreadState* self = t_state;
  for (uint32_t i = 0; self && i < self->ncreator && n < kMaxCreatorFrames; ++i)
    out[n++] = self->creator[i];
  return uint32_t(n);
}

void* start_trampoline(void* p) {
  StartArgs args = *static_cast<StartArgs*>(p);
  {
    RuntimeGuard guard;
    real.free(p);
    register_thread(args.creator, args.ncreator);
  }
  return args.fn(args.arg);
}

void prefork() {
  // First, before any lock of ours is held: threads that are unwinding finish (libunwind's
  // mutex must not be inherited locked), and no new unwinding starts until the fork returns.
  unwind_before_fork();
  g_sites.lock();
  g_heap.lock();
  g_heap_extent.lock();
  regions_fork_prepare();
}
void postfork_parent() {
  regions_fork_parent();
  g_heap_extent.unlock();
  g_heap.unlock();
  g_sites.unlock();
  unwind_after_fork(false);
}
void postfork_child() {
  regions_fork_child();
  g_heap_extent.unlock();
  g_heap.unlock();
  g_sites.unlock();
  phdr_snapshot_after_fork_child();
  modules_after_fork_child();
  unwind_after_fork(true);
  RuntimeGuard guard;
  // Allocation counts stay: the child has the parent's blocks in its own address space, and a
  // variable's size describes it there too. Samples start from zero.
  process_end_after_fork_child();
  threads_after_fork_child();
  offsets_reset();
  sources_child_all();
  g_config.start_ns = wall_ns();
}

void runtime_fini() { process_end_write(EndPath::ExitHandler); }

}  // namespace

void runtime_scan_first(void (*on_new)(const dl_phdr_info* info)) {
  g_scan_lock.lock();
  modules_set_on_new(on_new);
  modules_scan();
  g_scan_lock.unlock();
}

void runtime_start_measuring(ProfileWriter write) {
  process_end_init(write);
  int key_rc = pthread_key_create(&g_thread_key, on_thread_exit);
  g_have_thread_key = key_rc == 0;
  if (!g_have_thread_key)
    log_info("no thread-specific key (%s): thread ends are followed through the C++ runtime's "
             "thread-exit list", strerror(key_rc));
  pthread_atfork(prefork, postfork_parent, postfork_child);
  atexit(runtime_fini);
  g_tracking.store(true, std::memory_order_release);
  register_thread();
  // Threads a library constructor started before ours (OpenBLAS's pool): sampled from now on.
  if (uint32_t adopted = threads_adopt_existing())
    log_info("adopted %u thread(s) started before the runtime", adopted);
}

std::atomic<bool> g_modules_dirty{false};
std::atomic<bool> g_loader_added{false};

void settle_adopted_thread() {
  if (const ThreadState* ts = t_state; __builtin_expect(ts && ts->unwind_ready, 1)) return;
  if (ThreadState* ts = thread_settle_adopted()) follow_thread(ts, false);
}

void rescan_modules_if_dirty() {
  if (!g_modules_dirty.load(std::memory_order_acquire)) return;
  // Allocations also happen inside dlopen: the loader's own (before and while it maps the new
  // objects, with r_state RT_ADD) and the new library's constructors (after, RT_CONSISTENT).
  // Scan once the loader was seen adding and is consistent again, so the new library and its
  // dependencies are all in the list. _r_debug is the loader's debugger interface, read
  // lock-free. A dlopen of a library already loaded adds nothing and leaves the flag set (one
  // more load per allocation) until the next dlopen; the exit path scans regardless.
  int state = __atomic_load_n(&_r_debug.r_state, __ATOMIC_ACQUIRE);
  if (state == r_debug::RT_ADD) {
    g_loader_added.store(true, std::memory_order_relaxed);
    return;
  }
  if (state != r_debug::RT_CONSISTENT || !g_loader_added.load(std::memory_order_relaxed)) return;
  scan_now();
}

namespace {
std::atomic<bool> g_unload_pending{false};
}  // namespace

void forget_unloaded_modules() {
  g_unload_pending.store(true, std::memory_order_release);
  if (!g_scan_lock.try_lock()) return;  // the holder's next scan forgets
  if (g_unload_pending.exchange(false, std::memory_order_acq_rel))
    modules_forget_unloaded(sources_code_unloaded);
  g_scan_lock.unlock();
}

void scan_now() {
  if (!g_scan_lock.try_lock()) return;  // another thread scans
  g_modules_dirty.store(false, std::memory_order_relaxed);
  g_loader_added.store(false, std::memory_order_relaxed);
  // Forget first: a library mapped where a closed one was must not look already scanned.
  if (g_unload_pending.exchange(false, std::memory_order_acq_rel))
    modules_forget_unloaded(sources_code_unloaded);
  modules_scan();
  g_scan_lock.unlock();
  refresh_phdr_snapshot();
}

void refresh_phdr_snapshot() {
  static std::atomic<bool> warned{false};
  if (!phdr_snapshot_refresh(real.dl_iterate_phdr) && !warned.exchange(true))
    log_warn("cannot copy the loaded modules' program headers: call paths through modules "
             "loaded from now on may end early");
}

int create_thread(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  ensure_real_fns();
  if (!g_tracking.load(std::memory_order_acquire) || process_ending())
    return real.pthread_create(thread, attr, fn, arg);
  StartArgs* args;
  {
    RuntimeGuard guard;
    args = static_cast<StartArgs*>(real.malloc(sizeof(StartArgs)));
    if (args) args->ncreator = capture_creator_path(args->creator);
  }
  if (!args) return real.pthread_create(thread, attr, fn, arg);
  args->fn = fn;
  args->arg = arg;
  int rc = real.pthread_create(thread, attr, start_trampoline, args);
  if (rc != 0) real.free(args);
  return rc;
}

}  // namespace hpcrun
