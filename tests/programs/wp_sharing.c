// Sharing under watchpoints (tests/e2e/wp_sharing.sh): two threads each increment their own field
// of a static struct, 2 x ITERS times.
//   mode "same":     the fields sit in one 64-byte line (`together`): false sharing, flagged;
//   mode "ints":     two int fields in one 8-byte word of one line (`ints`): false sharing too,
//                    told apart from true sharing by the bytes each access touched;
//   mode "shared":   both threads increment the same field (`shared.n`, atomically): true
//                    sharing, not flagged;
//   mode "apart":    the fields sit on separate lines (`apart`): not flagged;
//   mode "halves":   two threads read disjoint halves of a 16 MiB heap array: not flagged.
// Prints one result line whatever the timing, so the output compares equal with and without the
// tool.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITERS 800000000L

struct together { volatile long a; volatile long b; };
struct apart { volatile long a; char pad[120]; volatile long b; };
struct ints { volatile int a; volatile int b; };
struct shared { long n; };

static struct together together __attribute__((aligned(64)));
static struct apart apart __attribute__((aligned(64)));
static struct ints ints __attribute__((aligned(64)));
static struct shared shared __attribute__((aligned(64)));
static long *big;
static size_t big_n = (16u << 20) / sizeof(long);
static long sums[2];

static void *bump_same(void *arg) {
  volatile long *f = arg ? &together.b : &together.a;
  for (long i = 0; i < ITERS; ++i) *f += 1;
  return NULL;
}

static void *bump_apart(void *arg) {
  volatile long *f = arg ? &apart.b : &apart.a;
  for (long i = 0; i < ITERS; ++i) *f += 1;
  return NULL;
}

static void *bump_ints(void *arg) {
  volatile int *f = arg ? &ints.b : &ints.a;
  for (long i = 0; i < ITERS; ++i) *f += 1;
  return NULL;
}

static void *bump_shared(void *arg) {
  (void)arg;
  for (long i = 0; i < ITERS / 8; ++i) __atomic_fetch_add(&shared.n, 1, __ATOMIC_RELAXED);
  return NULL;
}

static void *read_half(void *arg) {
  int k = arg ? 1 : 0;
  size_t lo = k * (big_n / 2), hi = lo + big_n / 2;
  long s = 0;
  for (int r = 0; r < 60; ++r)
    for (size_t i = lo; i < hi; ++i) s += big[i] ^ r;
  sums[k] = s;
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "same";
  void *(*fn)(void *) = bump_same;
  if (strcmp(mode, "apart") == 0) fn = bump_apart;
  if (strcmp(mode, "ints") == 0) fn = bump_ints;
  if (strcmp(mode, "shared") == 0) fn = bump_shared;
  if (strcmp(mode, "halves") == 0) {
    fn = read_half;
    big = malloc(big_n * sizeof(long));
    for (size_t i = 0; i < big_n; ++i) big[i] = (long)i;
  }
  pthread_t t[2];
  for (long k = 0; k < 2; ++k) pthread_create(&t[k], NULL, fn, (void *)k);
  for (int k = 0; k < 2; ++k) pthread_join(t[k], NULL);
  if (fn == read_half) printf("halves %ld %ld\n", sums[0], sums[1]);
  else if (fn == bump_apart) printf("apart %ld %ld\n", apart.a, apart.b);
  else if (fn == bump_ints) printf("ints %d %d\n", ints.a, ints.b);
  else if (fn == bump_shared) printf("shared %ld\n", shared.n);
  else printf("same %ld %ld\n", together.a, together.b);
  free(big);
  return 0;
}
