// See perf_event.h.
#include "hpcrun/probe/perf_event.h"

#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hpcrun {

static PerfOpenHook g_hook = nullptr;
void set_perf_open_hook(PerfOpenHook hook) { g_hook = hook; }

perf_event_attr soft_clock_attr(uint64_t period_ns, bool trap) {
  perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = period_ns;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.wakeup_events = 1;
  if (trap) {
    a.sigtrap = 1;
    a.remove_on_exec = 1;  // the kernel requires it with sigtrap: no SIGTRAP reaches a new image
    a.sig_data = kTimerTrapCookie;
  }
  return a;
}

perf_event_attr breakpoint_attr(uint64_t word, bool enabled, bool writes_only) {
  perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_BREAKPOINT;
  // x86 has no read-only watch: reads and writes, or writes alone.
  a.bp_type = writes_only ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;
  a.bp_addr = word;
  a.bp_len = HW_BREAKPOINT_LEN_8;
  a.sample_period = 1;
  a.wakeup_events = 1;
  a.disabled = enabled ? 0 : 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  return a;
}

int perf_open(const perf_event_attr& attr, pid_t tid, int cpu, int group_fd, unsigned long flags) {
  if (g_hook) return g_hook(attr, tid, cpu, group_fd, flags);
  long fd = syscall(SYS_perf_event_open, &attr, tid, cpu, group_fd, flags);
  return fd < 0 ? -errno : int(fd);
}

int perf_open_thread(const perf_event_attr& attr, pid_t tid, int group_fd) {
  int fd = perf_open(attr, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return fd;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 1000);
  if (high >= 0) {
    close(fd);
    fd = high;
  }
  return fd;
}

int perf_route_thread_signal(int fd, int signo, pid_t tid) {
  if (fcntl(fd, F_SETSIG, signo) != 0) return -errno;
  f_owner_ex owner{F_OWNER_TID, tid};
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0) return -errno;
  // A new perf fd has none of the flags F_SETFL sets (O_APPEND, O_NONBLOCK, ...), so O_ASYNC
  // alone is its whole set: no F_GETFL first, one system call less per thread.
  if (fcntl(fd, F_SETFL, O_ASYNC) != 0) return -errno;
  return 0;
}

int perf_arm_thread_signal(int fd, int signo, pid_t tid, bool one_overflow) {
  if (signo != 0)
    if (int err = perf_route_thread_signal(fd, signo, tid); err != 0) return err;
  // REFRESH 1 enables the event for one overflow, after which the kernel disables it.
  if (ioctl(fd, one_overflow ? PERF_EVENT_IOC_REFRESH : PERF_EVENT_IOC_ENABLE,
            one_overflow ? 1 : 0) != 0)
    return -errno;
  return 0;
}

}  // namespace hpcrun
