/* Fill and weighted-read helpers shared by the test programs (see workload.h). */
#define _POSIX_C_SOURCE 200809L
#include "workload.h"

#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void fill_array(double *a, size_t n, double seed) {
  for (size_t i = 0; i < n; i++)
    a[i] = seed + (double)(i % 1024) * 0.001;
}

/* CPU time of the whole process (every thread), not wall time: samples are taken per thread-CPU
 * millisecond, and on a busy machine wall time also counts the time the threads waited to run.
 * For kernels other than sum_array, which times its loop on each thread's clock (kernel.h). */
static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Where the per-array timing goes: HPCL_TEST_TIMING=1 prints it to stderr; HPCL_TEST_TIMING_FILE=P
 * appends it to P.<pid> (one file per process), which leaves the program's own output untouched. */
FILE *test_timing_stream(int *must_close) {
  *must_close = 0;
  const char *file = getenv("HPCL_TEST_TIMING_FILE");
  if (file != NULL && *file != '\0') {
    char path[4096];
    snprintf(path, sizeof path, "%s.%ld", file, (long)getpid());
    FILE *f = fopen(path, "a");
    if (f != NULL) {
      *must_close = 1;
      return f;
    }
  }
  const char *env = getenv("HPCL_TEST_TIMING");
  return env != NULL && strcmp(env, "1") == 0 ? stderr : NULL;
}

void write_timing(const char *const *labels, const int *weights, const double *seconds,
                  const long *calls, int count) {
  int must_close = 0;
  FILE *out = test_timing_stream(&must_close);
  if (out == NULL)
    return;
  for (int i = 0; i < count; i++)
    fprintf(out, "timing: %-16s weight %2d  %8.1f us/call  %6.3f s total\n", labels[i], weights[i],
            calls[i] ? seconds[i] / (double)calls[i] * 1e6 : 0.0, seconds[i]);
  if (must_close)
    fclose(out);
}

/* A call that took more than this many times its array's fastest call so far is counted as that
 * bound: time the samples do not see must not count as the array's. Most likely it is time the
 * host took the vCPU away: a guest that does not report steal time (the project's Firecracker
 * VMs: /proc/stat's steal column stays 0) counts it as the running thread's CPU time, and the
 * timer, which fires on the host's clock, samples it once. In about one run in three of
 * e2e.mpi_alloc_apis (two ranks of two threads on two vCPUs, 4 Dec 2026) one array's calls on
 * one rank averaged 530-900 us against 360-390 us for every other array and rank, and its time
 * share rose up to 3.2 points above its samples'. A sample's handler adds tens of microseconds
 * to a call of a few hundred, well under the bound. */
static const double kStallFactor = 3.0;

double run_weighted(const struct test_array *arrays, int count, int rounds) {
  return run_weighted_kernel(arrays, count, rounds, sum_array);
}

double run_weighted_kernel(const struct test_array *arrays, int count, int rounds, test_kernel kernel) {
  int must_close = 0;
  FILE *out = test_timing_stream(&must_close);
  int timing = out != NULL;
  if (must_close)
    fclose(out);  /* write_timing opens it again at the end */
  double seconds[64] = {0};
  long calls[64] = {0};
  double total = 0.0;
  /* sum_array times itself per thread (kernel.h); other kernels by the process clock. */
  const int own_clock = kernel == sum_array;
  if (timing && own_clock)
    sum_array_timing = 1;
  double (*clock_now)(void) = own_clock ? sum_array_cpu_seconds : now_seconds;

  /* The fastest call of each array so far, for the stall cap below (own clock only: the process
   * clock moves in 4 ms steps, so a call's reading can be 0 or a whole step). */
  double fastest[64] = {0};
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < count; i++) {
      for (int k = 0; k < arrays[i].weight; k++) {
        double t0 = timing ? clock_now() : 0.0;
        total += kernel(arrays[i].data, TEST_ARRAY_DOUBLES);
        if (timing && i < 64) {
          double dt = clock_now() - t0;
          if (own_clock && dt > 0.0) {
            if (fastest[i] == 0.0 || dt < fastest[i])
              fastest[i] = dt;
            if (dt > kStallFactor * fastest[i])
              dt = kStallFactor * fastest[i];
          }
          seconds[i] += dt;
          calls[i]++;
        }
      }
    }
  }
  if (timing) {
    const char *labels[64];
    int weights[64];
    int n = count < 64 ? count : 64;
    for (int i = 0; i < n; i++) {
      labels[i] = arrays[i].label;
      weights[i] = arrays[i].weight;
    }
    write_timing(labels, weights, seconds, calls, n);
  }
  return total;
}

int rounds_from_args(int argc, char **argv, int fallback) {
  if (argc < 2)
    return fallback;
  char *end = NULL;
  long v = strtol(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0' || v <= 0 || v > 1000000) {
    fprintf(stderr, "usage: %s [ROUNDS]\n", argv[0]);
    exit(2);
  }
  return (int)v;
}
