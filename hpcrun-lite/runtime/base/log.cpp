// See log.h.
#include "base/log.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <unistd.h>

namespace hpcrun {

bool g_verbose = false;

static void vlog(const char* fmt, va_list ap) {
  int saved = errno;
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "hpcrun-lite: ");
  int m = vsnprintf(buf + n, sizeof buf - size_t(n) - 1, fmt, ap);
  size_t len = size_t(n) + (m < 0 ? 0 : (size_t(m) < sizeof buf - size_t(n) - 1 ? size_t(m) : sizeof buf - size_t(n) - 2));
  buf[len++] = '\n';
  ssize_t ignored = write(STDERR_FILENO, buf, len);
  (void)ignored;
  errno = saved;
}

void log_warn(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

void log_info(const char* fmt, ...) {
  if (!g_verbose) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

}  // namespace hpcrun
