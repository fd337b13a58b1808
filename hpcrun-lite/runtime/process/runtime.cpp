// Start-up, thread life cycle, fork and exit of the preloaded runtime (dlopen: dlopen_hooks.cpp).
//
// Order at start-up matters: the real functions first (every wrapper needs them), then options,
// libunwind, the module scan (static variables), the sampler, and only then are allocations
// tracked and the main thread sampled. A failure in any step is reported once on stderr and
// measurement continues with what works: the program itself must run exactly as without us.
#include "process/runtime.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "base/clock.h"
#include "env_vars.h"
#include "options.h"
#include "process_env.h"
#include "run_id.h"
#include "process/alt_stack.h"
#include "base/guard.h"
#include "base/log.h"
#include "memory/modules.h"
#include "memory/offset_hist.h"
#include "memory/find_object.h"
#include "memory/phdr_snapshot.h"
#include "process/process_end.h"
#include "base/real_fns.h"
#include "sources/hw/hw_source.h"
#include "sources/numa/numa.h"
#include "sources/page_faults/page_faults.h"
#include "sources/papi/papi_source.h"
#include "sources/soft/access_decode.h"
#include "sources/soft/sampler.h"
#include "sources/watch/watch.h"
#include "sources/watch/watch_table.h"
#include "base/spinlock.h"
#include "hpcrun/probe/source_verdict.h"
#include "process/thread_state.h"
#include "trees/unwind.h"
#include "trees/unwind_validate.h"
#include "hooks/allocator_apis.h"
#include "memory/regions.h"
#include "python/py_probe.h"

#define HPCL_EXPORT __attribute__((visibility("default")))

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
// The address-sampling source of this run and its request (read_options).
SourceKind g_kind = SourceKind::Soft;
SourceSpec g_spec;
// Whether g_thread_key exists: a program (or its libraries) may have taken every key before our
// constructor runs. Without one, each thread's end is registered with the C++ runtime's
// thread-exit list instead (register_thread), which also runs at pthread_exit.
bool g_have_thread_key = false;
// Held while ELF files are read (milliseconds).
constinit SpinLock g_scan_lock;

void set_track_policy() {
  TrackPolicy& t = g_config.track;
  t.adaptive = g_config.small_every == kSmallEveryAuto;
  t.fixed_k = t.adaptive ? 1 : uint32_t(g_config.small_every > UINT32_MAX ? UINT32_MAX : g_config.small_every);
}

void read_cmdline() {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, g_config.cmdline, sizeof g_config.cmdline - 1);
  close(fd);
  if (n <= 0) return;
  for (ssize_t i = 0; i < n - 1; ++i)
    if (g_config.cmdline[i] == 0) g_config.cmdline[i] = ' ';
  g_config.cmdline[n] = 0;
}

// Tests only: small arenas, to run them out (issue 11: samples and blocks are dropped and
// counted, the program is never disturbed).
void read_test_limits() {
  if (const char* v = getenv("HPCRUN_LITE_TEST_TREE_NODES")) Cct::node_limit = uint32_t(strtoul(v, nullptr, 10));
  if (const char* v = getenv("HPCRUN_LITE_TEST_MAP_BLOCKS")) g_heap.set_limit(strtoul(v, nullptr, 10));
  find_object_configure();  // HPCRUN_LITE_TEST_NO_DL_FIND_OBJECT: the older glibcs' way
}

// The launcher's run id; set by hand under MPI, the one every rank computes alike (run_id.h).
void read_run_id() {
  const char* v = getenv(kEnvRunId);
  const EnvVar* var = find_env_var(kEnvRunId);
  if (v && var && var->valid(v)) {
    snprintf(g_config.run_id, sizeof g_config.run_id, "%s", v);
    return;
  }
  if (v) log_warn("ignoring %s=%s: %s", kEnvRunId, v, var ? var->accepts : "");
  snprintf(g_config.run_id, sizeof g_config.run_id, "%s",
           run_id_for_launch(mpi_rank_from_environment() >= 0, "").c_str());
}

