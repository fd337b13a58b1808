/* Thread-local arrays of the executable (static TLS) read by OpenMP threads in known
 * proportions. Phase 1: every thread reads its own block of own_tls (weight 2 per round).
 * Phase 2: every thread reads the block of peer_tls that belongs to the next thread (weight 1
 * per round), so every sample of peer_tls lands in another thread's TLS: inside that thread's
 * stack mapping for a worker, in the loader's memory for the main thread.
 * Expected: own_tls 2/3 and peer_tls 1/3 of the samples on the two arrays, or with
 * HPCL_TEST_TIMING_FILE the time shares the threads measured themselves (workload.h format).
 *
 * Usage: tls_threads [ROUNDS]   (the default takes about 2.5 s with OMP_NUM_THREADS=2) */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kernel.h"
#include "workload.h"

#define TLS_DOUBLES ((size_t)64 << 10) /* 512 KiB per array and thread */
#define MAX_THREADS 64

__thread double own_tls[TLS_DOUBLES];
__thread double peer_tls[TLS_DOUBLES];

/* The calling thread's CPU time: samples are taken per millisecond of thread CPU time, and on a
 * busy machine wall time would also count the time a thread waited to run. */
static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The two phases in workload.h's timing format, for check_report.py's measured time shares. */
static void write_phase_timing(const double seconds[2], long calls) {
  static const char *const labels[2] = {"own_tls", "peer_tls"};
  static const int weights[2] = {2, 1};
  const long phase_calls[2] = {calls * weights[0], calls * weights[1]};
  write_timing(labels, weights, seconds, phase_calls, 2);
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 20000);
  static double *peer_of[MAX_THREADS];
  double seconds[2] = {0.0, 0.0};
  double total = 0.0;
  int threads = 1;
#pragma omp parallel reduction(+ : total)
  {
    int me = omp_get_thread_num(), n = omp_get_num_threads();
    if (n > MAX_THREADS) {
      fprintf(stderr, "tls_threads: at most %d threads\n", MAX_THREADS);
      exit(2);
    }
#pragma omp single
    threads = n;
    fill_array(own_tls, TLS_DOUBLES, 1.0 + me);
    fill_array(peer_tls, TLS_DOUBLES, 2.0 + me);
    peer_of[me] = peer_tls;
#pragma omp barrier
    const double *peer = peer_of[(me + 1) % n];
    double t0 = now_seconds();
    for (int r = 0; r < rounds; r++)
      for (int k = 0; k < 2; k++)
        total += sum_plain(own_tls, TLS_DOUBLES);
    double t1 = now_seconds();
#pragma omp barrier
    double t2 = now_seconds();
    for (int r = 0; r < rounds; r++)
      total += sum_plain(peer, TLS_DOUBLES);
    double t3 = now_seconds();
#pragma omp atomic
    seconds[0] += t1 - t0;
#pragma omp atomic
    seconds[1] += t3 - t2;
  }
  write_phase_timing(seconds, (long)rounds * threads);
  printf("checksum %.6e\n", total);
  return 0;
}
