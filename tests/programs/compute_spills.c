/* Compute that spills to the stack, beside a pass over a heap array (decoder rule Compute in
 * hpcrun-lite/runtime/decode/access_decode.cpp). The compute kernel keeps 24 vectors of two doubles
 * live through a loop of multiplies and adds: with 16 xmm registers (baseline x86-64, SSE2) GCC
 * spills some of them to the stack, and the spills and reloads sit right after the arithmetic
 * (`mulpd`/`addpd` then `movaps %xmm..,0x..(%rsp)`), where the timer sample lands. Those samples
 * are compute time: before rule Compute they were charged to [stack].
 *
 * Per round: the compute kernel, then one sum over a 4 MiB malloc'd array (site alloc_stream).
 * Expected: [stack] gets under 10% of the data samples, and the array's share of ALL samples
 * matches the time share of its passes the program measures itself (HPCL_TEST_TIMING_FILE,
 * "timing:" lines as in workload.c: compute first, then the array) within 5 points.
 *
 * Usage: compute_spills [ROUNDS]   (default about 2.5 s on the test machines) */
#include <emmintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"

#define LIVE 24

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Register pressure on purpose: LIVE accumulators plus the multipliers exceed the 16 xmm
 * registers, so the loop body spills and reloads around its arithmetic. */
__attribute__((noinline)) static double compute(long iterations, double seed) {
  __m128d acc[LIVE];
  __m128d mul[LIVE];
  for (int i = 0; i < LIVE; i++) {
    acc[i] = _mm_set_pd(seed + i, seed - i);
    mul[i] = _mm_set1_pd(0.999 - 1e-4 * i);
  }
  /* acc = acc * mul + mul converges (mul < 1): no overflow, no denormals. */
  for (long n = 0; n < iterations; n++) {
    /* Fully unrolled, so the vectors are registers (and spill slots), not an array. */
#pragma GCC unroll 24
    for (int i = 0; i < LIVE; i++) acc[i] = _mm_add_pd(_mm_mul_pd(acc[i], mul[i]), mul[(i + 1) % LIVE]);
  }
  __m128d s = _mm_setzero_pd();
  for (int i = 0; i < LIVE; i++) s = _mm_add_pd(s, _mm_add_pd(acc[i], mul[i]));
  double out[2];
  _mm_storeu_pd(out, s);
  return out[0] + out[1];
}

__attribute__((noinline)) static double sum_stream(const double *a, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += a[i];
  return s;
}

__attribute__((noinline)) static double *alloc_stream(void) {
  double *p = malloc(TEST_ARRAY_DOUBLES * sizeof(double));
  if (!p) exit(1);
  fill_array(p, TEST_ARRAY_DOUBLES, 1.1);
  return p;
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 1500);
  double *stream = alloc_stream();
  double seconds[2] = {0.0, 0.0};
  double total = 0.0;
  for (int r = 0; r < rounds; r++) {
    double t0 = now_seconds();
    total += compute(150000, 0.5 + r);
    double t1 = now_seconds();
    total += sum_stream(stream, TEST_ARRAY_DOUBLES);
    seconds[0] += t1 - t0;
    seconds[1] += now_seconds() - t1;
  }
  int must_close = 0;
  FILE *out = test_timing_stream(&must_close);
  if (out != NULL) {
    fprintf(out, "timing: compute weight 1 %.3f us/call %.6f s total\n", 1e6 * seconds[0] / rounds, seconds[0]);
    fprintf(out, "timing: alloc_stream weight 1 %.3f us/call %.6f s total\n", 1e6 * seconds[1] / rounds, seconds[1]);
    if (must_close) fclose(out);
  }
  printf("checksum %.6e\n", total);
  free(stream);
  return 0;
}
