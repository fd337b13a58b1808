/* An allocation wrapper that -O2 turns into a tail jump (`return malloc(n)` is `jmp malloc`),
 * called from two places, and a reader that tail-calls the kernel. Neither wrapper leaves a
 * frame on the stack; the analyzer must recover both from the call instructions of their
 * callers and mark them tail calls:
 *   - the allocation paths of both arrays (grid from alloc_grid, halo from alloc_halo) hold
 *     make_buffer, marked tail_call, between the allocator and the caller;
 *   - the access paths of grid hold read_array, marked tail_call, between the kernel and main.
 * Proportions: grid is read twice per round, halo once.
 *
 * Usage: tail_alloc [ROUNDS]   (the default takes about 1 s with OMP_NUM_THREADS=2) */
#include <stdlib.h>

#include "kernel.h"
#include "workload.h"

__attribute__((noinline, noclone)) double *make_buffer(size_t n) {
  return malloc(n * sizeof(double));
}

__attribute__((noinline, noclone)) double read_array(const double *a) {
  return sum_array(a, TEST_ARRAY_DOUBLES);
}

__attribute__((noinline)) static double *alloc_grid(void) {
  double *p = make_buffer(TEST_ARRAY_DOUBLES);
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 1.0);
  return p;
}

__attribute__((noinline)) static double *alloc_halo(void) {
  double *p = make_buffer(TEST_ARRAY_DOUBLES);
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 2.0);
  return p;
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 400);
  double *grid = alloc_grid();
  double *halo = alloc_halo();
  double total = 0.0;
  for (int r = 0; r < rounds; r++) {
    total += read_array(grid);
    total += read_array(grid);
    total += sum_array(halo, TEST_ARRAY_DOUBLES);
  }
  free(grid);
  free(halo);
  return total > 0.0 ? 0 : 1;
}