void read_options() {
  read_test_limits();
  if (const char* v = getenv(kEnvVerbose)) g_verbose = v[0] && strcmp(v, "0") != 0;
  uint64_t value;
  if (const char* v = getenv(kEnvMinBytes)) {
    if (parse_size(v, &value)) g_config.min_bytes = value;
    else log_warn("ignoring %s=%s: not a size", kEnvMinBytes, v);
  }
  if (const char* v = getenv(kEnvSmallEvery)) {
    if (parse_small_every(v, &value)) g_config.small_every = value;
    else log_warn("ignoring %s=%s: neither auto nor a number", kEnvSmallEvery, v);
  }
  if (const char* v = getenv(kEnvTrackBudget)) {
    if (parse_size(v, &value)) g_config.track.budget = value;
    else log_warn("ignoring %s=%s: not a number", kEnvTrackBudget, v);
  }
  set_track_policy();
  read_run_id();
  // One address-sampling source (the first of soft, pebs, ibs, auto; auto without any), and
  // beside it, or alone, the page-fault source.
  Options opts;
  char err[256];
  SourceSpec spec;
  bool sampling = false;
  if (const char* v = getenv(kEnvEvents)) {
    if (!parse_sources(v, &opts, err, sizeof err)) log_warn("ignoring %s=%s: %s", kEnvEvents, v, err);
    for (int i = 0; i < opts.nsources; ++i) {
      if (opts.sources[i].kind == SourceKind::PageFaults) {
        g_config.page_fault_period = opts.sources[i].rate ? opts.sources[i].rate : 1;
      } else if (opts.sources[i].kind == SourceKind::WpSharing) {
        // Watchpoints ride on the address source's samples (watch.h), soft when none is named.
        g_config.wp_sharing_rate = opts.sources[i].rate ? opts.sources[i].rate : kDefaultWpSharingRate;
      } else if (opts.sources[i].kind == SourceKind::WpReuse) {
        g_config.wp_reuse_rate = opts.sources[i].rate ? opts.sources[i].rate : kDefaultWpReuseRate;
      } else if (opts.sources[i].kind == SourceKind::Papi) {
        // Counted beside the address source, which stays the default one when none is named.
        int k = g_config.npapi++;
        memcpy(g_config.papi_events[k], opts.sources[i].papi_event, sizeof g_config.papi_events[k]);
        g_config.papi_periods[k] = opts.sources[i].rate ? opts.sources[i].rate : kDefaultPapiPeriod;
      } else if (!sampling) {
        spec = opts.sources[i];
        sampling = true;
      }
    }
  }
  g_config.sampling = sampling || g_config.page_fault_period == 0;
  char why[256];
  SourceKind kind = choose_source(spec.kind, probe_hardware("/"),
                                  why, sizeof why);
  if (hw_standin_requested() && (spec.kind == SourceKind::Pebs || spec.kind == SourceKind::PebsStore)) {
    kind = spec.kind;
    snprintf(why, sizeof why, "%s through the TEST stand-in (%s=1: software page faults in "
             "the PEBS record layout, not a measurement)", source_name(kind), kEnvTestHwStandin);
  }
  g_kind = kind;
  g_spec = spec;
  g_config.source_requested = source_name(spec.kind);
  if (spec.kind != SourceKind::Auto && spec.kind != SourceKind::Soft &&
      spec.kind != SourceKind::PageFaults && kind != spec.kind)
    snprintf(g_config.source_fallback, sizeof g_config.source_fallback, "%s", why);
  g_config.source = g_config.sampling ? source_name(kind) : source_name(SourceKind::PageFaults);
  g_config.rate = spec.rate ? spec.rate : kDefaultSoftRate;
  if (spec.kind != SourceKind::Auto && spec.kind != SourceKind::Soft &&
      spec.kind != SourceKind::PageFaults && kind != spec.kind)
    log_warn("%s", why);
  else if (g_config.sampling)
    log_info("sampling source %s", why);
  if (g_config.page_fault_period)
    log_info("page faults: one record every %llu faults",
             (unsigned long long)g_config.page_fault_period);

  const char* out = getenv(kEnvOut);
  if (out && out[0]) {
    snprintf(g_config.out_dir, sizeof g_config.out_dir, "%s", out);
  } else {
    // Same default as the launcher, for LD_PRELOAD set by hand: the program is the first word
    // of the command line.
    std::string program(g_config.cmdline, strcspn(g_config.cmdline, " "));
    snprintf(g_config.out_dir, sizeof g_config.out_dir, "%s", default_out_dir(program).c_str());
  }
}

