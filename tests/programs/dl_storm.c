/* A dlopen/dlclose storm (issue 11): two threads open and close a small library in a loop (its
 * constructor mallocs) while the main thread allocates. Sampled at 10 kHz, the runtime once hung
 * in about one run in three: a handler held libunwind's mutex and waited for the loader's lock
 * inside dl_iterate_phdr while the thread holding that lock waited in its own handler for the
 * mutex. Nothing is measured here; the test checks that the run ends, exits as without the tool
 * and writes its profile.
 *
 * Usage: dl_storm LIBRARY_PATH [MILLISECONDS [OPENERS]]   (defaults 300 ms, 2 threads). Prints one
 * fixed line and exits with status 3, so the test can tell an unchanged exit status from a lucky
 * 0. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *lib_path;
static volatile int stop;
static int failures;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *opener(void *arg) {
  (void)arg;
  while (!stop) {
    void *h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
      break;
    }
    int (*value)(void) = (int (*)(void))dlsym(h, "storm_lib_value");
    if (!value || value() != 1) __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
    dlclose(h);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: dl_storm LIBRARY_PATH [MILLISECONDS]\n");
    return 2;
  }
  lib_path = argv[1];
  double ms = argc > 2 ? atof(argv[2]) : 300;
  int openers = argc > 3 ? atoi(argv[3]) : 2;
  if (openers < 1 || openers > 16) openers = 2;
  pthread_t t[16];
  for (int i = 0; i < openers; ++i)
    if (pthread_create(&t[i], NULL, opener, NULL) != 0) return 2;
  double end = now_ms() + ms;
  unsigned long sum = 0;
  while (now_ms() < end) {
    for (int i = 0; i < 64; ++i) {
      size_t n = 4096 + (size_t)i * 64;
      char *p = malloc(n);
      if (!p) return 2;
      memset(p, i, n);
      sum += (unsigned char)p[n / 2];
      free(p);
    }
  }
  stop = 1;
  for (int i = 0; i < openers; ++i) pthread_join(t[i], NULL);
  if (failures) {
    fprintf(stderr, "dl_storm: %d dlopen failures (%s)\n", failures, dlerror());
    return 1;
  }
  printf("dl_storm done (%s)\n", sum ? "allocated" : "nothing");
  return 3;
}
