// What one kernel entry costs on this machine: the unit behind issue 36's budgets, which count
// page faults, system calls and signals because their price differs several times between
// machines (a paravirtualized VM's kernel entries pass through its hypervisor). Prints the
// median of ROUNDS rounds, in microseconds:
//   fault       a first write to a fresh anonymous page (one minor fault: a zeroed page mapped)
//   populate    a page made present by madvise(MADV_POPULATE_WRITE), per page of one call
//   touch       the first write to such a page: free on bare metal; under shadow paging the
//               hypervisor fills its own page table there, so a populated page is not free
//   syscall     getppid, the cheapest system call glibc does not cache
//   signal      raise() of a signal with an empty handler: the delivery and sigreturn
// Built with the benchmarks (build/bench/entry_cost). Usage: entry_cost [ROUNDS=5] [PAGES=16384]
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

enum { kFault, kPopulate, kTouch, kSyscall, kSignal, kKinds };
static const char* const kNames[kKinds] = {"fault", "populate", "touch", "syscall", "signal"};

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static void on_signal(int sig) { (void)sig; }

// Fresh anonymous pages, kept at 4 KiB (a transparent huge page would be one fault for 512).
static char* fresh(size_t bytes) {
  char* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("entry_cost: mmap");
    exit(1);
  }
  madvise(p, bytes, MADV_NOHUGEPAGE);
  return p;
}

static void touch_all(volatile char* p, size_t pages, size_t page) {
  for (size_t i = 0; i < pages; i++) p[i * page] = 1;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 5;
  size_t pages = argc > 2 ? strtoul(argv[2], NULL, 10) : 16384;
  if (rounds < 1 || pages < 1) {
    fprintf(stderr, "usage: entry_cost [ROUNDS>=1] [PAGES>=1]\n");
    return 2;
  }
  const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = pages * page;
  const int calls = 100000, signals = 20000;
  signal(SIGUSR1, on_signal);
  double* v[kKinds];
  for (int k = 0; k < kKinds; k++) v[k] = calloc((size_t)rounds, sizeof(double));
  int populate_ok = 1;
  for (int r = 0; r < rounds; r++) {
    char* p = fresh(bytes);
    double t0 = now_us();
    touch_all(p, pages, page);
    v[kFault][r] = (now_us() - t0) / (double)pages;
    munmap(p, bytes);

    p = fresh(bytes);
    t0 = now_us();
    if (madvise(p, bytes, MADV_POPULATE_WRITE) != 0) populate_ok = 0;
    double t1 = now_us();
    touch_all(p, pages, page);
    v[kPopulate][r] = (t1 - t0) / (double)pages;
    v[kTouch][r] = (now_us() - t1) / (double)pages;
    munmap(p, bytes);

    t0 = now_us();
    for (int i = 0; i < calls; i++) syscall(SYS_getppid);
    v[kSyscall][r] = (now_us() - t0) / calls;

    t0 = now_us();
    for (int i = 0; i < signals; i++) raise(SIGUSR1);
    v[kSignal][r] = (now_us() - t0) / signals;
  }
  printf("kernel entries, median of %d rounds (%zu pages, %d system calls, %d signals each):\n",
         rounds, pages, calls, signals);
  for (int k = 0; k < kKinds; k++) {
    qsort(v[k], (size_t)rounds, sizeof(double), cmp);
    if ((k == kPopulate || k == kTouch) && !populate_ok) {
      printf("  %-9s  n/a (no MADV_POPULATE_WRITE: Linux 5.14)\n", kNames[k]);
      continue;
    }
    printf("  %-9s %7.3f us (%.3f-%.3f)\n", kNames[k], v[k][(rounds - 1) / 2], v[k][0],
           v[k][rounds - 1]);
  }
  return 0;
}
