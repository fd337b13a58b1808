/* How a program names the parts of its own pool for hpcrun-lite (include/hpcrun-lite.h).
 *
 * One allocation holds three arrays, as a Kokkos view pool, an Umpire pool or a hand-made arena
 * would. Without names a report shows one variable, the pool; with them, one per array:
 *
 *   cc -O2 -g -I build/include examples/named_pool.c -o named_pool
 *   build/bin/hpcrun-lite -o np -- ./named_pool
 *   build/bin/hpcprof-lite merge np -o np.hpcdb && build/bin/hpcprof-lite report np.hpcdb
 *
 * shows `pressure`, `velocity` and `density` (allocator `named`), about 3:2:1. The program runs
 * unchanged without the tool: hpcrun_lite_name is declared weak, and HPCRUN_LITE_NAME calls it
 * only when the preloaded runtime defines it. */
#include <stdio.h>
#include <stdlib.h>

#include "hpcrun-lite.h"

enum { N = 1 << 20, ROUNDS = 400 };

static double sum(const double *a, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += a[i];
  return s;
}

int main(void) {
  double *pool = malloc(3 * N * sizeof(double));
  if (pool == NULL) return 1;
  double *pressure = pool, *velocity = pool + N, *density = pool + 2 * N;
  HPCRUN_LITE_NAME(pressure, N * sizeof(double), "pressure");
  HPCRUN_LITE_NAME(velocity, N * sizeof(double), "velocity");
  HPCRUN_LITE_NAME(density, N * sizeof(double), "density");
  for (size_t i = 0; i < 3 * (size_t)N; i++) pool[i] = (double)(i % 100);

  double total = 0;
  for (int r = 0; r < ROUNDS; r++) {
    for (int k = 0; k < 3; k++) total += sum(pressure, N);
    for (int k = 0; k < 2; k++) total += sum(velocity, N);
    total += sum(density, N);
  }
  printf("named_pool: %.0f\n", total);

  /* The pool hands the range out again for other data: remove the old names, name the new. */
  HPCRUN_LITE_NAME(pool, 3 * N * sizeof(double), NULL);
  free(pool);
  return 0;
}
