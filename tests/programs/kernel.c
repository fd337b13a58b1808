/* The shared read kernel of the test programs (see kernel.h).
 *
 * Without -ffast-math the reduction is a chain of dependent scalar adds with a memory operand
 * (`addsd xmm0, [rdx]`), so a call costs about the same whether the array is in cache or not.
 * Not exactly: on CPUs with large shared caches a rarely read array misses more (page walks),
 * which is why the tests compare with the time the kernel measures, not with the weights. */
#define _POSIX_C_SOURCE 200809L
#include "kernel.h"

#include <time.h>

int sum_array_timing = 0;
static double g_cpu_seconds = 0.0;

static double thread_cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) double sum_array(const double *a, size_t n) {
  double s = 0.0;
  const int timing = sum_array_timing;
#pragma omp parallel reduction(+ : s)
  {
    /* Each thread times its own share of the loop on its own clock: only the loop, where the
     * samples of the arrays fall (not the fork, join or barrier wait). */
    double t0 = timing ? thread_cpu_seconds() : 0.0;
#pragma omp for nowait
    for (size_t i = 0; i < n; i++)
      s += a[i];
    if (timing) {
      double dt = thread_cpu_seconds() - t0;
#pragma omp atomic
      g_cpu_seconds += dt;
    }
  }
  return s;
}

double sum_array_cpu_seconds(void) {
  double v;
#pragma omp atomic read
  v = g_cpu_seconds;
  return v;
}
