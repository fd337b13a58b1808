/* A library whose constructor starts a pool of threads, as OpenBLAS does: they exist before the
 * preloaded runtime's own constructor runs, so they were never created through its
 * pthread_create. Once the program says go, each worker sums the library's static array for
 * about `seconds` of its own CPU time, then mallocs and sums a block of its own. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define POOL 2
#define N (1u << 20) /* 8 MiB of doubles */

double ctor_pool_data[N];
static pthread_t pool[POOL];
static atomic_int go;
static double seconds_each;
static double sums[POOL];

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static double *alloc_pool_block(void) {
  double *p = malloc(N * sizeof(double));
  if (!p) abort();
  for (unsigned i = 0; i < N; ++i) p[i] = 1.0;
  return p;
}

static void *worker(void *arg) {
  long k = (long)arg;
  while (!atomic_load(&go)) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, 0);
  }
  double s = 0, t0 = cpu_now();
  while (cpu_now() - t0 < seconds_each)
    for (unsigned i = 0; i < N; ++i) s += ctor_pool_data[i];
  double *own = alloc_pool_block();
  for (int r = 0; r < 40; ++r)
    for (unsigned i = 0; i < N; ++i) s += own[i];
  free(own);
  sums[k] = s;
  return 0;
}

__attribute__((constructor)) static void start_pool(void) {
  for (unsigned i = 0; i < N; ++i) ctor_pool_data[i] = 0.5;
  for (long k = 0; k < POOL; ++k) pthread_create(&pool[k], 0, worker, (void *)k);
}

double ctor_pool_run(double seconds) {
  seconds_each = seconds;
  atomic_store(&go, 1);
  double s = 0;
  for (int k = 0; k < POOL; ++k) {
    pthread_join(pool[k], 0);
    s += sums[k];
  }
  return s;
}
