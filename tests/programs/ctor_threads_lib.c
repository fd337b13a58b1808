/* A library whose constructor starts a pool of threads, as OpenBLAS does: they exist before the
 * preloaded runtime's own constructor runs, so they were never created through its
 * pthread_create. Once the program says go, each worker sums an array on its own stack for
 * about `seconds` of its CPU time, then the library's static array for as long, then mallocs,
 * fills (page by page, huge pages off) and sums a block of its own.
 *
 * The two workers wait differently, as pools do: worker 0 sleeps (it is blocked when the runtime
 * adopts it, so the kernel can say where its stack is) and reads its stack array before it ever
 * enters the runtime; worker 1 spins (it is running at adoption) and allocates its block first,
 * so its stack is known once it has entered the runtime. Each worker's stack phase is its own
 * function, stack_phase_slept and stack_phase_spun, so the report tells them apart. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define POOL 2
#define N (1u << 20)       /* 8 MiB of doubles */
#define STACK_N (1u << 15) /* 256 KiB of doubles on each worker's stack */

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
  /* One first touch per 4 KiB page, for the hardware stand-in's page-fault records. */
  madvise((void *)((unsigned long)p & ~4095ul), N * sizeof(double), MADV_NOHUGEPAGE);
  for (unsigned i = 0; i < N; ++i) p[i] = 1.0;
  return p;
}

/* Inlined into each phase: a sample of a thread that unwinds nothing yet (worker 0 before it
 * enters the runtime) still names its phase. */
static inline __attribute__((always_inline)) double sum_stack_array(double fill) {
  volatile double local[STACK_N];
  for (unsigned i = 0; i < STACK_N; ++i) local[i] = fill;
  double s = 0, t0 = cpu_now();
  while (cpu_now() - t0 < seconds_each)
    for (unsigned i = 0; i < STACK_N; ++i) s += local[i];
  return s;
}

/* Different fills: identical bodies would be folded into one function (GCC's -fipa-icf). */
__attribute__((noinline)) static double stack_phase_slept(void) { return sum_stack_array(0.25); }
__attribute__((noinline)) static double stack_phase_spun(void) { return sum_stack_array(0.5); }

static double sum_block(const double *own) {
  double s = 0;
  for (int r = 0; r < 40; ++r)
    for (unsigned i = 0; i < N; ++i) s += own[i];
  return s;
}

static void *worker(void *arg) {
  long k = (long)arg;
  while (!atomic_load(&go)) {
    if (k == 0) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, 0);
    }
  }
  double s = 0;
  double *own = k == 1 ? alloc_pool_block() : NULL;
  s += k == 0 ? stack_phase_slept() : stack_phase_spun();
  double t0 = cpu_now();
  while (cpu_now() - t0 < seconds_each)
    for (unsigned i = 0; i < N; ++i) s += ctor_pool_data[i];
  if (!own) own = alloc_pool_block();
  s += sum_block(own);
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
