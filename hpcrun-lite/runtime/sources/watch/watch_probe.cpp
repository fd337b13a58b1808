// See watch_probe.h.
#include "sources/watch/watch_probe.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdint>

#include "sources/perf_event.h"

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

}  // namespace hpcrun
