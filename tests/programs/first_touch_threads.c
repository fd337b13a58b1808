/* First touch by thread: two heap arrays of 32 MiB each (huge pages off, so each 4 KiB page is
 * one fault), `serial` filled by the main thread alone, `parallel` filled by 4 OpenMP threads
 * (static schedule: each thread a quarter of the pages), then both read by all 4 threads.
 * Under the default NUMA policy every page of `serial` lands on the main thread's node: the
 * serial-initialization mistake the first-touch report is there to show.
 *
 * Usage: first_touch_threads [ROUNDS]   (default 20 read rounds)
 * Expected, checked by tests/e2e/first_touch_threads.sh: page_faults of each array = 8192 (a
 * few pages of slack); `serial` first-touched by 1 thread (share ~100%), `parallel` by 4 threads
 * (~25% each). Prints "array NAME ADDRESS BYTES".
 */
#define _GNU_SOURCE
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define MIB ((size_t)1 << 20)
#define THREADS 4

static void no_huge_pages(void *p, size_t n) {
  uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
  uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)4095;
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
}

__attribute__((noinline)) static void fill_serial(double *a, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = (double)i;
}

__attribute__((noinline)) static void fill_parallel(double *a, size_t n) {
#pragma omp parallel for schedule(static) num_threads(THREADS)
  for (size_t i = 0; i < n; ++i) a[i] = 2.0 * (double)i;
}

__attribute__((noinline)) static double read_both(const double *a, const double *b, size_t n) {
  double s = 0;
#pragma omp parallel for schedule(static) num_threads(THREADS) reduction(+ : s)
  for (size_t i = 0; i < n; ++i) s += a[i] + b[i];
  return s;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  const size_t n = 32 * MIB / sizeof(double);
  double *serial = malloc(n * sizeof(double));
  double *parallel = malloc(n * sizeof(double));
  if (!serial || !parallel) return 1;
  no_huge_pages(serial, n * sizeof(double));
  no_huge_pages(parallel, n * sizeof(double));
  fill_serial(serial, n);
  fill_parallel(parallel, n);
  double total = 0;
  for (int r = 0; r < rounds; ++r) {
    total += read_both(serial, parallel, n);
    /* read_both only reads memory: without this the compiler may call it once for all rounds. */
    __asm__ volatile("" ::: "memory");
  }
  printf("array serial %p %zu\narray parallel %p %zu\n", (void *)serial, n * sizeof(double),
         (void *)parallel, n * sizeof(double));
  printf("total %.0f\n", total);
  free(serial);
  free(parallel);
  return 0;
}
