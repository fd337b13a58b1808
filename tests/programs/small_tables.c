/* small_tables: 200 small hot tables (1, 2 or 3 KiB, all under --min-bytes) allocated at start-up,
 * in four groups of 50 from four allocation functions (alloc_group_a .. alloc_group_d), their
 * blocks interleaved in the heap. Each round reads every table of group a once, of b twice, of
 * c three times and of d four times (weights 1, 2, 3, 4), the way an MD code reads its
 * coefficient tables.
 *
 * Expected: at default settings every table is tracked (200 allocations at start-up are well
 * within the tracking budget): each group is one heap variable with 50 allocations of 101,376
 * bytes in all, not sampled, and the groups' shares of the samples on the four are the time
 * shares the program measures (HPCL_TEST_TIMING_FILE, lines "group a" .. "group d"), which
 * follow the weights closely since the tables stay in the caches.
 * usage: small_tables [ROUNDS]   (default 30000, about 2 s) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"

#define GROUPS 4
#define PER_GROUP 50

/* CPU time of the process, not wall time: samples are taken per millisecond of thread CPU time,
 * and on a busy machine wall time also counts the time spent waiting to run. */
static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t table_doubles(int i) { return (size_t)(1 + i % 3) * 1024 / sizeof(double); }

static double *fill(double *t, int i, double seed) {
  if (t == NULL)
    exit(3);
  for (size_t k = 0; k < table_doubles(i); k++)
    t[k] = (double)(k % 17) * 0.5 + i + seed;
  return t;
}

/* Distinct seeds keep the compiler from merging the four identical functions into one. */
__attribute__((noinline)) static double *alloc_group_a(int i) { return fill(malloc(table_doubles(i) * 8), i, 0.1); }
__attribute__((noinline)) static double *alloc_group_b(int i) { return fill(malloc(table_doubles(i) * 8), i, 0.2); }
__attribute__((noinline)) static double *alloc_group_c(int i) { return fill(malloc(table_doubles(i) * 8), i, 0.3); }
__attribute__((noinline)) static double *alloc_group_d(int i) { return fill(malloc(table_doubles(i) * 8), i, 0.4); }

__attribute__((noinline)) static double read_tables(double *const *tables) {
  double s = 0;
  for (int i = 0; i < PER_GROUP; i++)
    for (size_t k = 0; k < table_doubles(i); k++)
      s += tables[i][k];
  return s;
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 30000);
  double *tables[GROUPS][PER_GROUP];
  /* Interleaved: a0 b0 c0 d0 a1 ...; one call site per group (an unrolled loop would make each
   * copy of a call its own allocation path). */
#pragma GCC unroll 1
  for (int i = 0; i < PER_GROUP; i++) {
    tables[0][i] = alloc_group_a(i);
    tables[1][i] = alloc_group_b(i);
    tables[2][i] = alloc_group_c(i);
    tables[3][i] = alloc_group_d(i);
  }
  const int weights[GROUPS] = {1, 2, 3, 4};
  double seconds[GROUPS] = {0};
  long calls[GROUPS] = {0};
  double total = 0;
  /* Rounds in batches of 50, so that the clock reads (system calls) are few against the reads. */
  for (int r = 0; r < rounds; r += 50) {
    for (int g = 0; g < GROUPS; g++) {
      double t0 = now_seconds();
      for (int b = r; b < r + 50 && b < rounds; b++) {
        for (int k = 0; k < weights[g]; k++) {
          total += read_tables(tables[g]);
          __asm__ volatile("" ::: "memory");  /* read_tables is pure: keep every call */
        }
        calls[g] += weights[g];
      }
      seconds[g] += now_seconds() - t0;
    }
  }
  const char *labels[GROUPS] = {"group a", "group b", "group c", "group d"};
  write_timing(labels, weights, seconds, calls, GROUPS);
  printf("small_tables: %d rounds, checksum %.1f\n", rounds, total / rounds);
  for (int g = 0; g < GROUPS; g++)
    for (int i = 0; i < PER_GROUP; i++)
      free(tables[g][i]);
  return 0;
}
