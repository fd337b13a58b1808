/* heap_list: a linked list of small heap nodes, for the tracking of small blocks.
 *
 *   heap_list walk  [ROUNDS]   walk-dominated (default 8 rounds, about 2.5 s)
 *   heap_list churn [ROUNDS]   allocation-dominated (default 40 rounds, about 2.5 s)
 *   heap_list free  [ROUNDS]   a list freed in random order (default 6 rounds)
 *   heap_list temps [ROUNDS]   temporaries: each node freed at once (default 4 rounds)
 *
 * Nodes are 48 bytes (glibc: 64-byte chunks), one malloc each in make_nodes, linked in a random
 * order so that the walk misses the caches at every hop.
 *
 * walk: 1M nodes and a 64 MiB array (make_array) are built once; each round walks the list
 *   once (walk_list) and sums the array 16 times (sum_doubles); on the project's machines the
 *   walk takes about 95% of that time (a hop misses the caches, the array mostly hits them).
 *   The walk reads `p->val` before `p->next` through the same unmodified base register, so the
 *   stalled load's address is the node itself (a `mov 8(%rax),%rax` chase would not give one). Expected: the node site's estimated samples are the walk's share of the time
 *   the program measures (HPCL_TEST_TIMING_FILE lines "list nodes" and "array"), the array's the
 *   sums' share; nodes are allocated at start-up as fast as malloc goes, so only part of them is
 *   tracked and the node site is sampled with estimates.
 * churn: each round builds a list of 200,000 nodes, walks it once and frees the nodes in a random
 *   order (free_nodes): malloc and free take most of the time. Expected: the node site is
 *   sampled (estimates above its raw samples), no sample is dropped, and the run costs at most
 *   1.5x its native CPU time under the tool at default settings.
 * free: each round builds 1M nodes and frees them in a random order. With every block tracked
 *   (--small-every 1), free()'s data samples are its cache misses on the freed node's chunk
 *   header (the node's: HeapMap's chunk-header rule and the wrapper's t_freeing) and on the
 *   next chunk's size field (the next node's while it is live, [untracked heap] once it was
 *   freed first): about half of them, and at least 30%, belong to the node site.
 * temps: each round allocates 1M nodes one at a time and frees each before the next, as an
 *   allocation-heavy C++ code does with its temporaries. Expected: nearly all the tracked nodes
 *   die young, so the tracking controller's grants and refill shrink to their floors (about
 *   28,000 tracked of 4M at default settings, not 131,000), while its estimate of how many
 *   small blocks there were stays within a few percent.
 * Prints one checksum line; the output does not depend on timing. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workload.h"

struct node {
  long val;
  struct node *next;
  char pad[32];
};

/* CPU time of the process, not wall time: samples are taken per millisecond of thread CPU time,
 * and on a busy machine wall time also counts the time spent waiting to run. */
static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned long long rng_state = 88172645463325252ull;
static unsigned long long next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void shuffle(struct node **v, size_t n) {
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)(next_random() % (i + 1));
    struct node *t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

/* The array of node pointers: a heap variable of its own, at least --min-bytes. */
__attribute__((noinline)) static struct node **make_order(size_t n) {
  struct node **v = malloc(n * sizeof *v);
  if (v == NULL)
    exit(3);
  return v;
}

/* One malloc per node; returns the nodes in a random order (the caller links or frees them). */
__attribute__((noinline)) static struct node **make_nodes(size_t n) {
  struct node **v = make_order(n);
  for (size_t i = 0; i < n; i++) {
    v[i] = malloc(sizeof(struct node));
    if (v[i] == NULL)
      exit(3);
    v[i]->val = (long)(i % 1000);
  }
  shuffle(v, n);
  return v;
}

static struct node *link_nodes(struct node **v, size_t n) {
  for (size_t i = 0; i + 1 < n; i++)
    v[i]->next = v[i + 1];
  v[n - 1]->next = NULL;
  return v[0];
}

__attribute__((noinline)) static long walk_list(const struct node *p) {
  long sum = 0;
  while (p != NULL) {
    sum += p->val;
    p = p->next;
  }
  return sum;
}

__attribute__((noinline)) static void free_nodes(struct node **v, size_t n) {
  shuffle(v, n);
  for (size_t i = 0; i < n; i++)
    free(v[i]);
}

__attribute__((noinline)) static double *make_array(size_t n) {
  double *a = malloc(n * sizeof *a);
  if (a == NULL)
    exit(3);
  fill_array(a, n, 1.0);
  return a;
}

__attribute__((noinline)) static double sum_doubles(const double *a, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += a[i];
  return s;
}

static void report(const char *label, int weight, double seconds, long calls) {
  const char *labels[1] = {label};
  int weights[1] = {weight};
  double secs[1] = {seconds};
  long ncalls[1] = {calls};
  write_timing(labels, weights, secs, ncalls, 1);
}

/* Out of line, so that the compiler cannot pair the malloc with the free and drop both. */
__attribute__((noinline)) static struct node *make_temp(long val) {
  struct node *p = malloc(sizeof *p);
  if (p == NULL)
    exit(3);
  p->val = val;
  return p;
}

__attribute__((noinline)) static long use_temps(size_t n) {
  long sum = 0;
  for (size_t i = 0; i < n; i++) {
    struct node *p = make_temp((long)i);
    sum += p->val;
    free(p);
  }
  return sum;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int walk = strcmp(mode, "walk") == 0, churn = strcmp(mode, "churn") == 0,
      freeing = strcmp(mode, "free") == 0, temps = strcmp(mode, "temps") == 0;
  if (!walk && !churn && !freeing && !temps) {
    fprintf(stderr, "usage: %s walk|churn|free|temps [ROUNDS]\n", argv[0]);
    return 2;
  }
  int rounds = rounds_from_args(argc - 1, argv + 1, walk ? 8 : churn ? 40 : temps ? 4 : 6);
  long check = 0;
  if (temps) {
    for (int r = 0; r < rounds; r++)
      check += use_temps((size_t)1 << 20);
  } else if (walk) {
    const size_t nodes = (size_t)1 << 20, doubles = (size_t)64 << 20 >> 3;
    struct node **v = make_nodes(nodes);
    struct node *head = link_nodes(v, nodes);
    double *a = make_array(doubles);
    double t_list = 0, t_array = 0, total = 0;
    for (int r = 0; r < rounds; r++) {
      double t0 = now_seconds();
      check += walk_list(head);
      double t1 = now_seconds();
      for (int k = 0; k < 16; k++)
        total += sum_doubles(a, doubles);
      t_list += t1 - t0;
      t_array += now_seconds() - t1;
    }
    report("list nodes", 1, t_list, rounds);
    report("array", 16, t_array, 16L * rounds);
    check += (long)(total / rounds);
  } else {
    const size_t nodes = churn ? 200000 : (size_t)1 << 20;
    for (int r = 0; r < rounds; r++) {
      struct node **v = make_nodes(nodes);
      if (churn)
        check += walk_list(link_nodes(v, nodes));
      free_nodes(v, nodes);
      free(v);
    }
  }
  printf("heap_list %s: %d rounds, checksum %ld\n", mode, rounds, check);
  return 0;
}
