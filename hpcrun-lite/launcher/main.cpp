// hpcrun-lite: measures a program with the preloaded runtime.
//   hpcrun-lite [options] [--] PROGRAM [ARGS...]
// Parses and validates the options (every one also has an environment variable, so the runtime
// works with LD_PRELOAD set by hand), then execs the program with the runtime preloaded.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "launch.h"
#include "options.h"
#include "sources/source_probe.h"

using namespace hpcrun;

namespace {

void usage(FILE* out) {
  fprintf(out,
      "usage: hpcrun-lite [options] [--] PROGRAM [ARGS...]\n"
      "       mpirun -np N hpcrun-lite [options] -- PROGRAM [ARGS...]\n"
      "\n"
      "Measures which variables (heap allocations, static arrays) the program's memory\n"
      "accesses go to. Each process writes one profile into the measurement directory;\n"
      "merge them with `hpcprof-lite merge DIR -o DB`.\n"
      "\n"
      "options:\n"
      "  -o, --output DIR     measurement directory (%s)\n"
      "                       default: hpcrun-lite-<exe>-measurements[-<jobid>]\n"
      "  -e, --event SRC[@R]  sampling source, repeatable (%s):\n"
      "                         auto  the best precise hardware source, else soft (default)\n"
      "                         soft  software address sampling; R = samples per second of\n"
      "                               each thread's CPU time (default %llu, at most %llu)\n"
      "                         pebs, ibs  precise hardware sources (see --list-sources)\n"
      "  --min-bytes N        allocations of at least N bytes are always tracked\n"
      "                       (%s, default %llu; k/m/g suffixes)\n"
      "  --small-every auto|N which smaller allocations are tracked (%s):\n"
      "                         auto  (default) every one while the thread stays within\n"
      "                               its tracking budget, beyond it one in k (k adapts);\n"
      "                               such a block stands for k in the estimates\n"
      "                         N     one in N, fixed (1 = every one, 0 = none)\n"
      "  --track-budget N     with auto: tracked small allocations per second of each\n"
      "                       thread, sustained (%s, default %llu)\n"
      "  -l, --list-sources   print which sampling sources this machine has, and exit\n"
      "  -v, --verbose        report what the runtime does on stderr (%s=1)\n"
      "  -h, --help           this text\n"
      "  --version            print the version\n"
      "\n"
      "The program's output and exit status are its own; hpcrun-lite speaks on stderr,\n"
      "prefixed 'hpcrun-lite:', only when something is wrong or with -v.\n",
      kEnvOut, kEnvEvents, (unsigned long long)kDefaultSoftRate, (unsigned long long)kMaxSoftRate,
      kEnvMinBytes, (unsigned long long)kDefaultMinBytes, kEnvSmallEvery, kEnvTrackBudget,
      (unsigned long long)kDefaultTrackBudget, kEnvVerbose);
}

int list_sources() {
  HardwareProbe hw = probe_hardware("/sys/bus/event_source/devices");
  printf("soft   available: perf task-clock sampling + instruction decoding\n");
  printf("pebs   %s\n", hw.pebs ? "present on this machine (no reader in this version yet)"
                                : "not available (no Intel core PMU with load latency)");
  printf("ibs    %s\n", hw.ibs_op ? "present on this machine (no reader in this version yet)"
                                  : "not available (no AMD ibs_op PMU)");
  char why[256];
  choose_source(SourceKind::Auto, hw, why, sizeof why);
  printf("auto   -> %s\n", why);
  return 0;
}

bool take_value(int argc, char** argv, int* i, const char* name, const char** out) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "hpcrun-lite: %s needs a value\n", name);
    return false;
  }
  *out = argv[++*i];
  return true;
}

