/* Two matrices from one allocation function, called from two lines of main: their sites differ
 * only by the caller's line ("make_matrix ← main (colsum.c:N)" and ":N+1"), the case where a
 * table cut to 80 columns used to show "make_matrix" twice. `across` is summed column by column
 * (a stride of a whole row: the locality bug, 4 times), `down` row by row (32 times, so that it
 * has samples of its own at N = 1536 too: it once had 1 of 16); the program times both phases
 * and prints the times, so a report can be held against them. The sums read memory and write
 * none, so the compiler may call each once for all its rounds (GCC at -O2 did: 17 samples, none
 * in `down`); the empty asm that clobbers memory after each call makes every round read again.
 * usage: colsum [N]   (N x N doubles each, default 2048: 32 MiB per matrix)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static double *make_matrix(size_t n) {
  double *m = malloc(n * n * sizeof *m);
  if (!m) exit(1);
  for (size_t i = 0; i < n * n; i++) m[i] = (double)(i % 7);
  return m;
}

__attribute__((noinline)) static double sum_columns(const double *m, size_t n) {
  double s = 0;
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++) s += m[i * n + j];
  return s;
}

__attribute__((noinline)) static double sum_rows(const double *m, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) s += m[i * n + j];
  return s;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2048;
  double *across = make_matrix(n);
  double *down = make_matrix(n);
  double t0 = now(), s = 0;
  for (int r = 0; r < 4; r++) {
    s += sum_columns(across, n);
    __asm__ volatile("" ::: "memory");
  }
  double t1 = now();
  for (int r = 0; r < 32; r++) {
    s += sum_rows(down, n);
    __asm__ volatile("" ::: "memory");
  }
  double t2 = now();
  printf("sum %.0f; columns of across %.3f s, rows of down %.3f s\n", s, t1 - t0, t2 - t1);
  free(across);
  free(down);
  return 0;
}
