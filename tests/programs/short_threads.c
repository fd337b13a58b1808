/* Many short-lived threads, one after another: each sums SLICES sixteenths of a worker array
 * while the main thread sums as many of a main array in between. The runtime hands an exited
 * thread's tree to the next thread; the report must still count every thread and weigh the two
 * arrays by their CPU time (1:1 by construction; with HPCL_TEST_TIMING(_FILE) the program writes
 * the measured times, each thread's own CPU clock around its sums, as workload.h describes).
 *
 * With few slices a thread runs far shorter than one sampling period (1 slice: ~30 us against
 * 1 ms): its samples come only from the random phase at which each thread's sampling starts.
 *
 * Usage: short_threads [THREADS] [SLICES]   (default 100 320: 20 whole sums per thread, ~10 ms,
 * about 2 s in all). Prints a checksum. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernel.h"
#include "workload.h"

__attribute__((noinline)) static double *alloc_worker_array(void) {
  double *p = malloc(TEST_ARRAY_DOUBLES * sizeof(double));
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 1.0);
  return p;
}

__attribute__((noinline)) static double *alloc_main_array(void) {
  double *p = malloc(TEST_ARRAY_DOUBLES * sizeof(double));
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 2.0);
  return p;
}

#define SLICE_DOUBLES (TEST_ARRAY_DOUBLES / 16)

static double *worker_array;
static double worker_sums;
static int slices = 320;
static double worker_seconds; /* threads run one at a time: no race */

static double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sums `slices` sixteenths of a, round robin; returns the CPU seconds it took. */
static double sum_slices(const double *a, double *sums) {
  double t0 = thread_cpu_seconds();
  for (int k = 0; k < slices; ++k) *sums += sum_plain(a + (size_t)(k % 16) * SLICE_DOUBLES, SLICE_DOUBLES);
  return thread_cpu_seconds() - t0;
}

static void *worker(void *arg) {
  (void)arg;
  worker_seconds += sum_slices(worker_array, &worker_sums);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = rounds_from_args(argc, argv, 100);
  if (argc > 2) {
    char *end;
    long v = strtol(argv[2], &end, 10);
    if (*end || v <= 0 || v > 1000000) {
      fprintf(stderr, "short_threads: SLICES must be a positive number, not %s\n", argv[2]);
      return 2;
    }
    slices = (int)v;
  }
  worker_array = alloc_worker_array();
  double *main_array = alloc_main_array();
  double main_sums = 0, main_seconds = 0;
  for (int i = 0; i < threads; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
    pthread_join(t, NULL);
    main_seconds += sum_slices(main_array, &main_sums);
  }
  const char *labels[] = {"worker array", "main array"};
  const int weights[] = {1, 1};
  const double seconds[] = {worker_seconds, main_seconds};
  const long calls[] = {(long)threads * slices, (long)threads * slices};
  write_timing(labels, weights, seconds, calls, 2);
  printf("checksum %.6e\n", worker_sums + main_sums);
  free(main_array);
  free(worker_array);
  return 0;
}
