/* Stack data named by its owner (issue 38; tests/e2e/stack_locals.sh): three functions each read
 * a local array of their own, one of them through a callee it passes the array to (the array
 * is still its caller's), and an OpenMP region whose threads each read a private array. Each
 * phase times the CPU its threads spent in it, the truth the samples' shares must match (the
 * region's private arrays by the sum over its threads; the region's waiting at its barrier is
 * not timed and has no data address in a private array).
 *
 *   stack_locals [ROUNDS]     default 400; writes timing lines with HPCL_TEST_TIMING_FILE
 *
 * Every phase reads with the same loop, `s += a[i]`: one add from memory per element, a chain
 * of dependent adds, so the time of a phase is time on instructions with a data address. The
 * arrays are 64 KiB: they stay in L2, so a read costs about the same in every phase, and a
 * thread's default stack holds them. Prints one checksum line; the output does not depend on
 * timing or on the tool. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#include "workload.h"

#define N 8192

static double thread_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reads a[0..n) `reps` times. noinline and through a pointer: the array stays in memory. */
__attribute__((noinline)) static double read_array(const double *a, int n, int reps) {
  double s = 0;
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < n; ++i) s += a[i];
    __asm__ volatile("" : : "r"(a) : "memory");
  }
  return s;
}

/* Fills a from the function that owns it; the barrier keeps the stores. */
#define FILL(a, seed)                                            \
  do {                                                           \
    for (int i_ = 0; i_ < N; ++i_) (a)[i_] = (seed) + i_;        \
    __asm__ volatile("" : : "r"(a) : "memory");                  \
  } while (0)

__attribute__((noinline)) static double sweep_local(int reps) {
  double acc[N];
  FILL(acc, 1.0);
  double s = 0;
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < N; ++i) s += acc[i];
    __asm__ volatile("" : : "r"(acc) : "memory");
  }
  return s;
}

__attribute__((noinline)) static double sweep_grid(int reps) {
  double grid[N];
  FILL(grid, 2.0);
  double s = 0;
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < N; ++i) s += grid[i];
    __asm__ volatile("" : : "r"(grid) : "memory");
  }
  return s;
}

/* The reads happen in read_array, the array belongs to this frame. */
__attribute__((noinline)) static double sweep_halo(int reps) {
  double halo[N];
  FILL(halo, 3.0);
  return read_array(halo, N, reps);
}

/* Each thread's private array; returns the sum over the threads, and their CPU time. */
__attribute__((noinline)) static double region_private(int reps, double *seconds) {
  double total = 0, cpu = 0;
#pragma omp parallel reduction(+ : total, cpu)
  {
    const double start = thread_seconds();
    double priv[N];
    FILL(priv, 4.0 + omp_get_thread_num());
    double s = 0;
    for (int r = 0; r < reps; ++r) {
      for (int i = 0; i < N; ++i) s += priv[i];
      __asm__ volatile("" : : "r"(priv) : "memory");
    }
    total += s;
    cpu += thread_seconds() - start;
  }
  *seconds = cpu;
  return total;
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 400);
  const char *labels[] = {"acc", "grid", "halo", "priv"};
  const int weights[] = {4, 2, 1, 2};
  double seconds[4] = {0, 0, 0, 0};
  long calls[4] = {0, 0, 0, 0};
  double sum = 0;
  for (int round = 0; round < rounds; ++round) {
    double t = thread_seconds();
    sum += sweep_local(weights[0] * 10);
    seconds[0] += thread_seconds() - t;
    t = thread_seconds();
    sum += sweep_grid(weights[1] * 10);
    seconds[1] += thread_seconds() - t;
    t = thread_seconds();
    sum += sweep_halo(weights[2] * 10);
    seconds[2] += thread_seconds() - t;
    double region = 0;
    sum += region_private(weights[3] * 10, &region);
    seconds[3] += region;
    for (int k = 0; k < 4; ++k) ++calls[k];
  }
  write_timing(labels, weights, seconds, calls, 4);
  printf("stack_locals: %d rounds, checksum %.12e\n", rounds, sum);
  return 0;
}
