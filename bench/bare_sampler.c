/* The bare baseline of bench/sample_cost.sh: what the kernel charges for one sample of the soft
 * source's kind, with no profiler work at all. Preloaded into a workload (LD_PRELOAD), it opens
 * for the main thread and for every thread made by pthread_create the same event the runtime
 * opens (PERF_COUNT_SW_TASK_CLOCK of the thread, exclude_kernel, a sample every 1/RATE s of its
 * CPU time) and, by BARE_MODE:
 *   timer    the event overflows, nothing is delivered (no signal: the timer's own price);
 *   signal   F_SETSIG + F_SETOWN_EX + O_ASYNC, as the runtime does, and an empty handler;
 *   syscalls the signal, and a handler that makes the runtime's two system calls of every sample
 *            (PERF_EVENT_IOC_PERIOD for the next dithered period, rt_sigtimedwait for overruns).
 * Environment: BARE_RATE (samples/s of thread CPU time, default 1000), BARE_MODE (default signal).
 * At exit prints "bare_sampler: MODE RATE/s N samples" to stderr (signal modes count them).
 * Threads are not stopped at their exit: their events go with them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

enum mode { MODE_TIMER, MODE_SIGNAL, MODE_SYSCALLS };

static enum mode g_mode = MODE_SIGNAL;
static uint64_t g_period_ns = 1000000;
static int g_signo;
static _Atomic uint64_t g_samples;
static __thread int t_fd = -1;

static void on_sample(int sig, siginfo_t *info, void *uc) {
  (void)uc;
  if (info->si_code <= 0) return;
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

static void start_thread_event(void) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = g_period_ns;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.wakeup_events = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    perror("bare_sampler: perf_event_open");
    return;
  }
  t_fd = fd;
  if (g_mode != MODE_TIMER) {
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
  return g_mode == MODE_TIMER ? "timer" : g_mode == MODE_SIGNAL ? "signal" : "syscalls";
}

__attribute__((constructor)) static void bare_init(void) {
  const char *m = getenv("BARE_MODE");
  if (m && !strcmp(m, "timer")) g_mode = MODE_TIMER;
  else if (m && !strcmp(m, "syscalls")) g_mode = MODE_SYSCALLS;
  else if (m && strcmp(m, "signal")) fprintf(stderr, "bare_sampler: unknown BARE_MODE %s, using signal\n", m);
  const char *r = getenv("BARE_RATE");
  uint64_t rate = r ? strtoull(r, NULL, 10) : 1000;
  if (rate) g_period_ns = 1000000000ull / rate;
  g_signo = SIGRTMIN + 3;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sample;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(g_signo, &sa, NULL);
  start_thread_event();
}

__attribute__((destructor)) static void bare_fini(void) {
  fprintf(stderr, "bare_sampler: %s %llu/s %llu samples\n", mode_name(),
          (unsigned long long)(1000000000ull / g_period_ns), (unsigned long long)g_samples);
}
