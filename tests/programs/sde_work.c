// Known counter proportions for the PAPI source (tests/e2e/papi_sde.sh): heavy() reports three
// units of work for every one that light() reports, through a software-defined event of
// sde_counter_lib.c; each iteration also reads 16 elements of an array, so the run has data samples. The counts are
// exact: heavy 3 * N, light N, with N = kRounds * kChunk = 10,000,000.
#include <sde_lib.h>
#include <stdio.h>
#include <stdlib.h>

void* hpcl_work_counter(void);

enum { kRounds = 10000, kChunk = 1000 };

static double* g_data;

__attribute__((noinline)) static double heavy(void* counter, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < 16; ++j) s += g_data[(i * 64 + j * 7) & 0xffff];
    papi_sde_inc_counter(counter, 3);
  }
  return s;
}

__attribute__((noinline)) static double light(void* counter, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < 16; ++j) s += g_data[(i * 64 + j * 5) & 0xffff];
    papi_sde_inc_counter(counter, 1);
  }
  return s;
}

int main(void) {
  void* counter = hpcl_work_counter();
  if (!counter) {
    fprintf(stderr, "sde_work: the work counter was not created\n");
    return 1;
  }
  g_data = calloc(1 << 16, sizeof(double));
  double s = 0;
  for (int r = 0; r < kRounds; ++r) {
    s += heavy(counter, kChunk);
    s += light(counter, kChunk);
  }
  printf("sde_work: %g\n", s);
  free(g_data);
  return 0;
}
