// hpcrun-lite: measures a program with the preloaded runtime.
//   hpcrun-lite [options] [--] PROGRAM [ARGS...]
// Parses and validates the options (every one also has an environment variable, so the runtime
// works with LD_PRELOAD set by hand), then execs the program with the runtime preloaded.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "check.h"
#include "hpcl_build_info.h"
#include "env_vars.h"
#include "launch.h"
#include "options.h"
#include "papi_query.h"
#include "hpcrun/probe/source_verdict.h"
#include "hpcrun/probe/watch_probe.h"

using namespace hpcrun;

namespace {

// A source asked for by name is unavailable here (2 stays for a bad command line).
constexpr int kExitUnavailable = 3;

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
      "  -o, --output DIR    measurement directory (%s)\n"
      "                      default: hpcrun-lite-<exe>-measurements[-<jobid>]\n"
      "  --umask             create the directory and the profiles with the modes the\n"
      "                      umask allows (HPCRUN_LITE_UMASK=1); default 0700 and 0600\n"
      "  -e, --event SRC[@R] sampling source, repeatable (%s):\n"
      "    auto              the best precise hardware source, else soft (default)\n"
      "    soft              software address sampling; R = samples per second of\n"
      "                      each thread's CPU time (default %llu, at most %llu)\n"
      "    pebs-load[@P][:ldlat=N], pebs-store[@P], ibs-op[@P][:l3miss]\n"
      "                      precise hardware sources, P = event period\n"
      "                      (pebs = pebs-load, ibs = ibs-op)\n"
      "    page-faults[@N]   first touch: which variable each page fault touched\n"
      "                      and which threads touched it first (finds serial\n"
      "                      initialisation), beside another source or alone\n"
      "    PAPI_NAME[@P], COMPONENT::EVENT[@P]\n"
      "                      a PAPI counter beside the address source\n"
      "                      (PAPI_TOT_CYC, sde:::LIB::EV, ...)\n"
      "    wp-sharing[@R], wp-reuse[@R]\n"
      "                      false sharing and reuse times from debug-register\n"
      "                      watchpoints, beside the address source; R = arming\n"
      "                      decisions per second per thread\n"
      "                      A source named here that this machine cannot give stops\n"
      "                      the launcher before the program starts (exit status 3).\n"
      "  --min-bytes N       allocations of at least N bytes are always tracked\n"
      "                      (%s, default %llu; k/m/g suffixes)\n"
      "  --small-every auto|N\n"
      "                      which smaller allocations are tracked\n"
      "                      (%s):\n"
      "    auto              (default) every one while the thread stays within its\n"
      "                      tracking budget, beyond it one in k (k adapts); such a\n"
      "                      block stands for k in the estimates\n"
      "    N                 one in N, fixed (1 = every one, 0 = none)\n"
      "  --track-budget N    with auto: tracked small allocations per second of each\n"
      "                      thread, sustained, one per 200 ns each costs\n"
      "                      (%s, default %llu)\n"
      "  --check             report what this machine offers (kernel, permissions,\n"
      "                      PMUs, PAPI, which sources work and the perf events each\n"
      "                      opens, what auto picks) with fixes; exit 0 (the\n"
      "                      HPCRUN_LITE_* variables are checked first). With it:\n"
      "    --root DIR        read a copy of another machine's /sys and /proc files\n"
      "                      under DIR instead (README.md, \"On a new cluster\", says\n"
      "                      how to make one); opens nothing\n"
      "    --json            print the report as JSON (docs/USAGE.md)\n"
      "    --validate        measure a built-in kernel with known proportions under\n"
      "                      each source that works here and compare; exit 1 if one\n"
      "                      fails\n"
      "  -l, --list-sources  the same as --check\n"
      "  -v, --verbose       report what the runtime does on stderr\n"
      "                      (%s=1)\n"
      "  -h, --help          this text\n"
      "  --version           print the version and the commit\n"
      "\n"
      "Before the program starts, the launcher checks the program, the options,\n"
      "every HPCRUN_LITE_* variable and the measurement directory (it must take a\n"
      "file), and stops with status 2 (126, 127 for the program) and the reason when\n"
      "one is wrong. The program's output and exit status are its own; hpcrun-lite\n"
      "speaks on stderr, prefixed 'hpcrun-lite:', only when something is wrong or\n"
      "with -v.\n",
      kEnvOut, kEnvEvents, (unsigned long long)kDefaultSoftRate, (unsigned long long)kMaxSoftRate,
      kEnvMinBytes, (unsigned long long)kDefaultMinBytes, kEnvSmallEvery, kEnvTrackBudget,
      (unsigned long long)kDefaultTrackBudget, kEnvVerbose);
}

