/* named_pool: one allocation carved into three sub-arrays named with hpcrun_lite_name
 * (include/hpcrun-lite.h), as Kokkos, Umpire or a hand-made arena carve theirs.
 *
 *   named_pool [ROUNDS]   (default 600 rounds, about 2 s of CPU with OMP_NUM_THREADS=2)
 *
 * make_pool mallocs 3 x 4 MiB; "alpha", "beta" and "gamma" name its thirds, read in proportions
 * 3:2:1 through the OpenMP kernel. Then the pool is reused: the names are removed (a null name
 * over the whole pool) and its first third is named "reused" and read twice per round, for half
 * of the rounds (a phase of 0.1 s had its clock off by 60 ms once in a loaded suite run, 8% of
 * the CPU time against 5% of the samples: a phase long enough that such a transient stays within
 * the shares' stated allowance). Each phase times itself (HPCL_TEST_TIMING_FILE, workload.h).
 * Expected: four variables named alpha, beta, gamma and reused, each with the share of the time
 * its phase measured (the names win over the pool's block, which takes almost nothing), and
 * alpha without the samples of the reuse. Without the tool the program runs unchanged: the
 * weak declaration is null and HPCRUN_LITE_NAME does nothing.
 * Prints one checksum line; the output does not depend on timing or on the tool. */
#include <stdio.h>
#include <stdlib.h>

#include "hpcrun-lite.h"
#include "kernel.h"
#include "workload.h"

#define N TEST_ARRAY_DOUBLES

__attribute__((noinline)) static double *make_pool(void) {
  double *pool = malloc(3 * N * sizeof(double));
  if (pool == NULL) {
    perror("malloc");
    exit(1);
  }
  return pool;
}

__attribute__((noinline)) static void name_parts(double *pool) {
  HPCRUN_LITE_NAME(pool, N * sizeof(double), "alpha");
  HPCRUN_LITE_NAME(pool + N, N * sizeof(double), "beta");
  HPCRUN_LITE_NAME(pool + 2 * N, N * sizeof(double), "gamma");
}

__attribute__((noinline)) static void reuse_pool(double *pool) {
  HPCRUN_LITE_NAME(pool, 3 * N * sizeof(double), NULL);
  HPCRUN_LITE_NAME(pool, N * sizeof(double), "reused");
  fill_array(pool, N, 7.0);
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 600);
  double *pool = make_pool();
  for (int i = 0; i < 3; i++) fill_array(pool + i * N, N, 1.0 + i);
  name_parts(pool);
  const struct test_array parts[] = {{"alpha", pool, 3}, {"beta", pool + N, 2}, {"gamma", pool + 2 * N, 1}};
  double sum = run_weighted(parts, 3, rounds);
  reuse_pool(pool);
  const struct test_array reused[] = {{"reused", pool, 2}};
  sum += run_weighted(reused, 1, rounds / 2 > 0 ? rounds / 2 : 1);
  printf("named_pool: %d rounds, checksum %.12e\n", rounds, sum);
  free(pool);
  return 0;
}
