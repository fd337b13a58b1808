/* Fill and weighted-read helpers shared by the test programs. */
#ifndef HPCL_TEST_WORKLOAD_H
#define HPCL_TEST_WORKLOAD_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every test array holds this many doubles: 4 MiB, small enough for main's stack. */
#define TEST_ARRAY_DOUBLES ((size_t)4 << 20 >> 3)

struct test_array {
  const char *label; /* what allocated it, for the timing report */
  double *data;
  int weight; /* kernel calls per round */
};

/* Writes distinct values into a[0..n) from the calling thread (first touch happens here). */
void fill_array(double *a, size_t n, double seed);

/* Runs `rounds` rounds; in each, array i is passed to sum_array weight[i] times.
 * Returns the sum of all results. With HPCL_TEST_TIMING=1 in the environment, prints the mean CPU
 * time (all threads) of one kernel call per array and each array's total to stderr; with
 * HPCL_TEST_TIMING_FILE=PATH, appends the same lines to PATH.<pid>. The end-to-end tests take
 * the measured totals as the truth: a call's cost depends on the CPU's caches and TLBs (an array
 * read rarely misses more), so the weights alone are not the time shares on every machine. */
double run_weighted(const struct test_array *arrays, int count, int rounds);

/* Where timing lines go (see run_weighted), or NULL when timing is off; fclose it when
 * *must_close is set. Lines: "timing: LABEL weight W X us/call Y s total", one per array. */
FILE *test_timing_stream(int *must_close);

/* The same with another read kernel in place of sum_array (e.g. one compiled with other flags). */
typedef double (*test_kernel)(const double *a, size_t n);
double run_weighted_kernel(const struct test_array *arrays, int count, int rounds, test_kernel kernel);
/* Writes one timing line per entry, in run_weighted's format and to the same place (stderr with
 * HPCL_TEST_TIMING=1, PATH.<pid> with HPCL_TEST_TIMING_FILE=PATH), for programs that time their
 * phases themselves. */
void write_timing(const char *const *labels, const int *weights, const double *seconds,
                  const long *calls, int count);

/* Reads a positive round count from argv[1], else returns `fallback`. Exits 2 on garbage. */
int rounds_from_args(int argc, char **argv, int fallback);

#ifdef __cplusplus
}
#endif

#endif
