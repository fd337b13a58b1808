/* The bare baseline of bench/sample_cost.sh: what the kernel charges for one sample of the soft
 * source's kind, with no profiler work at all. Preloaded into a workload (LD_PRELOAD), it opens
 * for the main thread and for every thread made by pthread_create the same event the runtime
 * opens (PERF_COUNT_SW_TASK_CLOCK of the thread, exclude_kernel, a sample every 1/RATE s of its
 * CPU time) and, by BARE_MODE:
 *   timer    the event overflows, nothing is delivered (no signal: the timer's own price);
 *   signal   F_SETSIG + F_SETOWN_EX + O_ASYNC, as the runtime did before Linux 6.11, and an
 *            empty handler;
 *   trap     perf's own SIGTRAP (attr.sigtrap), as the runtime does from Linux 6.11, and an empty
 *            handler;
 *   syscalls the signal, and a handler that makes the runtime's two system calls of every sample
 *            (PERF_EVENT_IOC_PERIOD for the next dithered period, rt_sigtimedwait for overruns);
 *   ring     no signal: the kernel writes each sample into a per-thread ring buffer with the
 *            user registers (PERF_SAMPLE_IP|TID|TIME|REGS_USER, the general-purpose registers a
 *            decoder needs); one reader thread drains every ring every 10 ms and counts records;
 *   ringstack the same plus a copy of the top BARE_STACK bytes of the user stack (default 2048,
 *            PERF_SAMPLE_STACK_USER), what an unwinder working after the fact needs.
 * Environment: BARE_RATE (samples/s of thread CPU time, default 1000), BARE_MODE (default signal),
 * BARE_STACK (ringstack's stack bytes).
 * At exit prints "bare_sampler: MODE RATE/s N samples" to stderr (signal and ring modes count
 * them; ring modes also "L lost").
 * Threads are not stopped at their exit: their events go with them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
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

enum mode { MODE_TIMER, MODE_SIGNAL, MODE_TRAP, MODE_SYSCALLS, MODE_RING, MODE_RINGSTACK };

/* Ring modes: every thread's ring, drained by one reader thread. */
#define MAX_RINGS 256
#define RING_DATA_PAGES 256 /* 1 MiB: ringstack at 5,000/s writes ~11 MB/s, drained every 10 ms */
static struct perf_event_mmap_page *_Atomic g_rings[MAX_RINGS];
static _Atomic int g_nrings;
static _Atomic uint64_t g_lost;
static uint32_t g_stack_bytes = 2048;
static long g_page;

static enum mode g_mode = MODE_SIGNAL;
static uint64_t g_period_ns = 1000000;
static int g_signo;
static _Atomic uint64_t g_samples;
static __thread int t_fd = -1;

static void on_sample(int sig, siginfo_t *info, void *uc) {
  (void)uc;
  if (info->si_code <= 0) return; /* a perf SIGTRAP's is TRAP_PERF (6) */
  g_samples++;
  if (g_mode != MODE_SYSCALLS) return;
  int saved_errno = errno;
  uint64_t next = g_period_ns;
  ioctl(info->si_fd, PERF_EVENT_IOC_PERIOD, &next);
  uint64_t set = (uint64_t)1 << (sig - 1);
  const struct timespec zero = {0, 0};
  siginfo_t si;
  syscall(SYS_rt_sigtimedwait, &set, &si, &zero, sizeof set);
  errno = saved_errno;
}

static void drain(struct perf_event_mmap_page *m) {
  uint64_t lost = 0;
  g_samples += ring_count_and_free(m, g_page, (uint64_t)RING_DATA_PAGES * g_page, &lost);
  g_lost += lost;
}

/* The reader and the final drain at exit never walk the rings at once. */
static _Atomic int g_draining;
static void drain_all(void) {
  while (__atomic_exchange_n(&g_draining, 1, __ATOMIC_ACQUIRE)) sched_yield();
  int n = g_nrings;
  for (int i = 0; i < n && i < MAX_RINGS; ++i)
    if (g_rings[i]) drain(g_rings[i]);
  __atomic_store_n(&g_draining, 0, __ATOMIC_RELEASE);
}

