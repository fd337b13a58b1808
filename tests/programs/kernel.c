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
    /* Two elements an iteration, in order: a timer sample that lands on the loop's compare or
     * branch has no data address, and one loop of one access put 5% of a process's samples
     * there in one run and 29% in another (e2e.rank_balance, 4 Dec 2026: the two ranks' counts
     * then differed by a quarter for the same time); with two accesses an iteration, 0.2% (the
     * same test after; sum_plain, below, unrolled alike, 0.1%). The decoder now charges such
     * landings to the loop's one load (rule LoopAccess, e2e.one_load_loop); the unrolling stays,
     * so that the tests built on this kernel keep the attribution they were calibrated with. */
#pragma omp for nowait
    for (size_t j = 0; j < n / 2; j++) {
      s += a[2 * j];
      s += a[2 * j + 1];
    }
#pragma omp single nowait
    if (n % 2)
      s += a[n - 1];
    if (timing) {
      double dt = thread_cpu_seconds() - t0;
#pragma omp atomic
      g_cpu_seconds += dt;
    }
  }
  return s;
}

/* Unrolled by 2 as sum_array is, for the same reason; tls_threads' two phases, which read
 * through it, put 12% of their samples on the one-access loop's compare and branch in one run
 * (own_tls 0.622 against its time's 0.669, 4 Dec 2026), 0.1% unrolled. */
__attribute__((noipa)) double sum_plain(const double *a, size_t n) {
  double s = 0.0;
#pragma GCC unroll 2
  for (size_t i = 0; i < n; i++)
    s += a[i];
  return s;
}

double sum_array_cpu_seconds(void) {
  double v;
#pragma omp atomic read
  v = g_cpu_seconds;
  return v;
}
