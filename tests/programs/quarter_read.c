/* Reads only the first quarter of a heap array and of a static array, so that the offset
 * histogram of each (where in the variable its samples fall) is hot in 0-25% of the variable and
 * empty elsewhere.
 *
 * Expected, checked by tests/e2e/quarter_read.sh:
 *   the heap variable of the one 16 MiB malloc (named after main: the compiler turns
 *     alloc_quarter_heap's `return malloc(n)` into a tail jump): every sample in bins 0-7
 *     of 32, highest offset sampled below 4 MiB; the text report says "hot: 0-N% of the block"
 *     with N <= 25;
 *   the static variable quarter_static (4 MiB): the same, "of the symbol".
 * Only the first quarter is ever written or read: the rest is never touched, so no sample can
 * land there whatever the caches do. This is a structural truth, not a time share.
 *
 * Usage: quarter_read [ROUNDS]   (default 1500; about a second)
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"
#include "workload.h"

#define HEAP_DOUBLES (2u << 20)     /* 16 MiB */
#define STATIC_DOUBLES (1u << 19)   /* 4 MiB */

static double quarter_static[STATIC_DOUBLES];

__attribute__((noinline)) static double *alloc_quarter_heap(void) {
  return malloc(HEAP_DOUBLES * sizeof(double));
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 1500);
  double *heap = alloc_quarter_heap();
  if (heap == NULL) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  fill_array(heap, HEAP_DOUBLES / 4, 1.0);
  fill_array(quarter_static, STATIC_DOUBLES / 4, 2.0);
  double total = 0.0;
  for (int r = 0; r < rounds; r++) {
    total += sum_array(heap, HEAP_DOUBLES / 4);
    for (int k = 0; k < 4; k++) total += sum_array(quarter_static, STATIC_DOUBLES / 4);
  }
  printf("quarter_read: %d rounds, checksum %.1f\n", rounds, total);
  free(heap);
  return 0;
}
