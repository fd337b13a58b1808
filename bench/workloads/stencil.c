// Stencil kernel (benchmark workload): Jacobi iterations of a 5-point stencil on a 2-D grid,
// OpenMP over rows, two heap grids swapped every sweep plus a small static coefficient table.
// Usage: stencil [grid-size] [iterations]
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double coeff[5] = {0.5, 0.125, 0.125, 0.125, 0.125};

static void sweep(double* restrict out, const double* restrict in, int n) {
#pragma omp parallel for schedule(static)
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j) {
      const double* p = in + (long)i * n + j;
      out[(long)i * n + j] = coeff[0] * p[0] + coeff[1] * p[-1] + coeff[2] * p[1] +
                             coeff[3] * p[-n] + coeff[4] * p[n];
    }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  int iters = argc > 2 ? atoi(argv[2]) : 120;
  double* u = calloc((size_t)n * n, sizeof(double));
  double* v = calloc((size_t)n * n, sizeof(double));
  if (!u || !v) return 1;
  for (int j = 0; j < n; ++j) u[j] = v[j] = 100.0;  // a hot top edge
  for (int it = 0; it < iters; ++it) {
    sweep(v, u, n);
    double* t = u;
    u = v;
    v = t;
  }
  double sum = 0;
  for (long k = 0; k < (long)n * n; k += 97) sum += u[k];
  printf("stencil: n=%d iters=%d threads=%d checksum=%.6e\n", n, iters, omp_get_max_threads(), sum);
  free(u);
  free(v);
  return 0;
}
