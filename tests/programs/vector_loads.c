/* Vectorized loads whose data the sampler must find although the sample lands on the arithmetic
 * after them. Built three times by CMake: `vector_loads` with -O3 for baseline x86-64, where
 * the loop is `movdqu (%rax),%xmm2; add $0x10,%rax; paddq %xmm2,%xmm0` (the stall is charged
 * to the paddq or the cmp after it, with rax already advanced: decoder rule LoadFeeds),
 * `vector_loads_avx2` with -O3 -mavx2, where the load is folded into the add
 * (`vpaddq (%rax),%ymm0,%ymm0`, the previous instruction: rule Previous); `vector_loads_scalar`
 * with -O2 -fno-tree-vectorize, one load an iteration (its cmp and jne: rule LoopAccess).
 *
 * Three arrays of 4 MiB, read by the same kernel in known proportions per round:
 *   calloc'd heap array (site alloc_counts)  weight 3
 *   malloc'd heap array (site alloc_values)  weight 2
 *   static array vector_table               weight 1
 * Expected: each array's share of the samples on the three arrays matches the time share the
 * program measures itself (HPCL_TEST_TIMING_FILE) within 5 points, both builds agree within 3
 * points, and at least half of all samples carry a data address.
 *
 * Usage: vector_loads [ROUNDS]   (default about 2.5 s on the test machines) */
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

double vector_table[TEST_ARRAY_DOUBLES];

/* Sums the arrays' bit patterns as 64-bit integers: GCC vectorizes an integer sum at -O3, a
 * floating-point sum stays scalar without -ffast-math. may_alias makes the reinterpretation of
 * the doubles legal. */
typedef long __attribute__((may_alias)) alias_long;

__attribute__((noinline)) static double sum_bits(const double *a, size_t n) {
  const alias_long *p = (const alias_long *)a;
  long s = 0;
  for (size_t i = 0; i < n; i++)
    s += p[i];
  return (double)s;
}

__attribute__((noinline)) static double *alloc_counts(void) {
  double *p = calloc(TEST_ARRAY_DOUBLES, sizeof(double));
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 1.0);
  return p;
}

__attribute__((noinline)) static double *alloc_values(void) {
  double *p = malloc(TEST_ARRAY_DOUBLES * sizeof(double));
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 1.2);
  return p;
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 1500);
  double *counts = alloc_counts();
  double *values = alloc_values();
  fill_array(vector_table, TEST_ARRAY_DOUBLES, 0.9);
  struct test_array arrays[] = {
      {"calloc", counts, 3},
      {"malloc", values, 2},
      {"vector_table", vector_table, 1},
  };
  printf("checksum %.6e\n", run_weighted_kernel(arrays, 3, rounds, sum_bits));
  free(values);
  free(counts);
  return 0;
}
