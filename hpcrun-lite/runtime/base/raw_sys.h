// Memory for the runtime's own structures comes straight from the kernel. Calling mmap()
// by name would bind to this library's own mmap wrapper, which tracks the program's anonymous
// regions and takes the address map's lock: the runtime's own mappings must never go there.
#pragma once

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

namespace hpcrun {

inline void* raw_mmap(size_t len, int prot = PROT_READ | PROT_WRITE,
                      int flags = MAP_PRIVATE | MAP_ANONYMOUS, int fd = -1, long off = 0) {
  long r = syscall(SYS_mmap, nullptr, len, prot, flags, fd, off);
  return (r < 0 && r > -4096) ? nullptr : reinterpret_cast<void*>(r);
}

inline void raw_munmap(void* p, size_t len) { syscall(SYS_munmap, p, len); }

}  // namespace hpcrun
