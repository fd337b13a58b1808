/* A program whose signal handler frees heap blocks while its main loop maps and unmaps anonymous
 * regions. Natively this is safe: the loop never enters malloc, so the handler's free() finds no
 * allocator lock held. Under the tool, the loop's mmap and munmap enter the runtime (tracked
 * regions go into the address map, under its lock) and the handler's free() must take a tracked
 * block out of that map: a free that waited for the lock its own thread holds would hang the
 * program forever.
 * Usage: handler_free [SECONDS]   (default 2). Prints how many blocks the handler freed. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define POOL 40000
static void *pool[POOL];
static volatile sig_atomic_t next_block;

static void free_one(int sig) {
  (void)sig;
  if (next_block < POOL) free(pool[next_block++]);
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 2.0;
  for (int i = 0; i < POOL; i++) pool[i] = malloc(1024);

  struct sigaction sa = {0};
  sa.sa_handler = free_one;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  timer_t timer;
  struct sigevent sev = {0};
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGALRM;
  timer_create(CLOCK_MONOTONIC, &sev, &timer);
  struct itimerspec its = {{0, 50000}, {0, 50000}}; /* every 50 us */
  timer_settime(timer, 0, &its, NULL);

  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long regions = 0;
  do {
    void *p = mmap(NULL, 64 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    ((volatile char *)p)[0] = 1;
    munmap(p, 64 << 10);
    regions++;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < seconds);
  timer_delete(timer);
  printf("done: the handler freed %s blocks\n", next_block > 1000 ? "more than 1000" : "few");
  (void)regions;
  return 0;
}