static void *reader(void *arg) {
  (void)arg;
  const struct timespec ten_ms = {0, 10 * 1000 * 1000};
  for (;;) {
    nanosleep(&ten_ms, NULL);
    drain_all();
  }
  return NULL;
}

static void start_thread_event(void) {
  const int ring = g_mode == MODE_RING || g_mode == MODE_RINGSTACK;
  struct perf_event_attr a = bench_task_clock_attr(g_period_ns, ring, g_mode == MODE_RINGSTACK ? g_stack_bytes : 0,
                                                   (uint32_t)(RING_DATA_PAGES * g_page / 2));
  if (g_mode == MODE_TRAP) {
    a.sigtrap = 1;
    a.remove_on_exec = 1;
  }
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    perror("bare_sampler: perf_event_open");
    return;
  }
  t_fd = fd;
  if (ring) {
    void *m = mmap(NULL, (size_t)(1 + RING_DATA_PAGES) * g_page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
      perror("bare_sampler: mmap");
    } else {
      int i = g_nrings++;
      if (i < MAX_RINGS) g_rings[i] = m;
    }
  } else if (g_mode != MODE_TIMER && g_mode != MODE_TRAP) {
    struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
    if (fcntl(fd, F_SETSIG, g_signo) < 0 || fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0)
      perror("bare_sampler: fcntl");
  }
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

struct start {
  void *(*fn)(void *);
  void *arg;
};

static void *thread_main(void *p) {
  struct start s = *(struct start *)p;
  free(p);
  start_thread_event();
  return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  if (!real) real = dlsym(RTLD_NEXT, "pthread_create");
  struct start *s = malloc(sizeof *s);
  if (!s) return real(t, attr, fn, arg);
  s->fn = fn;
  s->arg = arg;
  int rc = real(t, attr, thread_main, s);
  if (rc != 0) free(s);
  return rc;
}

static const char *mode_name(void) {
  switch (g_mode) {
    case MODE_TIMER: return "timer";
    case MODE_SIGNAL: return "signal";
    case MODE_TRAP: return "trap";
    case MODE_SYSCALLS: return "syscalls";
    case MODE_RING: return "ring";
    case MODE_RINGSTACK: return "ringstack";
  }
  return "?";
}

__attribute__((constructor)) static void bare_init(void) {
  const char *m = getenv("BARE_MODE");
  if (m && !strcmp(m, "timer")) g_mode = MODE_TIMER;
  else if (m && !strcmp(m, "trap")) g_mode = MODE_TRAP;
  else if (m && !strcmp(m, "syscalls")) g_mode = MODE_SYSCALLS;
  else if (m && !strcmp(m, "ring")) g_mode = MODE_RING;
  else if (m && !strcmp(m, "ringstack")) g_mode = MODE_RINGSTACK;
  else if (m && strcmp(m, "signal")) fprintf(stderr, "bare_sampler: unknown BARE_MODE %s, using signal\n", m);
  const char *r = getenv("BARE_RATE");
  uint64_t rate = r ? strtoull(r, NULL, 10) : 1000;
  if (rate) g_period_ns = 1000000000ull / rate;
  const char *st = getenv("BARE_STACK");
  if (st) g_stack_bytes = (uint32_t)strtoul(st, NULL, 10) & ~7u;
  g_page = sysconf(_SC_PAGESIZE);
  g_signo = g_mode == MODE_TRAP ? SIGTRAP : SIGRTMIN + 3;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sample;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(g_signo, &sa, NULL);
  start_thread_event();
  if (g_mode == MODE_RING || g_mode == MODE_RINGSTACK) {
    /* The reader is not sampled: it starts after the main thread's event, with a real
     * pthread_create (no event of its own). */
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    real = dlsym(RTLD_NEXT, "pthread_create");
    pthread_t t;
    if (real && real(&t, NULL, reader, NULL) == 0) pthread_detach(t);
  }
}

__attribute__((destructor)) static void bare_fini(void) {
  drain_all();
  fprintf(stderr, "bare_sampler: %s %llu/s %llu samples, %llu lost\n", mode_name(),
          (unsigned long long)(1000000000ull / g_period_ns), (unsigned long long)g_samples,
          (unsigned long long)g_lost);
}
