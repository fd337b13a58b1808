/* First touch: heap arrays of known sizes, each touched page by page, so that the page-fault
 * source gives each a count proportional to its size in pages.
 *
 * Usage: first_touch [arrays [ROUNDS] | touch MiB [thp]]
 *   arrays (default): three arrays of 8, 32 and 64 MiB, each from its own malloc line in main,
 *     with transparent huge pages turned off on them (madvise MADV_NOHUGEPAGE), so every 4 KiB
 *     page is one fault. `small` (8 MiB) and `large` (32 MiB) are filled, then read ROUNDS times
 *     (default 40); `written` (64 MiB) is filled once and never read.
 *     Expected, checked by tests/e2e/first_touch.sh: page_faults of each array = its size / 4 KiB
 *     (2048, 8192, 16384), within a few pages (the malloc chunk header, the runtime's own
 *     faults are not counted); their ratios 1 : 4 : 8; `written` has page faults although it is
 *     never read. Prints the arrays' addresses as "array NAME ADDRESS BYTES".
 *   touch MiB [thp]: allocates MiB mebibytes, writes one byte per 4 KiB page and frees the block
 *     at once, then prints the time the writes took (the cost measurement of docs/PERFORMANCE.md);
 *     without `thp` huge pages are turned off on it. Nothing faults between the last write and
 *     the free: a profiler that reads its fault or sample records later than the free must still
 *     give the block its MiB * 256 faults (tests/e2e/first_touch.sh, hw_standin.sh).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static void no_huge_pages(void *p, size_t n) {
  uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
  uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)4095;
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
}

__attribute__((noinline)) static void fill(double *a, size_t n, double seed) {
  for (size_t i = 0; i < n; ++i) a[i] = seed + (double)i;
}

__attribute__((noinline)) static double sum(const double *a, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i];
  return s;
}

static int touch(size_t mib, int thp) {
  size_t n = mib * MIB;
  char *p = malloc(n);
  if (!p) return 1;
  if (!thp) no_huge_pages(p, n);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (size_t i = 0; i < n; i += 4096) p[i] = 1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  free(p);
  printf("touched %zu MiB in %.3f s\n", mib,
         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "touch") == 0)
    return touch(argc > 2 ? (size_t)atol(argv[2]) : 1024, argc > 3 && strcmp(argv[3], "thp") == 0);
  int rounds = argc > 2 ? atoi(argv[2]) : 40;
  const size_t ns = 8 * MIB / sizeof(double), nl = 32 * MIB / sizeof(double),
               nw = 64 * MIB / sizeof(double);
  double *small = malloc(ns * sizeof(double));
  double *large = malloc(nl * sizeof(double));
  double *written = malloc(nw * sizeof(double));
  if (!small || !large || !written) return 1;
  no_huge_pages(small, ns * sizeof(double));
  no_huge_pages(large, nl * sizeof(double));
  no_huge_pages(written, nw * sizeof(double));
  fill(small, ns, 1.0);
  fill(large, nl, 2.0);
  fill(written, nw, 3.0);
  double total = 0;
  for (int r = 0; r < rounds; ++r) {
    total += sum(small, ns) + sum(large, nl);
    /* The sums only read memory: without this the compiler calls them once for all rounds. */
    __asm__ volatile("" ::: "memory");
  }
  printf("array small %p %zu\narray large %p %zu\narray written %p %zu\n", (void *)small,
         ns * sizeof(double), (void *)large, nl * sizeof(double), (void *)written,
         nw * sizeof(double));
  printf("total %.0f\n", total);
  free(small);
  free(large);
  free(written);
  return 0;
}