void say_refusal(const char* name, const char* reason, const char* fix) {
  fprintf(stderr, "hpcrun-lite: cannot use %s: %s\n", name, reason);
  if (fix && *fix) fprintf(stderr, "hpcrun-lite: fix: %s\n", fix);
  fprintf(stderr, "hpcrun-lite: the program was not started (see hpcrun-lite --check)\n");
}

// A source asked for by name that cannot be used here stops the launcher before the program
// starts (kExitUnavailable), so a job never runs unmeasured by surprise. Only auto falls back,
// and -v says to what.
int refuse_unavailable(const Options& opts) {
  HardwareProbe hw;
  bool probed = false;
  for (int k = 0; k < opts.nsources; ++k) {
    const SourceSpec& spec = opts.sources[k];
    if (spec.kind == SourceKind::Papi) {
      std::string why;
      PapiView view = papi_view();
      if (!papi_event_available(view, spec.papi_event, &why)) {
        if (!probed) hw = probe_hardware("/");
        probed = true;
        say_refusal(spec.papi_event, why.c_str(), hw.hypervisor && !hw.cpu_pmu
                    ? "a VM without vPMU: use -e soft" : "use -e soft, or a machine PAPI has counters on");
        return kExitUnavailable;
      }
      continue;
    }
    if (spec.kind == SourceKind::WpSharing || spec.kind == SourceKind::WpReuse) {
      char why[256];
      if (!watch_usable(probe_watchpoints(), why, sizeof why)) {
        say_refusal(source_name(spec.kind), why, "hpcrun-lite --check lists what works; drop -e wp-*");
        return kExitUnavailable;
      }
      continue;
    }
    ProbedSource s = probed_for(spec.kind);
    if (s == kNumProbed || s == kProbeSoft) continue;
    if (!probed) {
      hw = probe_hardware("/");
      probe_opens(&hw);
      probed = true;
    }
    SourceVerdict v = source_verdict(hw, s);
    if (v.verdict != Verdict::Works) {
      say_refusal(source_name(spec.kind), v.reason, v.fix);
      return kExitUnavailable;
    }
  }
  if (opts.verbose && (opts.nsources == 0 || opts.sources[0].kind == SourceKind::Auto)) {
    if (!probed) {
      hw = probe_hardware("/");
      probe_opens(&hw);
    }
    char why[256];
    auto_choice(hw, why, sizeof why);
    fprintf(stderr, "hpcrun-lite: auto -> %s\n", why);
  }
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

// The variable's number, or the reason it is none ("too large" for 99999999999999999999g).
bool size_value(const char* what, const char* v, uint64_t* slot) {
  if (parse_size(v, slot)) return true;
  fprintf(stderr, "hpcrun-lite: %s: '%s' is %s\n", what, v, size_problem(v));
  return false;
}

// Each option's environment variable is its default, so a job script can set them once. Every
// HPCRUN_LITE_* variable is checked first, also those without an option: the runtime would
// otherwise ignore a misspelt name or a bad value, and the job would run unmeasured or worse.
bool defaults_from_environment(LaunchRequest* req) {
  char err[256];
  if (!check_environment(environ, err, sizeof err)) {
    fprintf(stderr, "hpcrun-lite: %s; the program was not started\n", err);
    return false;
  }
  if (const char* v = getenv(kEnvOut); v && *v) req->out_dir = v;
  if (const char* v = getenv(kEnvEvents); v && *v) {
    if (!parse_sources(v, &req->opts, err, sizeof err)) {
      fprintf(stderr, "hpcrun-lite: %s=%s: %s\n", kEnvEvents, v, err);
      return false;
    }
  }
  if (const char* v = getenv(kEnvMinBytes); v && *v && !size_value(kEnvMinBytes, v, &req->opts.min_bytes))
    return false;
  if (const char* v = getenv(kEnvTrackBudget);
      v && *v && !size_value(kEnvTrackBudget, v, &req->opts.track_budget))
    return false;
  if (const char* v = getenv(kEnvSmallEvery);
      v && *v && !parse_small_every(v, &req->opts.small_every)) {
    fprintf(stderr, "hpcrun-lite: %s=%s is neither auto nor a number\n", kEnvSmallEvery, v);
    return false;
  }
  if (const char* v = getenv(kEnvVerbose); v && *v && strcmp(v, "0") != 0) req->opts.verbose = true;
  return true;
}

// The command line as given, applied over the environment's defaults once it has been read
// whole: an unknown option is an error whatever else the line holds (--check, --help).
struct CommandLine {
  bool help = false, version = false, check = false, verbose = false, umask = false;
  const char* out = nullptr;
  std::vector<const char*> events;
  const char* min_bytes = nullptr;
  const char* track_budget = nullptr;
  const char* small_every = nullptr;
  CheckRequest check_request;          // --root, --json, --validate
  const char* check_only = nullptr;    // the first option that goes with --check only
  int program = 0;  // argv index of the program, 0 without one
};

bool parse_command_line(int argc, char** argv, CommandLine* cl) {
  int i = 1;
  for (; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--") == 0) {
      ++i;
      break;
    }
    if (a[0] != '-' || a[1] == 0) break;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) cl->help = true;
    else if (!strcmp(a, "--version")) cl->version = true;
    else if (!strcmp(a, "--check") || !strcmp(a, "-l") || !strcmp(a, "--list-sources")) cl->check = true;
    else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) cl->verbose = true;
    else if (!strcmp(a, "--umask")) cl->umask = true;
    else if (!strcmp(a, "--json") || !strcmp(a, "--validate")) {
      (a[2] == 'j' ? cl->check_request.json : cl->check_request.validate) = true;
      if (!cl->check_only) cl->check_only = a;
    } else if (!strcmp(a, "--root")) {
      const char* v = nullptr;
      if (!take_value(argc, argv, &i, a, &v)) return false;
      cl->check_request.root = v;
      if (!cl->check_only) cl->check_only = a;
    }
    else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (!take_value(argc, argv, &i, a, &cl->out)) return false;
    } else if (!strcmp(a, "-e") || !strcmp(a, "--event")) {
      const char* v;
      if (!take_value(argc, argv, &i, a, &v)) return false;
      cl->events.push_back(v);
    } else if (!strcmp(a, "--min-bytes")) {
      if (!take_value(argc, argv, &i, a, &cl->min_bytes)) return false;
    } else if (!strcmp(a, "--track-budget")) {
      if (!take_value(argc, argv, &i, a, &cl->track_budget)) return false;
    } else if (!strcmp(a, "--small-every")) {
      if (!take_value(argc, argv, &i, a, &cl->small_every)) return false;
    } else {
      fprintf(stderr, "hpcrun-lite: unknown option %s (see hpcrun-lite --help)\n", a);
      return false;
    }
  }
  cl->program = i < argc ? i : 0;
  return true;
}

