// See watch_probe.h.
#include "hpcrun/probe/watch_probe.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "hpcrun/probe/perf_event.h"

namespace hpcrun {

namespace {
alignas(64) volatile uint64_t g_probe_words[2];
}

WatchProbe probe_watchpoints() {
  WatchProbe p;
  int fds[8];
  int n = 0;
  for (; n < 8; ++n) {
    int fd = perf_open(breakpoint_attr(reinterpret_cast<uint64_t>(&g_probe_words[1]), false), 0,
                       -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      p.first_error = -fd;
      break;
    }
    fds[n] = fd;
  }
  p.registers = n;
  if (n > 0) {
    perf_event_attr a = breakpoint_attr(reinterpret_cast<uint64_t>(&g_probe_words[0]), true);
    p.modify = ioctl(fds[0], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) == 0;
    if (p.modify) {
      for (int i = 0; i < 100; ++i) g_probe_words[0] = g_probe_words[0] + 1;
      uint64_t count = 0;
      p.counted = read(fds[0], &count, sizeof count) == ssize_t(sizeof count) && count >= 100;
    }
  }
  for (int i = 0; i < n; ++i) close(fds[i]);
  return p;
}

bool watch_usable(const WatchProbe& p, char* why, size_t n) {
  if (p.registers == 0) {
    snprintf(why, n, "perf refuses breakpoint events: %s%s", strerror(p.first_error),
             p.first_error == ENOSPC ? " (the debug registers are taken: a debugger?)" : "");
    return false;
  }
  if (!p.modify) {
    snprintf(why, n, "%d debug registers per thread, modify ioctl no (Linux < 4.17)", p.registers);
    return false;
  }
  if (!p.counted) {
    snprintf(why, n, "%d debug registers per thread, modify ioctl yes, counting no (the watch "
             "missed some of 100 writes to its word; some paravirtualized guests count none)",
             p.registers);
    return false;
  }
  snprintf(why, n, "%d debug registers per thread, modify ioctl yes, counting exact", p.registers);
  return true;
}

}  // namespace hpcrun
