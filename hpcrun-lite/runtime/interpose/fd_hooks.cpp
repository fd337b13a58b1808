// The program's close, close_range, closefrom, dup2 and dup3: the runtime's own descriptors stay
// open and keep their numbers' files (process/fd_guard.h says why).
#include <sys/syscall.h>
#include <unistd.h>

#include "interpose/export.h"
#include "process/fd_guard.h"

using namespace hpcrun;

extern "C" {

HPCL_EXPORT int close(int fd) {
  if (fd_guard_owns(fd)) return 0;  // the program believes it closed it; it stays the runtime's
  return int(syscall(SYS_close, fd));
}

HPCL_EXPORT int close_range(unsigned first, unsigned last, int flags) {
  return fd_guard_close_range(first, last, unsigned(flags));
}

HPCL_EXPORT void closefrom(int lowfd) {
  fd_guard_close_range(unsigned(lowfd < 0 ? 0 : lowfd), ~0u, 0);
}

HPCL_EXPORT int dup2(int oldfd, int newfd) {
  if (oldfd != newfd) fd_guard_make_room(newfd);
  return int(syscall(SYS_dup2, oldfd, newfd));
}

HPCL_EXPORT int dup3(int oldfd, int newfd, int flags) {
  if (oldfd != newfd) fd_guard_make_room(newfd);
  return int(syscall(SYS_dup3, oldfd, newfd, flags));
}

}  // extern "C"
