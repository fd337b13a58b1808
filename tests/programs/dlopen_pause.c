/* The sampling timer pauses inside dlopen (hpcrun-lite/runtime/interpose/dlopen_hooks.cpp).
 * 1. dlopen(argv[1]) by path: the library's constructor reads ctor_table for HPCL_CTOR_SECONDS of
 *    CPU time; those reads must not be sampled, and the time must be counted as unsampled.
 * 2. rp_caller_open(), in a library linked to this program, opens "libhpcl_rp_leaf.so" by bare
 *    name; only that library's RUNPATH finds it, so the runtime must leave the call to the real
 *    dlopen with the caller's return address (a call of its own would not find the file).
 * 3. main reads main_table for as long: sampled as usual.
 * Prints "runpath ok" and "done" and exits 0, or names what failed and exits 3. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernel.h"
#include "workload.h"

int rp_caller_open(void);

double main_table[TEST_ARRAY_DOUBLES];

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: dlopen_pause LIBRARY [SECONDS]\n");
    return 2;
  }
  double seconds = argc > 2 ? atof(argv[2]) : 0.4;
  /* Short: the dlopen comes before or after the thread's first sample, whose random period
   * the pause must keep or end (sampler.cpp, sampler_can_pause). */
  fill_array(main_table, TEST_ARRAY_DOUBLES, 2.0);
  if (!dlopen(argv[1], RTLD_NOW)) {
    fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
    return 3;
  }
  if (!rp_caller_open()) {
    fprintf(stderr, "the bare-name dlopen through a RUNPATH failed: %s\n", dlerror());
    return 3;
  }
  puts("runpath ok");
  double sum = 0;
  double start = cpu_seconds();
  while (cpu_seconds() - start < seconds) sum += sum_array(main_table, TEST_ARRAY_DOUBLES);
  printf("done (%g)\n", sum > 0 ? 1.0 : 0.0);
  return 0;
}
