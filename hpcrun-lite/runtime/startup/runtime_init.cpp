// Start-up of the preloaded runtime: its constructor reads the options, brings up every source
// through the source table (each row's claim, then its init: process/source_table.h) and hands
// over to the process's life cycle (process/runtime.h: runtime_start_measuring). This folder sits
// above all others: it wires the allocator hooks' module callback and the writer into the layers
// below, and reads two sources' options (the PEBS test stand-in, the watchpoints' default rates).
//
// Order at start-up matters: the real functions first (every wrapper needs them), then options,
// libunwind, the module scan (static variables), the sources, and only then are allocations
// tracked and the main thread sampled. A failure in any step is reported once on stderr and
// measurement continues with what works: the program itself must run exactly as without us.
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "base/clock.h"
#include "base/guard.h"
#include "base/log.h"
#include "base/real_fns.h"
#include "env_vars.h"
#include "interpose/allocator_apis.h"
#include "hpcrun/probe/source_verdict.h"
#include "loader/find_object.h"
#include "memory/heap_extent.h"
#include "loader/modules.h"
#include "options.h"
#include "process/mpi_rank.h"
#include "process/runtime.h"
#include "process/source_table.h"
#include "process/thread_state.h"
#include "process_env.h"
#include "python/py_probe.h"
#include "run_id.h"
#include "trees/cct.h"
#include "unwind/unwind.h"
#include "unwind/unwind_validate.h"
#include "writer/writer.h"

namespace hpcrun {
namespace {

// The address-sampling source of this run and its request (read_options).
struct AddressSampling {
  SourceKind kind = SourceKind::Soft;
  SourceSpec spec;
};

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

AddressSampling read_options() {
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
    // Each source's own entries (page faults, watchpoints, PAPI events) go to its row.
    for (int i = 0; i < opts.nsources; ++i) {
      if (sources_claim_option(opts.sources[i], g_config) || sampling) continue;
      spec = opts.sources[i];
      sampling = true;
    }
  }
  g_config.sampling = sampling || g_config.page_fault_period == 0;
  char why[256];
  SourceKind kind = choose_source(spec.kind, probe_hardware("/"),
                                  why, sizeof why);
  if (sources_serve_anyway(spec.kind, why, sizeof why)) kind = spec.kind;
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
  return AddressSampling{kind, spec};
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
  const AddressSampling sampling = read_options();
  uint64_t brk_lo = read_brk_heap_start();
  g_heap_extent.set_brk_start(brk_lo ? brk_lo : reinterpret_cast<uint64_t>(sbrk(0)));
  unwind_validate_set_stack_check(on_own_stacks);
  unwind_init();  // takes the first snapshot of the program headers (phdr_snapshot.h)
  runtime_scan_first(on_new_module);
  // Every source, from the table: the hardware source claims the address sampling first (or
  // gives way to soft), then each row starts what the options asked for.
  SourceStart start{g_config, sampling_signal(), sampling.kind, sampling.spec};
  sources_init(start);
  runtime_start_measuring(write_process_profile);
  char every[32];
  log_info("measuring pid %d: source %s at %llu/s, min-bytes %llu, small-every %s, track-budget "
           "%llu/s, output %s", int(getpid()), g_config.source, (unsigned long long)g_config.rate,
           (unsigned long long)g_config.min_bytes,
           small_every_text(g_config.small_every, every, sizeof every),
           (unsigned long long)g_config.track.budget, g_config.out_dir);
}

}  // namespace
}  // namespace hpcrun
