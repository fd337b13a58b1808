/* The kernel's price of one soft sample, by delivery path, measured by alternation inside one
 * process (docs/PERFORMANCE.md, "The cost of one sample"). Whole-run CPU times on these VMs move
 * by +-30% from run to run (a nested VM whose host is shared), far more than a 5% overhead; so
 * this program runs one thread's fixed chunks of work (a triad over three 8 MiB arrays, about
 * 20 ms each) and before each chunk enables one of several task-clock events of that thread,
 * rotating through the paths, so every path sees the same machine within a few hundred ms:
 *   off        no event enabled;
 *   timer      the event overflows, nothing is delivered (no signal, no ring);
 *   signal     F_SETSIG + F_SETOWN_EX + O_ASYNC and an empty handler (the runtime's path
 *              before Linux 6.11, and wherever it cannot use perf's SIGTRAP);
 *   signal+p   the same, and the handler restarts the period (PERF_EVENT_IOC_PERIOD, as the
 *              runtime's dithering does);
 *   trap       perf's own SIGTRAP (attr.sigtrap) and an empty handler (the runtime's path from
 *              Linux 6.11);
 *   trap+p     the same with the period ioctl in the handler;
 *   ring       no signal: a ring-buffer record with the user registers (IP, TID, TIME,
 *              REGS_USER: what a decoder needs), drained after the chunk on the same thread;
 *   ringstack  ring + a copy of the top STACK bytes of the user stack (PERF_SAMPLE_STACK_USER:
 *              what an unwinder working after the fact needs).
 * The chunk's thread CPU time (CLOCK_THREAD_CPUTIME_ID) includes the drain. Extra CPU per
 * sample = (median chunk CPU of the path - median chunk CPU of off) / median samples per chunk.
 * Usage: sample_cost_alt [RATE] [ROUNDS] [STACK]   (defaults 5000, 200, 2048)
 * Prints one line per path: median chunk CPU us, samples per chunk, extra us per sample, and
 * the interquartile range of the extra per sample over rounds paired with their off chunk. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf_bench.h"

enum { OFF, TIMER, SIGNAL, SIGNAL_PERIOD, TRAP, TRAP_PERIOD, RING, RINGSTACK, NPATHS };
static const char *const kNames[NPATHS] = {"off",  "timer",    "signal", "signal+p",
                                           "trap", "trap+p", "ring",   "ringstack"};
static int is_signal(int p) { return p == SIGNAL || p == SIGNAL_PERIOD; }
static int is_trap(int p) { return p == TRAP || p == TRAP_PERIOD; }

#define RING_PAGES 512 /* 2 MiB: a chunk of ringstack at 5,000/s writes ~0.2 MB */
static long g_page;
static volatile uint64_t g_signals;
static int g_period_fd = -1; /* the event whose period the handler restarts, or -1 */
static uint64_t g_period_ns;

static void on_sample(int sig, siginfo_t *info, void *uc) {
  (void)sig, (void)info, (void)uc;
  g_signals++;
  if (g_period_fd >= 0) ioctl(g_period_fd, PERF_EVENT_IOC_PERIOD, &g_period_ns);
}

static double thread_cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int open_event(int path, uint64_t period_ns, uint32_t stack, void **ring) {
  struct perf_event_attr a = bench_task_clock_attr(period_ns, path == RING || path == RINGSTACK,
                                                   path == RINGSTACK ? stack : 0,
                                                   (uint32_t)(RING_PAGES * g_page / 2));
  a.disabled = 1; /* enabled around each chunk of its path */
  if (is_trap(path)) {
    a.sigtrap = 1;
    a.remove_on_exec = 1;
  }
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "sample_cost_alt: perf_event_open (%s): %s\n", kNames[path], strerror(errno));
    exit(2);
  }
  *ring = NULL;
  if (is_signal(path)) {
    struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
    if (fcntl(fd, F_SETSIG, SIGRTMIN + 3) < 0 || fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0) {
      perror("sample_cost_alt: fcntl");
      exit(2);
    }
  } else if (path == RING || path == RINGSTACK) {
    void *m = mmap(NULL, (size_t)(1 + RING_PAGES) * g_page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
      perror("sample_cost_alt: mmap");
      exit(2);
    }
    *ring = m;
  }
  return fd;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
static double quantile(double *v, int n, double q) {  /* v sorted */
  return v[(int)(q * (n - 1) + 0.5)];
}

