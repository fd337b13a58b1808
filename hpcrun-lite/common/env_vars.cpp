// The table of the runtime's environment variables and their checks; see env_vars.h.
#include "env_vars.h"

#include <signal.h>

#include <cstdio>
#include <cstring>

#include "options.h"

namespace hpcrun {
namespace {

bool any(const char*) { return true; }

bool flag(const char* v) { return !strcmp(v, "0") || !strcmp(v, "1"); }

bool decimal(const char* v) {
  uint64_t n;
  return *v >= '0' && *v <= '9' && parse_size(v, &n) && v[strlen(v) - 1] <= '9';
}

bool size(const char* v) {
  uint64_t n;
  return parse_size(v, &n);
}

bool small_every(const char* v) {
  uint64_t n;
  return parse_small_every(v, &n);
}

bool sources(const char* v) {
  Options o;
  char err[8];
  return parse_sources(v, &o, err, sizeof err);
}

bool signal_number(const char* v) {
  int s;
  return parse_sampling_signal(v, &s);
}

bool registers(const char* v) { return v[0] >= '1' && v[0] <= '4' && v[1] == 0; }

bool one_of(const char* v, const char* const* words) {
  for (; *words; ++words)
    if (!strcmp(v, *words)) return true;
  return false;
}

bool writer_fault(const char* v) {
  static const char* const kWords[] = {"segv", "abort", nullptr};
  return one_of(v, kWords);
}

bool handler_stage(const char* v) {
  static const char* const kWords[] = {"entry", "decode", "classify", "unwind", nullptr};
  return one_of(v, kWords);
}

bool run_id(const char* v) {
  size_t n = strlen(v);
  if (n == 0 || n > kMaxRunId) return false;
  for (size_t i = 0; i < n; ++i)
    if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f'))) return false;
  return true;
}

const EnvVar kVars[] = {
    {kEnvOut, "a directory", any, false},
    {kEnvEvents, "sources as -e takes them, comma-separated", sources, false},
    {kEnvMinBytes, "a size in bytes (k, m, g suffixes)", size, false},
    {kEnvSmallEvery, "auto or a number", small_every, false},
    {kEnvTrackBudget, "a number", size, false},
    {kEnvVerbose, "0 or 1", flag, false},
    {kEnvUmask, "0 or 1", flag, false},
    {kEnvSignal, "a real-time signal number (SIGRTMIN to SIGRTMAX)", signal_number, false},
    {kEnvSigtrap, "0 or 1", flag, false},
    {kEnvNuma, "0 or 1", flag, false},
    {kEnvRunId, "up to 32 lower-case hex digits (set by the launcher)", run_id, false},
    {"HPCRUN_LITE_WP_REGISTERS", "1, 2, 3 or 4", registers, false},
    {"HPCRUN_LITE_WP_SHARING_WINDOW_MS", "a number of milliseconds", decimal, true},
    {"HPCRUN_LITE_WP_REUSE_WINDOW_MS", "a number of milliseconds", decimal, true},
    {"HPCRUN_LITE_TEST_HW_STANDIN", "0 or 1", flag, true},
    {"HPCRUN_LITE_TEST_HW_FALLBACK", "0 or 1", flag, true},
    {"HPCRUN_LITE_TEST_WRITER_FAULT", "segv or abort", writer_fault, true},
    {"HPCRUN_LITE_TEST_HANDLER_STAGE", "entry, decode, classify or unwind", handler_stage, true},
    {"HPCRUN_LITE_TEST_HANDLER_SPIN_US", "a number of microseconds", decimal, true},
    {"HPCRUN_LITE_TEST_TREE_NODES", "a number", decimal, true},
    {"HPCRUN_LITE_TEST_MAP_BLOCKS", "a number", decimal, true},
    {"HPCRUN_LITE_TEST_NO_DL_FIND_OBJECT", "0 or 1", flag, true},
};

// Edit distance of two short names, capped: enough to suggest HPCRUN_LITE_EVENTS for
// HPCRUN_LITE_EVENT without allocating.
size_t distance(const char* a, size_t na, const char* b, size_t nb) {
  constexpr size_t kMax = 64;
  if (na >= kMax || nb >= kMax) return kMax;
  size_t row[kMax + 1];
  for (size_t j = 0; j <= nb; ++j) row[j] = j;
  for (size_t i = 1; i <= na; ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; ++j) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

}  // namespace

const EnvVar* env_vars(size_t* count) {
  *count = sizeof kVars / sizeof kVars[0];
  return kVars;
}

const EnvVar* find_env_var(const char* name) {
  for (const EnvVar& v : kVars)
    if (!strcmp(v.name, name)) return &v;
  return nullptr;
}

bool parse_sampling_signal(const char* value, int* signo) {
  uint64_t n;
  if (!value || *value < '0' || *value > '9' || !parse_size(value, &n) ||
      value[strlen(value) - 1] > '9')
    return false;
  if (n < uint64_t(SIGRTMIN) || n > uint64_t(SIGRTMAX)) return false;
  *signo = int(n);
  return true;
}

bool check_environment(char** environ, char* err, size_t errlen) {
  static constexpr char kPrefix[] = "HPCRUN_LITE_";
  for (char** e = environ; e && *e; ++e) {
    if (strncmp(*e, kPrefix, sizeof kPrefix - 1) != 0) continue;
    const char* eq = strchr(*e, '=');
    if (!eq) continue;
    const size_t len = size_t(eq - *e);
    const char* value = eq + 1;
    const EnvVar* known = nullptr;
    const EnvVar* nearest = nullptr;
    size_t best = 3;  // suggest names at most two edits away
    for (const EnvVar& v : kVars) {
      if (strlen(v.name) == len && !strncmp(v.name, *e, len)) known = &v;
      size_t d = distance(*e, len, v.name, strlen(v.name));
      if (d < best) best = d, nearest = &v;
    }
    if (!known) {
      if (nearest)
        snprintf(err, errlen, "%.*s is not a variable of hpcrun-lite (did you mean %s?)", int(len), *e,
                 nearest->name);
      else
        snprintf(err, errlen, "%.*s is not a variable of hpcrun-lite (docs/USAGE.md lists them)",
                 int(len), *e);
      return false;
    }
    if (!known->valid(value)) {
      snprintf(err, errlen, "%s=%s: expected %s", known->name, value, known->accepts);
      return false;
    }
  }
  return true;
}

}  // namespace hpcrun
