/* A linked list of small nodes walked by pointer chasing, beside a large array read in a loop
 * (decoder rule ChasedNext).
 *
 * 2M nodes of 48 bytes, each from its own malloc in alloc_node, linked in a shuffled order, are
 * counted by `while (n) { len++; n = n->next; }`, which GCC -O2 compiles to
 *     mov    0x8(%rdi),%rdi       <- the hop that misses the caches; it overwrites its own base
 *     add    $0x1,%rax            <- where the timer sample lands (no memory operand)
 *     test   %rdi,%rdi
 *     jne    <mov>
 * The sample's data address is that of the next access through the new rdi, the same load one
 * iteration later (the next node). (A walk that also reads a field, `s += n->val`, stalls on that
 * read instead, which the previous-instruction rule already handles.)
 * Beside it a 64 MiB array from alloc_big is summed (weights: 1 walk, 16 array sums per round).
 * Expected: the node site and the array share their samples like the times the program measures
 * (HPCL_TEST_TIMING_FILE) within 5 points, which needs every node tracked (--min-bytes 1
 * --small-every 1; by default one small block in 64 is); the walk dominates.
 *
 * Usage: list_walk [ROUNDS]   (the default takes about 3 s here) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"

#define NODES ((size_t)2 << 20)
#define BIG_DOUBLES ((size_t)8 << 20) /* 64 MiB */

struct node {
  long val;
  struct node *next;
  long pad[4];
};

__attribute__((noinline)) static struct node *alloc_node(long v) {
  struct node *n = malloc(sizeof *n);
  if (!n) exit(1);
  n->next = NULL;
  n->val = v;
  return n;
}

__attribute__((noinline)) static double *alloc_big(void) {
  double *p = malloc(BIG_DOUBLES * sizeof *p);
  if (!p) exit(1);
  fill_array(p, BIG_DOUBLES, 0.5);
  return p;
}

static uint64_t next_random(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static struct node *build_list(struct node **nodes) {
  uint64_t seed = 88172645463325252ULL;
  for (size_t i = 0; i < NODES; i++)
    nodes[i] = alloc_node((long)i);
  for (size_t i = NODES - 1; i > 0; i--) {
    size_t j = next_random(&seed) % (i + 1);
    struct node *t = nodes[i];
    nodes[i] = nodes[j];
    nodes[j] = t;
  }
  for (size_t i = 0; i + 1 < NODES; i++)
    nodes[i]->next = nodes[i + 1];
  return nodes[0];
}

__attribute__((noinline)) static long walk_list(const struct node *n) {
  long len = 0;
  while (n) {
    len++;
    n = n->next;
  }
  return len;
}

/* noipa: GCC would otherwise find it pure and fold the repeated calls into one. */
__attribute__((noipa)) static double sum_big(const double *a, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += a[i];
  return s;
}

/* CPU time, which is what the samples measure: a busy machine's other programs do not blur it. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int rounds = rounds_from_args(argc, argv, 2);
  struct node **nodes = malloc(NODES * sizeof *nodes);
  if (!nodes) return 1;
  struct node *head = build_list(nodes);
  double *big = alloc_big();
  double seconds[2] = {0, 0}, total = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = now();
    total += (double)walk_list(head);
    double t1 = now();
    for (int k = 0; k < 16; k++)
      total += sum_big(big, BIG_DOUBLES);
    seconds[0] += t1 - t0;
    seconds[1] += now() - t1;
  }
  int must_close = 0;
  FILE *out = test_timing_stream(&must_close);
  if (out) {
    fprintf(out, "timing: %-16s weight %2d  %8.1f us/call  %6.3f s total\n", "list", 1, seconds[0] / rounds * 1e6,
            seconds[0]);
    fprintf(out, "timing: %-16s weight %2d  %8.1f us/call  %6.3f s total\n", "big array", 16,
            seconds[1] / rounds / 16 * 1e6, seconds[1]);
    if (must_close)
      fclose(out);
  }
  printf("checksum %.6e\n", total);
  /* The nodes are left to the exit: freeing 2M blocks reads malloc's chunk headers, samples that
   * would only blur the two variables. */
  free(nodes);
  free(big);
  return 0;
}
