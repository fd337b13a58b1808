// System calls made by the runtime without libc's wrappers, for two reasons. Calling mmap()
// by name would bind to this library's own mmap wrapper, which tracks the program's anonymous
// regions and takes the address map's lock: the runtime's own mappings must never go there. And
// libc's syscall() sets errno when a call fails, while the runtime runs inside the program's
// calls (free must leave errno alone: glibc 2.33 and POSIX promise it): raw_syscall returns the
// kernel's result, -errno on failure, and never touches errno. x86-64 Linux only, as the
// runtime.
#pragma once

#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace hpcrun {

namespace raw_detail {

template <class T>
inline long as_arg(T v) {
  if constexpr (std::is_pointer_v<T>) return reinterpret_cast<long>(v);
  else if constexpr (std::is_null_pointer_v<T>) return 0;
  else return static_cast<long>(v);
}

inline long call6(long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
  long ret;
  register long r10 __asm__("r10") = a4;
  register long r8 __asm__("r8") = a5;
  register long r9 __asm__("r9") = a6;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

}  // namespace raw_detail

// The system call `nr` with up to six arguments: its result, or -errno; errno is not touched.
// Async-signal-safe.
template <class... Args>
inline long raw_syscall(long nr, Args... args) {
  static_assert(sizeof...(Args) <= 6, "at most six arguments");
  long a[6] = {raw_detail::as_arg(args)...};
  return raw_detail::call6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

// Whether a raw_syscall result is an error (-4095..-1).
inline bool raw_failed(long r) { return r < 0 && r > -4096; }

inline void* raw_mmap(size_t len, int prot = PROT_READ | PROT_WRITE,
                      int flags = MAP_PRIVATE | MAP_ANONYMOUS, int fd = -1, long off = 0) {
  long r = raw_syscall(SYS_mmap, nullptr, len, prot, flags, fd, off);
  return raw_failed(r) ? nullptr : reinterpret_cast<void*>(r);
}

inline void raw_munmap(void* p, size_t len) { raw_syscall(SYS_munmap, p, len); }

}  // namespace hpcrun
