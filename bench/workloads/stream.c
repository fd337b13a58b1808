// Memory-streaming kernel (benchmark workload): an OpenMP triad a[i] = b[i] + s * c[i] over three
// heap arrays much larger than the caches, repeated. Almost every sample lands on a load or store
// of a tracked heap block, so this is the sampler's steady-state cost with few allocations.
// Usage: stream [elements-in-millions] [repetitions]
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static void triad(double* restrict a, const double* restrict b, const double* restrict c, double s,
                  long n) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

int main(int argc, char** argv) {
  long n = (argc > 1 ? atol(argv[1]) : 8) * 1000000L;
  int reps = argc > 2 ? atoi(argv[2]) : 60;
  double* a = malloc(sizeof(double) * n);
  double* b = malloc(sizeof(double) * n);
  double* c = malloc(sizeof(double) * n);
  if (!a || !b || !c) return 1;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = (double)i;
    c[i] = 1.0 / (double)(i + 1);
  }
  for (int r = 0; r < reps; ++r) triad(a, b, c, 0.5 + r, n);
  double sum = 0;
  for (long i = 0; i < n; i += 4096) sum += a[i];
  printf("stream: n=%ld reps=%d threads=%d checksum=%.6e\n", n, reps, omp_get_max_threads(), sum);
  free(a);
  free(b);
  free(c);
  return 0;
}
