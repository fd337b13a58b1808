/* Access patterns with a known answer (issue 22): five variables, each read in one way by a loop
 * of its own, the phases timed by the program (HPCL_TEST_TIMING_FILE, as run_weighted does).
 *   rows    heap (alloc_rows), N x N doubles summed in storage order       -> sequential
 *   cols    static double cols[N][N], summed column by column               -> strided, 8 x N bytes
 *                                                                              (a row), line use 1/8
 *   recs    heap (alloc_recs), struct rec of 8 doubles (64 bytes), fields x -> strided 64 bytes, x and y
 *           and y read, the others never                                       carry the samples
 *   values  heap (alloc_values), read through a shuffled index (alloc_index) -> indirect (the index:
 *                                                                              sequential)
 *   index   the same index, summed in order by a loop of its own (sum_index) -> sequential: beside
 *           the gather's misses it takes few samples (1 in the gather of 42 in one run, none in
 *           others), too few for a verdict there
 *   list    nodes of 48 bytes, one malloc each (alloc_node), linked in a     -> dependent
 *           shuffled order and walked
 * Each kernel runs until it has used PHASE_SECONDS of CPU time (the index's own loop three times
 * that: see weights below), so every variable gets a few
 * hundred samples whatever the machine. Built at -O2 and -O3, for baseline x86-64 and for AVX2
 * (tests/programs/CMakeLists.txt): the answers above hold for every build. The record loop keeps a
 * running decay (acc = acc * 0.5 + x * y), a recurrence no compiler vectorizes, so the loop reads
 * the two fields and not the whole structure at -O3 with AVX2 too.
 *
 * Usage: access_patterns [PHASE_SECONDS]   (default 0.4) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"

#define N 2048
#define RECS ((size_t)1 << 19)    /* 32 MiB of records */
#define VALUES ((size_t)1 << 21)  /* 16 MiB of values, 8 MiB of indices */
#define NODES ((size_t)1 << 19)   /* 512K nodes of 48 bytes */

struct rec {
  double x, a, b, c, d, e, f, y;
};

struct node {
  long val;
  struct node *next;
  long pad[4];
};

static double cols[N][N];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t next_random(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void *must(void *p) {
  if (!p) {
    perror("access_patterns");
    exit(1);
  }
  return p;
}

__attribute__((noinline)) static double *alloc_rows(void) { return must(malloc(sizeof(double) * N * N)); }
__attribute__((noinline)) static struct rec *alloc_recs(void) { return must(calloc(RECS, sizeof(struct rec))); }
__attribute__((noinline)) static double *alloc_values(void) { return must(malloc(sizeof(double) * VALUES)); }
__attribute__((noinline)) static int32_t *alloc_index(void) { return must(malloc(sizeof(int32_t) * VALUES)); }
__attribute__((noinline)) static struct node *alloc_node(long v) {
  struct node *n = must(malloc(sizeof *n));
  n->val = v;
  n->next = NULL;
  return n;
}

/* noipa: each call must run (a pure function's repeated calls would be folded into one). */
__attribute__((noipa)) static double sum_rows(const double *a) {
  double s = 0;
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++)
      s += a[i * N + j];
  return s;
}

__attribute__((noipa)) static double sum_columns(void) {
  double s = 0;
  for (size_t j = 0; j < N; j++)
    for (size_t i = 0; i < N; i++)
      s += cols[i][j];
  return s;
}

__attribute__((noipa)) static double decay_records(const struct rec *r) {
  double acc = 0;
  for (size_t i = 0; i < RECS; i++)
    acc = acc * 0.5 + r[i].x * r[i].y;
  return acc;
}

__attribute__((noipa)) static double gather(const double *values, const int32_t *index) {
  double s = 0;
  for (size_t i = 0; i < VALUES; i++)
    s += values[index[i]];
  return s;
}

/* The sum of a permutation of 0..VALUES-1 is known: the printed result checks the shuffle too. */
__attribute__((noipa)) static long sum_index(const int32_t *index) {
  long s = 0;
  for (size_t i = 0; i < VALUES; i++)
    s += index[i];
  return s;
}

__attribute__((noipa)) static long walk(const struct node *p) {
  long s = 0;
  while (p) {
    s += p->val;
    p = p->next;
  }
  return s;
}

int main(int argc, char **argv) {
  double budget = argc > 1 ? atof(argv[1]) : 0.4;
  if (!(budget > 0)) {
    fprintf(stderr, "usage: access_patterns [PHASE_SECONDS]\n");
    return 2;
  }
  uint64_t seed = 88172645463325252ULL;
  double *rows = alloc_rows();
  fill_array(rows, (size_t)N * N, 1.0);
  fill_array(&cols[0][0], (size_t)N * N, 2.0);
  struct rec *recs = alloc_recs();
  for (size_t i = 0; i < RECS; i++) {
    recs[i].x = (double)(i % 7);
    recs[i].y = 0.25;
  }
  double *values = alloc_values();
  fill_array(values, VALUES, 3.0);
  int32_t *index = alloc_index();
  for (size_t i = 0; i < VALUES; i++)
    index[i] = (int32_t)i;
  for (size_t i = VALUES - 1; i > 0; i--) {
    size_t j = next_random(&seed) % (i + 1);
    int32_t t = index[i];
    index[i] = index[j];
    index[j] = t;
  }
  struct node **nodes = must(malloc(NODES * sizeof *nodes));
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
  struct node *head = nodes[0];

  const char *labels[6] = {"rows", "cols", "recs", "values", "index", "list"};
  /* The index's own loop runs three budgets, as in access_patterns.f90 (which says why). */
  int weights[6] = {1, 1, 1, 1, 3, 1};
  double seconds[6] = {0};
  long calls[6] = {0};
  /* Each call's result is the same: the last one is printed (the number of calls varies). */
  double result[6] = {0};
  for (int phase = 0; phase < 6; phase++) {
    const double t0 = now();
    do {
      switch (phase) {
        case 0: result[0] = sum_rows(rows); break;
        case 1: result[1] = sum_columns(); break;
        case 2: result[2] = decay_records(recs); break;
        case 3: result[3] = gather(values, index); break;
        case 4: result[4] = (double)sum_index(index); break;
        default: result[5] = (double)walk(head); break;
      }
      ++calls[phase];
    } while (now() - t0 < budget * weights[phase]);
    seconds[phase] = now() - t0;
  }
  write_timing(labels, weights, seconds, calls, 6);
  printf("results %.6e %.6e %.6e %.6e %.6e %.6e\n", result[0], result[1], result[2], result[3], result[4],
         result[5]);
  free(nodes);  /* the nodes are left to the exit, as list_walk.c says why */
  free(index);
  free(values);
  free(recs);
  free(rows);
  return 0;
}
