/* Two versions of one program for `hpcprof-lite diff` (tests/e2e/diff.sh): two N x N matrices of
 * doubles on the heap, A and B, both allocated in main. Each round reads A once and B eight
 * times. Before the fix A is read column by column (sum_by_columns: a 16 KiB stride, a cache and
 * TLB miss on nearly every element); with --fixed, row by row (sum_by_rows, as B always is).
 * The sums are the same, and so is the output.
 *
 * Expected, checked by tests/e2e/diff.sh on the diff of the two runs:
 *   both matrices are matched (exact: same binary, same allocation lines);
 *   A's samples fall to at most half (measured here: about a tenth, since a strided element
 *     costs about 3 ns and a streamed one a few tenths of a ns), its access path sum_by_columns
 *     gone and sum_by_rows come;
 *   B's samples stay within +-25% (the same work in both runs);
 *   neither is new or gone.
 *
 * Usage: matrix_walk [--fixed] [ROUNDS]   (default 20 rounds: about 1 s before the fix, 0.5 s after)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 2048
#define B_READS 8

/* Each read stores its sum here, so that the compiler cannot see the reads as pure and merge the
 * eight reads of B (or hoist them out of the rounds). */
static volatile double last_sum;

__attribute__((noinline)) static double sum_by_columns(const double *m) {
  double s = 0;
  for (size_t j = 0; j < N; j++)
    for (size_t i = 0; i < N; i++) s += m[i * N + j];
  last_sum = s;
  return s;
}

__attribute__((noinline)) static double sum_by_rows(const double *m) {
  double s = 0;
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++) s += m[i * N + j];
  last_sum = s;
  return s;
}

static void fill(double *m, double seed) {
  for (size_t k = 0; k < (size_t)N * N; k++) m[k] = seed + (double)(k % 1000) * 0.001;
}

int main(int argc, char **argv) {
  int fixed = 0, rounds = 20;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--fixed") == 0) {
      fixed = 1;
    } else {
      char *end;
      long r = strtol(argv[i], &end, 10);
      if (*end != '\0' || r <= 0) {
        fprintf(stderr, "usage: matrix_walk [--fixed] [ROUNDS]\n");
        return 2;
      }
      rounds = (int)r;
    }
  }
  double *a = malloc((size_t)N * N * sizeof(double));
  double *b = malloc((size_t)N * N * sizeof(double));
  if (a == NULL || b == NULL) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  fill(a, 1.0);
  fill(b, 2.0);
  double total = 0;
  for (int r = 0; r < rounds; r++) {
    total += fixed ? sum_by_rows(a) : sum_by_columns(a);
    for (int k = 0; k < B_READS; k++) total += sum_by_rows(b);
  }
  /* Summation order changes the last bits: print few enough digits to be the same both ways. */
  printf("matrix_walk: %d rounds, checksum %.6e\n", rounds, total);
  free(a);
  free(b);
  return 0;
}
