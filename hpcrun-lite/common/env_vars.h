// Every HPCRUN_LITE_* variable the runtime reads, with what it accepts. The launcher checks the
// environment against this table before the program starts, so that a typo (a misspelt name, a
// signal that would kill the program, a word where a number belongs) stops the job at once
// instead of costing its measurement; the runtime, preloaded by hand, uses the same checks and
// ignores a bad value with a warning. Checking allocates nothing.
#pragma once

#include <cstddef>

namespace hpcrun {

struct EnvVar {
  const char* name;
  const char* accepts;                // "0 or 1", for the message
  bool (*valid)(const char* value);   // allocation-free
  bool test_only;                     // documented as being for the tests and benchmarks
};

// The table, in the order USAGE.md lists the variables.
const EnvVar* env_vars(size_t* count);
// The entry of `name` (the whole variable name), or nullptr.
const EnvVar* find_env_var(const char* name);

// The real-time signal the sampler may use: a decimal number from SIGRTMIN to SIGRTMAX (34-64
// with glibc). Another signal would change what the program sees: SIGSEGV's default kills it at
// the first sample, SIGKILL cannot be caught, SIGCHLD or SIGWINCH would reach its handlers.
bool parse_sampling_signal(const char* value, int* signo);

// Checks every HPCRUN_LITE_* variable of `environ`: an unknown name (with the nearest known one,
// when it is one edit or two away) or a bad value. Returns false at the first problem with the
// message in `err` (NUL-terminated, without the program name).
bool check_environment(char** environ, char* err, size_t errlen);

}  // namespace hpcrun
