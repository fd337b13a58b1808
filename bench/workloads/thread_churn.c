// Thread start and exit cost (benchmark workload): creates THREADS threads one after another,
// each doing almost nothing, and prints the wall time per thread in microseconds. Run natively
// and under hpcrun-lite it gives the tool's cost per thread (bench/threads.sh). The other modes
// do, without the tool, what a profiler's thread start and exit could do, so each step's kernel
// cost is measured on its own:
//   none     create and join only (the native baseline)
//   current  per thread: perf_event_open (disabled), F_DUPFD_CLOEXEC to >= 1000, close, F_SETSIG,
//            F_SETOWN_EX, F_GETFL, F_SETFL O_ASYNC, ENABLE; at exit DISABLE and close (the
//            runtime's sequence before this benchmark existed)
//   lean     the same without F_GETFL (a perf fd has no F_SETFL flag set) and without DISABLE
//   nodup    lean without the move to a high descriptor (perf_event_open, 3 fcntl, ENABLE, close)
//   defer    lean, but the exiting thread leaves its fd to the creating thread, which closes
//            the fds in batches of 64 (a reaper off the exit path)
//   sigtrap  one task-clock event opened once by main with inherit=1, sigtrap=1,
//            remove_on_exec=1 (Linux >= 5.13): the kernel gives each new thread its own copy;
//            the threads do no system call of their own
// Prints wall and CPU time (user + system of the whole process, exited threads included) per
// thread; on a shared machine the CPU time is the steadier of the two.
// Usage: thread_churn [THREADS] [MODE]   (default 20000 none)
#define _GNU_SOURCE
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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum mode { NONE, CURRENT, LEAN, NODUP, DEFER, INHERIT_TRAP };
static enum mode g_mode = NONE;
static const uint64_t kPeriodNs = 2000000;  // the runtime's default 500 samples/s
static int g_deferred_fd = -1;              // handed from the exiting thread to main (defer)
static volatile unsigned long g_sink;

static double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int open_clock(int inherit_sigtrap) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = kPeriodNs;
  a.disabled = !inherit_sigtrap;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.wakeup_events = 1;
  if (inherit_sigtrap) {
    a.inherit = 1;
    a.sigtrap = 1;
    a.remove_on_exec = 1;
  }
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int arm(int fd, int getfl) {
  if (fcntl(fd, F_SETSIG, SIGRTMIN + 4) != 0) return -1;
  struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0) return -1;
  int fl = getfl ? fcntl(fd, F_GETFL) : 0;
  if (fl < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC) != 0) return -1;
  return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

static void *worker(void *arg) {
  (void)arg;
  g_sink++;
  if (g_mode == NONE || g_mode == INHERIT_TRAP) return NULL;
  int fd = open_clock(0);
  if (fd < 0) {
    perror("perf_event_open");
    exit(1);
  }
  if (g_mode != NODUP) {
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 1000);
    close(fd);
    fd = high;
  }
  if (fd < 0 || arm(fd, g_mode == CURRENT) != 0) {
    perror("arming the event");
    exit(1);
  }
  if (g_mode == CURRENT) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  if (g_mode == DEFER) g_deferred_fd = fd;
  else close(fd);
  return NULL;
}

static void on_trap(int sig) { (void)sig; }

int main(int argc, char **argv) {
  long threads = argc > 1 ? atol(argv[1]) : 20000;
  const char *names[] = {"none", "current", "lean", "nodup", "defer", "sigtrap"};
  if (argc > 2) {
    int found = 0;
    for (int m = 0; m <= INHERIT_TRAP; ++m)
      if (strcmp(argv[2], names[m]) == 0) g_mode = (enum mode)m, found = 1;
    if (!found) {
      fprintf(stderr, "thread_churn: unknown mode %s\n", argv[2]);
      return 2;
    }
  }
  if (threads <= 0) {
    fprintf(stderr, "thread_churn: THREADS must be a positive number, not %s\n", argv[1]);
    return 2;
  }
  if (g_mode == INHERIT_TRAP) {
    signal(SIGTRAP, on_trap);
    if (open_clock(1) < 0) {
      fprintf(stderr, "thread_churn: sigtrap event: %s\n", strerror(errno));
      return 77;
    }
  }
  int batch[64], nbatch = 0;
  double t0 = now_s(), c0 = cpu_s();
  for (long i = 0; i < threads; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
    pthread_join(t, NULL);
    if (g_mode == DEFER) {
      batch[nbatch++] = g_deferred_fd;
      if (nbatch == 64 || i == threads - 1) {
        for (int k = 0; k < nbatch; ++k) close(batch[k]);
        nbatch = 0;
      }
    }
  }
  double t1 = now_s(), c1 = cpu_s();
  printf("%s %ld threads %.2f us/thread wall %.2f us/thread cpu\n", names[g_mode], threads,
         (t1 - t0) * 1e6 / threads, (c1 - c0) * 1e6 / threads);
  return 0;
}
