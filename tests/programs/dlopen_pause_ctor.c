/* Opened by dlopen_pause.c with dlopen: its constructor reads ctor_table for
 * HPCL_CTOR_SECONDS (default 0.4) of CPU time, inside the dlopen call. */
#include <stdlib.h>
#include <time.h>

#include "workload.h"

double ctor_table[TEST_ARRAY_DOUBLES];
volatile double ctor_sum;

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((constructor)) static void ctor_burn(void) {
  const char *s = getenv("HPCL_CTOR_SECONDS");
  double seconds = s ? atof(s) : 0.4;
  for (size_t i = 0; i < TEST_ARRAY_DOUBLES; ++i) ctor_table[i] = (double)i;
  double start = cpu_seconds();
  while (cpu_seconds() - start < seconds)
    for (size_t i = 0; i < TEST_ARRAY_DOUBLES; ++i) ctor_sum += ctor_table[i];
}