// The launcher refuses a bad HPCRUN_LITE_SIGNAL; set by hand, it is ignored with a warning (once),
// since SIGSEGV would kill the program at its first sample and SIGKILL cannot be caught.
int sampling_signal() {
  static bool warned = false;
  if (const char* v = getenv(kEnvSignal)) {
    int s;
    if (parse_sampling_signal(v, &s)) return s;
    if (!warned)
      log_warn("ignoring %s=%s: not a real-time signal (%d-%d); sampling with %d", kEnvSignal, v,
               int(SIGRTMIN), int(SIGRTMAX), int(SIGRTMIN + 4));
    warned = true;
  }
  return SIGRTMIN + 4;
}


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
  watch_table_reset();
  g_config.start_ns = wall_ns();
}

void runtime_fini() { process_end_write(EndPath::ExitHandler); }

// The launchers' own daemons and tools inherit the preload from the environment: mpirun starts
// orted (also for a singleton's MPI_Init), Slurm's srun and MPICH's proxies run beside the
// ranks. They are not the user's program; measured, they would add profiles of their own to the
// measurement and be merged with the ranks.
bool is_launcher_process() {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return false;
  exe[n] = 0;
  const char* slash = strrchr(exe, '/');
  const char* name = slash ? slash + 1 : exe;
  for (const char* launcher : {"orted", "prted", "mpirun", "mpiexec", "orterun", "prterun",
                               "prte", "hydra_pmi_proxy", "mpiexec.hydra", "srun", "slurmstepd"})
    if (strcmp(name, launcher) == 0) return true;
  return false;
}

// Each module the registry adds (modules_scan), inside the loader's iteration: its allocator
// calls are pointed at the wrappers, and it is looked at for the Python interpreter, while no
// other thread's dlclose can unmap it.
void on_new_module(const dl_phdr_info* info) {
  allocator_apis_on_object(info);
  python_probe_module(modules_count() - 1);
}