// The command line over the environment's defaults: -e replaces the environment's list.
bool apply_command_line(const CommandLine& cl, LaunchRequest* req) {
  char err[256];
  if (cl.verbose) req->opts.verbose = true;
  // The measured processes inherit it: their profiles are created by the umask too.
  if (cl.umask) setenv(kEnvUmask, "1", 1);
  if (cl.out) req->out_dir = cl.out;
  if (!cl.events.empty()) req->opts.nsources = 0;
  for (const char* v : cl.events) {
    if (req->opts.nsources == kMaxSources) {
      fprintf(stderr, "hpcrun-lite: at most %d sources\n", kMaxSources);
      return false;
    }
    SourceSpec spec;
    if (!parse_source(v, strlen(v), &spec, err, sizeof err)) {
      fprintf(stderr, "hpcrun-lite: %s\n", err);
      return false;
    }
    req->opts.sources[req->opts.nsources++] = spec;
  }
  if (cl.min_bytes && !size_value("--min-bytes", cl.min_bytes, &req->opts.min_bytes)) return false;
  if (cl.track_budget && !size_value("--track-budget", cl.track_budget, &req->opts.track_budget))
    return false;
  if (cl.small_every && !parse_small_every(cl.small_every, &req->opts.small_every)) {
    fprintf(stderr, "hpcrun-lite: --small-every: '%s' is neither auto nor a number\n", cl.small_every);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CommandLine cl;
  if (!parse_command_line(argc, argv, &cl)) return 2;
  if (cl.help) {
    usage(stdout);
    return 0;
  }
  if (cl.version) {
    printf("hpcrun-lite %s\n", HPCL_VERSION_TEXT);
    return 0;
  }
  if (cl.check_only && !cl.check) {
    fprintf(stderr, "hpcrun-lite: %s goes with --check\n", cl.check_only);
    return 2;
  }
  if (cl.check && cl.program) {
    fprintf(stderr, "hpcrun-lite: --check measures nothing: it takes no program (%s)\n", argv[cl.program]);
    return 2;
  }
  LaunchRequest req;
  if (!defaults_from_environment(&req) || !apply_command_line(cl, &req)) return 2;
  if (cl.check) return run_check(cl.check_request);
  if (!cl.program) {
    fprintf(stderr, "hpcrun-lite: no program to measure\n");
    usage(stderr);
    return 2;
  }
  if (int status = refuse_unavailable(req.opts)) return status;
  for (int i = cl.program; i < argc; ++i) req.argv.emplace_back(argv[i]);
  return launch(req);
}
