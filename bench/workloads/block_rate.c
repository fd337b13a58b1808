// A program that blocks N times a second of its CPU time: the cost of a context switch under the
// sampler (bench/switch_cost.sh). It does SECONDS of arithmetic in slices of 1/N s and, after
// each slice, blocks:
//   plain  one thread sleeps 20 us (nanosleep): one voluntary switch out and back in;
//   omp    each slice is an OpenMP parallel region of 2 threads (run with OMP_WAIT_POLICY=passive,
//          so the worker sleeps between regions as libgomp's default does after its spin).
// Prints "<mode> <N> blocks/s: <cpu s> cpu, <voluntary> + <involuntary> switches" (the
// process's rusage, all threads); the slice length is set from the thread's CPU clock, so the
// work is the same natively and under the tool.
// Usage: wl_block_rate plain|omp BLOCKS_PER_SECOND [SECONDS]
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double thread_cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double g_sink;

static void work(long iterations) {
  double x = 1.0;
  for (long i = 0; i < iterations; ++i) x = x * 1.0000001 + 1e-9;
  g_sink += x;
}

// Iterations per second of this thread's CPU, measured once.
static double iterations_per_second(void) {
  long n = 1000000;
  for (;;) {
    double t0 = thread_cpu_s();
    work(n);
    double dt = thread_cpu_s() - t0;
    if (dt > 0.05) return (double)n / dt;
    n *= 2;
  }
}

int main(int argc, char** argv) {
  if (argc < 3 || (strcmp(argv[1], "plain") != 0 && strcmp(argv[1], "omp") != 0)) {
    fprintf(stderr, "usage: %s plain|omp BLOCKS_PER_SECOND [SECONDS]\n", argv[0]);
    return 2;
  }
  const int omp = strcmp(argv[1], "omp") == 0;
  const double rate = atof(argv[2]), seconds = argc > 3 ? atof(argv[3]) : 2.0;
  const double speed = iterations_per_second();
  // With N = 0: one slice, no block.
  const long slices = rate > 0 ? (long)(rate * seconds) : 1;
  const long per_slice = (long)(speed * seconds / (double)slices);
  const struct timespec nap = {0, 20000};
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  for (long s = 0; s < slices; ++s) {
    if (omp) {
#pragma omp parallel num_threads(2)
      work(per_slice / 2);
    } else {
      work(per_slice);
      if (rate > 0) nanosleep(&nap, NULL);
    }
  }
  getrusage(RUSAGE_SELF, &after);
  double cpu = (double)(after.ru_utime.tv_sec - before.ru_utime.tv_sec + after.ru_stime.tv_sec -
                        before.ru_stime.tv_sec) +
               1e-6 * (double)(after.ru_utime.tv_usec - before.ru_utime.tv_usec + after.ru_stime.tv_usec -
                               before.ru_stime.tv_usec);
  printf("%s %g blocks/s: %.4f cpu, %ld + %ld switches\n", argv[1], rate, cpu,
         after.ru_nvcsw - before.ru_nvcsw, after.ru_nivcsw - before.ru_nivcsw);
  return 0;
}