__attribute__((constructor)) void runtime_init() {
  ensure_real_fns();
  // Inert: the wrappers pass every call through (nothing is tracked or sampled, nothing
  // written), and the signal wrappers install what the process asks for.
  if (is_launcher_process()) return;
  // A setuid or setgid program (or one with file capabilities) runs with privileges its user
  // does not have: the runtime must not write files there for that user, nor read its settings
  // from an environment the user controls. The loader already refuses LD_PRELOAD paths in such
  // programs; this covers a runtime that arrives another way (a system preload, a link).
  if (runs_privileged()) return;
  RuntimeGuard guard;
  g_config.start_ns = wall_ns();
  read_cmdline();
  read_options();
  uint64_t brk_lo = read_brk_heap_start();
  g_heap_extent.set_brk_start(brk_lo ? brk_lo : reinterpret_cast<uint64_t>(sbrk(0)));
  unwind_validate_set_stack_check(on_own_stacks);
  unwind_init();  // takes the first snapshot of the program headers (phdr_snapshot.h)
  g_scan_lock.lock();
  modules_set_on_new(on_new_module);
  modules_scan();
  g_scan_lock.unlock();
  bool hw = g_config.sampling && hw_source_for(g_kind);
  if (hw) {
    char err[256];
    if (!hw_init(g_kind, g_spec, sampling_signal(), err, sizeof err)) {
      log_warn("%s cannot sample here (%s); sampling with soft instead", source_name(g_kind), err);
      snprintf(g_config.source_fallback, sizeof g_config.source_fallback, "%s: %.200s",
               source_name(g_kind), err);
      hw = false;
      g_kind = SourceKind::Soft;
      g_config.source = source_name(g_kind);
      g_config.rate = kDefaultSoftRate;
    }
  }
  if (g_config.page_fault_period) pagefaults_init(g_config.page_fault_period, sampling_signal());
  // NUMA placement of sampled pages (numa.h): on unless HPCRUN_LITE_NUMA=0.
  const char* numa = getenv(kEnvNuma);
  if (g_config.sampling && !(numa && strcmp(numa, "0") == 0)) {
    int nodes = numa_init("/");
    if (int err = numa_probe()) {
      log_info("NUMA placement of sampled pages is off: move_pages fails here (%s)", strerror(err));
    } else {
      numa_enable(true);
      log_info("NUMA placement of sampled pages: %d node(s)", nodes);
    }
  } else if (g_config.page_fault_period) {
    // No placement lookups, but first touches are counted by their CPU's node (touch_node.h).
    numa_init("/");
  }
  // The handler serves every source; the timer runs for soft and to read page-fault rings.
  if (g_config.sampling || g_config.page_fault_period)
    sampler_init(g_config.rate, sampling_signal(), g_config.sampling && !hw,
                 !hw || g_config.page_fault_period != 0);
  if ((g_config.wp_sharing_rate || g_config.wp_reuse_rate) && g_config.sampling) {
    WatchConfig wc;
    wc.sharing_rate = g_config.wp_sharing_rate;
    wc.reuse_rate = g_config.wp_reuse_rate;
    // Tests only: shorter or longer windows than the defaults.
    if (const char* v = getenv("HPCRUN_LITE_WP_SHARING_WINDOW_MS")) wc.sharing_window_ns = strtoull(v, nullptr, 10) * 1000000ull;
    if (const char* v = getenv("HPCRUN_LITE_WP_REUSE_WINDOW_MS")) wc.reuse_window_ns = strtoull(v, nullptr, 10) * 1000000ull;
    if (const char* v = getenv("HPCRUN_LITE_WP_REGISTERS")) {
      int n = atoi(v);
      if (n >= 1 && n <= 4) wc.registers = n;
      else log_warn("ignoring HPCRUN_LITE_WP_REGISTERS=%s: not 1-4", v);
    }
    watch_init(wc, sampling_signal());
    log_info("watchpoints: sharing %llu/s (window %llu ms), reuse %llu/s (window %llu ms)",
             (unsigned long long)wc.sharing_rate, (unsigned long long)(wc.sharing_window_ns / 1000000),
             (unsigned long long)wc.reuse_rate, (unsigned long long)(wc.reuse_window_ns / 1000000));
  }
  if (g_config.npapi) {
    PapiEventRequest req[kMaxPapiEvents];
    for (int i = 0; i < g_config.npapi; ++i) req[i] = {g_config.papi_events[i], g_config.papi_periods[i]};
    papi_init(req, g_config.npapi);
  }
  process_end_init();
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
  char every[32];
  log_info("measuring pid %d: source %s at %llu/s, min-bytes %llu, small-every %s, track-budget "
           "%llu/s, output %s", int(getpid()), g_config.source, (unsigned long long)g_config.rate,
           (unsigned long long)g_config.min_bytes,
           small_every_text(g_config.small_every, every, sizeof every),
           (unsigned long long)g_config.track.budget, g_config.out_dir);
}

}  // namespace

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
    modules_forget_unloaded(decode_cache_invalidate);
  g_scan_lock.unlock();
}

void scan_now() {
  if (!g_scan_lock.try_lock()) return;  // another thread scans
  g_modules_dirty.store(false, std::memory_order_relaxed);
  g_loader_added.store(false, std::memory_order_relaxed);
  // Forget first: a library mapped where a closed one was must not look already scanned.
  if (g_unload_pending.exchange(false, std::memory_order_acq_rel))
    modules_forget_unloaded(decode_cache_invalidate);
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

}  // namespace hpcrun

using namespace hpcrun;

extern "C" {

HPCL_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                               void* (*fn)(void*), void* arg) {
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

}  // extern "C"
