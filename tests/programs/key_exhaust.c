/* Threads that end, by returning and by pthread_exit, in a process where no pthread key was
 * left for the runtime (key_exhaust_lib.c took them all before it started). The runtime must
 * still see each thread end and close what it opened for it (the sampling event's file
 * descriptor): the program prints how many file descriptors it has after its threads ended
 * beyond those it had before, 0 natively, and that number must be 0 under the tool too.
 *
 * Usage: key_exhaust [THREADS]   (default 40). */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key_exhaust.h"

static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  while (readdir(d)) ++n;
  closedir(d);
  return n;
}

static void *worker(void *arg) {
  long i = (long)arg;
  volatile double sum = 0;
  for (int r = 0; r < 200; ++r) {
    double *p = malloc(4096 * sizeof(double));
    if (!p) exit(2);
    for (int k = 0; k < 4096; ++k) p[k] = k + r;
    for (int k = 0; k < 4096; ++k) sum += p[k];
    free(p);
  }
  if (i % 2) pthread_exit(NULL);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 40;
  int taken = key_exhaust_release();
  int before = open_fds();
  for (long i = 0; i < threads; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, worker, (void *)i) != 0) return 2;
    pthread_join(t, NULL);
  }
  int after = open_fds();
  printf("keys taken: %s; descriptors left open by %d threads: %d\n",
         taken > 0 ? "yes" : "no", threads, after - before);
  return 0;
}