int main(int argc, char **argv) {
  const uint64_t rate = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000;
  const int rounds = argc > 2 ? atoi(argv[2]) : 200;
  const uint32_t stack = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) & ~7u : 2048;
  if (rate == 0 || rounds < 3) {
    fprintf(stderr, "usage: %s [RATE] [ROUNDS>=3] [STACK]\n", argv[0]);
    return 2;
  }
  g_page = sysconf(_SC_PAGESIZE);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sample;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGRTMIN + 3, &sa, NULL);
  sigaction(SIGTRAP, &sa, NULL);
  g_period_ns = 1000000000ull / rate;

  int fd[NPATHS];
  void *ring[NPATHS];
  for (int p = TIMER; p < NPATHS; ++p) fd[p] = open_event(p, 1000000000ull / rate, stack, &ring[p]);

  const size_t n = (size_t)1 << 20; /* 3 x 8 MiB */
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
  if (!x || !y || !z) return 3;
  for (size_t i = 0; i < n; ++i) x[i] = 1.0, y[i] = 2.0, z[i] = 0.0;
  /* Calibrate: repetitions for ~20 ms of CPU per chunk. */
  int reps = 1;
  for (;;) {
    double t0 = thread_cpu_us();
    for (int r = 0; r < reps; ++r)
      for (size_t i = 0; i < n; ++i) z[i] = x[i] + 1.5 * y[i];
    if (thread_cpu_us() - t0 > 20000 || reps > 1 << 20) break;
    reps *= 2;
  }

  double *cpu[NPATHS], *extra[NPATHS], *samples[NPATHS];
  for (int p = 0; p < NPATHS; ++p) {
    cpu[p] = calloc((size_t)rounds, sizeof(double));
    extra[p] = calloc((size_t)rounds, sizeof(double));
    samples[p] = calloc((size_t)rounds, sizeof(double));
  }
  uint64_t lost = 0;
  double sink = 0;
  for (int k = 0; k < rounds; ++k) {
    for (int j = 0; j < NPATHS; ++j) {
      const int p = (j + k) % NPATHS; /* a different order each round */
      uint64_t sig0 = g_signals, count0 = 0;
      if (p == TIMER) read(fd[p], &count0, sizeof count0);
      g_period_fd = p == SIGNAL_PERIOD || p == TRAP_PERIOD ? fd[p] : -1;
      double t0 = thread_cpu_us();
      if (p != OFF) ioctl(fd[p], PERF_EVENT_IOC_ENABLE, 0);
      for (int r = 0; r < reps; ++r)
        for (size_t i = 0; i < n; ++i) z[i] = x[i] + 1.5 * y[i];
      if (p != OFF) ioctl(fd[p], PERF_EVENT_IOC_DISABLE, 0);
      uint64_t got = 0;
      if (p == RING || p == RINGSTACK) got = ring_count_and_free(ring[p], g_page, (uint64_t)RING_PAGES * g_page, &lost);
      double t1 = thread_cpu_us();
      sink += z[k % n];
      if (is_signal(p) || is_trap(p)) got = g_signals - sig0;
      if (p == TIMER) { /* overflows = task clock ns / period */
        uint64_t count1 = 0;
        read(fd[p], &count1, sizeof count1);
        got = (count1 - count0) / (1000000000ull / rate);
      }
      cpu[p][k] = t1 - t0;
      samples[p][k] = (double)got;
    }
    for (int p = 0; p < NPATHS; ++p)
      extra[p][k] = samples[p][k] > 0 ? (cpu[p][k] - cpu[OFF][k]) / samples[p][k] : 0;
  }
  double off = median(cpu[OFF], rounds);
  printf("sample_cost_alt: %llu/s, %d rounds of %d reps (%.1f ms CPU per chunk), stack %u bytes, %llu lost%s\n",
         (unsigned long long)rate, rounds, reps, off / 1000, stack, (unsigned long long)lost,
         sink == 42 ? "" : "");
  printf("%-10s %14s %14s %18s %22s\n", "path", "chunk CPU us", "samples/chunk", "extra us/sample",
         "paired IQR us/sample");
  for (int p = 0; p < NPATHS; ++p) {
    double c = median(cpu[p], rounds), s = median(samples[p], rounds);
    if (p == OFF) {
      printf("%-10s %14.0f %14s %18s %22s\n", kNames[p], c, "-", "-", "-");
      continue;
    }
    median(extra[p], rounds); /* sorts */
    printf("%-10s %14.0f %14.0f %18.2f %10.2f .. %-9.2f\n", kNames[p], c, s, s > 0 ? (c - off) / s : 0,
           quantile(extra[p], rounds, 0.25), quantile(extra[p], rounds, 0.75));
  }
  return 0;
}
