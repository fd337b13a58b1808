/* Stress programs for the runtime (issue 11): each mode is short (a few hundred ms natively),
 * prints one fixed line and exits with status 5, so a run under the tool can be compared with a
 * native one (scripts/stress.sh runs them many times; nothing is measured).
 *
 *   alloc64   64 threads malloc and free blocks of random sizes at once
 *   sigstorm  4 threads malloc and free while a fifth sends them SIGUSR1/SIGUSR2 (20,000 signals;
 *             the handlers only count)
 *   sigalloc  4 threads compute while a fifth signals them; their handler mallocs and frees (the
 *             threads never call malloc themselves, so natively the handler cannot deadlock)
 *
 * Usage: stress MODE */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int stop;
static atomic_long handled;

static unsigned next_rand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

static void *alloc_worker(void *arg) {
  unsigned seed = (unsigned)(long)arg * 2654435761u + 1;
  void *slots[64] = {0};
  for (int i = 0; i < 20000; ++i) {
    unsigned r = next_rand(&seed);
    int k = r % 64;
    free(slots[k]);
    size_t size = (r >> 6) % 4 == 0 ? 4096 + (r >> 8) % 65536 : 16 + (r >> 8) % 512;
    slots[k] = malloc(size);
    if (!slots[k]) abort();
    memset(slots[k], 1, size < 64 ? size : 64);
  }
  for (int k = 0; k < 64; ++k) free(slots[k]);
  return 0;
}

static void count_handler(int sig) {
  (void)sig;
  atomic_fetch_add(&handled, 1);
}

static void alloc_handler(int sig) {
  (void)sig;
  char *p = malloc(100 + atomic_load(&handled) % 5000);
  if (p) {
    p[0] = 1;
    free(p);
  }
  atomic_fetch_add(&handled, 1);
}

static void *churn_worker(void *arg) {
  (void)arg;
  unsigned seed = 7;
  while (!atomic_load(&stop)) {
    void *p = malloc(32 + next_rand(&seed) % 2000);
    if (!p) abort();
    free(p);
  }
  return 0;
}

static volatile double sink;
static void *compute_worker(void *arg) {
  (void)arg;
  double x = 1;
  while (!atomic_load(&stop)) {
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  }
  sink = x;
  return 0;
}

static int signal_storm(void *(*worker)(void *), void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, 0);
  sigaction(SIGUSR2, &sa, 0);
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) pthread_create(&t[i], 0, worker, 0);
  for (int n = 0; n < 20000; ++n) pthread_kill(t[n % 4], n % 2 ? SIGUSR1 : SIGUSR2);
  atomic_store(&stop, 1);
  for (int i = 0; i < 4; ++i) pthread_join(t[i], 0);
  return atomic_load(&handled) > 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int ok = 0;
  if (!strcmp(mode, "alloc64")) {
    pthread_t t[64];
    for (long i = 0; i < 64; ++i)
      if (pthread_create(&t[i], 0, alloc_worker, (void *)i) != 0) return 2;
    for (int i = 0; i < 64; ++i) pthread_join(t[i], 0);
    ok = 1;
  } else if (!strcmp(mode, "sigstorm")) {
    ok = signal_storm(churn_worker, count_handler);
  } else if (!strcmp(mode, "sigalloc")) {
    ok = signal_storm(compute_worker, alloc_handler);
  } else {
    fprintf(stderr, "usage: stress alloc64|sigstorm|sigalloc\n");
    return 2;
  }
  printf("stress %s %s\n", mode, ok ? "done" : "FAILED");
  return 5;
}