// Each option's environment variable is its default, so a job script can set them once.
bool defaults_from_environment(LaunchRequest* req) {
  char err[256];
  if (const char* v = getenv(kEnvOut); v && *v) req->out_dir = v;
  if (const char* v = getenv(kEnvEvents); v && *v) {
    if (!parse_sources(v, &req->opts, err, sizeof err)) {
      fprintf(stderr, "hpcrun-lite: %s=%s: %s\n", kEnvEvents, v, err);
      return false;
    }
  }
  struct { const char* var; uint64_t* slot; } sizes[] = {
      {kEnvMinBytes, &req->opts.min_bytes}, {kEnvTrackBudget, &req->opts.track_budget}};
  for (auto& s : sizes) {
    const char* v = getenv(s.var);
    if (v && *v && !parse_size(v, s.slot)) {
      fprintf(stderr, "hpcrun-lite: %s=%s is not a number\n", s.var, v);
      return false;
    }
  }
  if (const char* v = getenv(kEnvSmallEvery);
      v && *v && !parse_small_every(v, &req->opts.small_every)) {
    fprintf(stderr, "hpcrun-lite: %s=%s is neither auto nor a number\n", kEnvSmallEvery, v);
    return false;
  }
  if (const char* v = getenv(kEnvVerbose); v && *v && strcmp(v, "0") != 0) req->opts.verbose = true;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  LaunchRequest req;
  if (!defaults_from_environment(&req)) return 2;
  bool events_from_command_line = false;
  int i = 1;
  for (; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = nullptr;
    char err[256];
    if (strcmp(a, "--") == 0) { ++i; break; }
    if (a[0] != '-') break;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
    if (!strcmp(a, "--version")) { printf("hpcrun-lite %s\n", HPCL_VERSION); return 0; }
    if (!strcmp(a, "-l") || !strcmp(a, "--list-sources")) return list_sources();
    if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) { req.opts.verbose = true; continue; }
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (!take_value(argc, argv, &i, a, &v)) return 2;
      req.out_dir = v;
    } else if (!strcmp(a, "-e") || !strcmp(a, "--event")) {
      if (!take_value(argc, argv, &i, a, &v)) return 2;
      if (!events_from_command_line) req.opts.nsources = 0;  // -e replaces the environment's list
      events_from_command_line = true;
      if (req.opts.nsources == kMaxSources) {
        fprintf(stderr, "hpcrun-lite: at most %d sources\n", kMaxSources);
        return 2;
      }
      SourceSpec spec;
      if (!parse_source(v, strlen(v), &spec, err, sizeof err)) {
        fprintf(stderr, "hpcrun-lite: %s\n", err);
        return 2;
      }
      req.opts.sources[req.opts.nsources++] = spec;
    } else if (!strcmp(a, "--min-bytes") || !strcmp(a, "--track-budget")) {
      if (!take_value(argc, argv, &i, a, &v)) return 2;
      uint64_t n;
      if (!parse_size(v, &n)) {
        fprintf(stderr, "hpcrun-lite: %s: '%s' is not a number\n", a, v);
        return 2;
      }
      (a[2] == 'm' ? req.opts.min_bytes : req.opts.track_budget) = n;
    } else if (!strcmp(a, "--small-every")) {
      if (!take_value(argc, argv, &i, a, &v)) return 2;
      if (!parse_small_every(v, &req.opts.small_every)) {
        fprintf(stderr, "hpcrun-lite: %s: '%s' is neither auto nor a number\n", a, v);
        return 2;
      }
    } else {
      fprintf(stderr, "hpcrun-lite: unknown option %s (see hpcrun-lite --help)\n", a);
      return 2;
    }
  }
  if (i >= argc) {
    fprintf(stderr, "hpcrun-lite: no program to measure\n");
    usage(stderr);
    return 2;
  }
  for (int k = 0; k < req.opts.nsources; ++k) {
    SourceKind kind = req.opts.sources[k].kind;
    if (kind == SourceKind::Pebs || kind == SourceKind::Ibs) {
      char why[256];
      choose_source(kind, probe_hardware("/sys/bus/event_source/devices"), why, sizeof why);
      fprintf(stderr, "hpcrun-lite: cannot use %s: %s (try -e soft)\n", source_name(kind), why);
      return 2;
    }
  }
  for (; i < argc; ++i) req.argv.emplace_back(argv[i]);
  return launch(req);
}
