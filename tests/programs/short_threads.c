/* Many short-lived threads, one after another: each sums a worker array once while the main
 * thread sums a main array as often in between. The runtime hands an exited thread's tree to the
 * next thread; the report must still count every thread and weigh the two arrays 1:1.
 *
 * Usage: short_threads [THREADS]   (default 100; about 2 s). Prints a checksum. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

/* Plain loop, no OpenMP: a worker thread must not start a team of its own. */
__attribute__((noipa)) static double sum_plain(const double *a, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i];
  return s;
}

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

/* Sums per thread (and as many by main after each thread). Each thread's sampling clock starts
 * at zero, so a thread that runs for less than a sampling period is often never sampled: threads
 * of ~10 ms keep that bias (about half a sample per thread) small next to their samples. */
#define SUMS_PER_THREAD 20

static double *worker_array;
static double worker_sums;

static void *worker(void *arg) {
  (void)arg;
  for (int k = 0; k < SUMS_PER_THREAD; ++k)  /* threads run one at a time */
    worker_sums += sum_plain(worker_array, TEST_ARRAY_DOUBLES);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = rounds_from_args(argc, argv, 100);
  worker_array = alloc_worker_array();
  double *main_array = alloc_main_array();
  double main_sums = 0;
  for (int i = 0; i < threads; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
    pthread_join(t, NULL);
    for (int k = 0; k < SUMS_PER_THREAD; ++k) main_sums += sum_plain(main_array, TEST_ARRAY_DOUBLES);
  }
  printf("checksum %.6e\n", worker_sums + main_sums);
  free(main_array);
  free(worker_array);
  return 0;
}
