/* The shared read kernel of the test programs (see kernel.h).
 *
 * Without -ffast-math the reduction is a chain of dependent scalar adds with a memory operand
 * (`addsd xmm0, [rdx]`), so a call costs the same whether the array is in cache or in DRAM:
 * a profile of the programs shows each array's repetition count, not its cache behaviour. */
#include "kernel.h"

__attribute__((noinline)) double sum_array(const double *a, size_t n) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (size_t i = 0; i < n; i++)
    s += a[i];
  return s;
}
