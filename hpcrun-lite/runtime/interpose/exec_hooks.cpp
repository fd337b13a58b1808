// The exec family, interposed so that an image that ends by exec leaves its profile (see
// process_end.h). glibc's execl, execlp, execle, execv and execvp call its internal execve, not
// the exported one, so each is interposed; the variadic ones collect their arguments on the
// stack (no allocation: exec is allowed in a forked child of a threaded program, where malloc
// may never return).
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include <cstddef>

#include "interpose/export.h"
#include "process/process_end.h"
#include "base/real_fns.h"

namespace hpcrun {
namespace {

// Runs `exec` (which returns only on failure) between the snapshot and its removal.
template <typename F>
int around_exec(F exec) {
  ensure_real_fns();
  process_end_before_exec();
  int rc = exec();
  int saved = errno;
  process_end_after_failed_exec();
  errno = saved;
  return rc;
}

// The arguments of execl/execlp/execle, up to the terminating null pointer, into `args`; false
// when there are more than fit (the exec then fails with E2BIG, as the kernel would for a list
// that long).
constexpr size_t kMaxListArgs = 4096;

bool collect_list(const char* first, va_list* ap, char** args) {
  size_t n = 0;
  for (const char* a = first; a; a = va_arg(*ap, const char*)) {
    if (n == kMaxListArgs) return false;
    args[n++] = const_cast<char*>(a);
  }
  args[n] = nullptr;
  return true;
}

// Collects the list that follows `arg` and hands it to `exec`, with the arguments left after
// the list (execle's envp).
template <typename Exec>
int exec_list(const char* target, const char* arg, va_list* ap, Exec exec) {
  char* args[kMaxListArgs + 1];
  if (!collect_list(arg, ap, args)) {
    errno = E2BIG;
    return -1;
  }
  return exec(target, args, ap);
}

}  // namespace
}  // namespace hpcrun

using namespace hpcrun;

extern "C" {

HPCL_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  return around_exec([&] { return real.execve(path, argv, envp); });
}

HPCL_EXPORT int execv(const char* path, char* const argv[]) {
  return around_exec([&] { return real.execv(path, argv); });
}

HPCL_EXPORT int execvp(const char* file, char* const argv[]) {
  return around_exec([&] { return real.execvp(file, argv); });
}

HPCL_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  ensure_real_fns();
  if (!real.execvpe) {
    errno = ENOSYS;
    return -1;
  }
  return around_exec([&] { return real.execvpe(file, argv, envp); });
}

HPCL_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  ensure_real_fns();
  if (!real.fexecve) {
    errno = ENOSYS;
    return -1;
  }
  return around_exec([&] { return real.fexecve(fd, argv, envp); });
}

// execl(path, arg0, ..., NULL), execlp likewise; execle adds envp after the NULL.
HPCL_EXPORT int execl(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  int rc = exec_list(path, arg, &ap, [](const char* p, char* const* args, va_list*) {
    return around_exec([&] { return real.execv(p, args); });
  });
  va_end(ap);
  return rc;
}

HPCL_EXPORT int execlp(const char* file, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  int rc = exec_list(file, arg, &ap, [](const char* f, char* const* args, va_list*) {
    return around_exec([&] { return real.execvp(f, args); });
  });
  va_end(ap);
  return rc;
}

HPCL_EXPORT int execle(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  int rc = exec_list(path, arg, &ap, [](const char* p, char* const* args, va_list* rest) {
    char* const* envp = va_arg(*rest, char* const*);
    return around_exec([&] { return real.execve(p, args, envp); });
  });
  va_end(ap);
  return rc;
}

}  // extern "C"
