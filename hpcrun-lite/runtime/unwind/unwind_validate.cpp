// See unwind_validate.h.
#include "unwind/unwind_validate.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "base/raw_sys.h"
#include "loader/got_patch.h"

namespace hpcrun {

namespace {

constexpr uint64_t kPage = 4096;
// libunwind's pipe (learned from its pipe2 call) and the bytes its writes really put there.
constinit std::atomic<int> g_pipe_read{-1}, g_pipe_write{-1};
constinit std::atomic<int64_t> g_pipe_bytes{0};
StackCheck g_on_stack = nullptr;

int checked_mincore(void* addr, size_t len, unsigned char* vec) {
  const auto lo = reinterpret_cast<uint64_t>(addr);
  if (vec && len > 0 && unwind_known_readable(lo, lo + len)) {
    memset(vec, 1, (len + kPage - 1) / kPage);
    return 0;
  }
  return mincore(addr, len, vec);
}

int checked_msync(void* addr, size_t len, int flags) {
  const auto lo = reinterpret_cast<uint64_t>(addr);
  if (len > 0 && unwind_known_readable(lo, lo + len)) return 0;
  return msync(addr, len, flags);
}

int checked_pipe2(int fds[2], int flags) {
  int rc = pipe2(fds, flags);
  if (rc == 0) {
    g_pipe_bytes.store(0, std::memory_order_relaxed);
    g_pipe_read.store(fds[0], std::memory_order_relaxed);
    g_pipe_write.store(fds[1], std::memory_order_relaxed);
  }
  return rc;
}

// libunwind drains the byte its last check wrote before it writes the next: with the kernel the
// read finds it and leaves errno alone. A check answered here wrote nothing, so its drain is
// answered as if the byte were there: an EAGAIN would change errno inside the program's malloc
// (e2e.errno_kept).
ssize_t checked_read(int fd, void* buf, size_t n) {
  if (fd == g_pipe_read.load(std::memory_order_relaxed) && n == 1 &&
      g_pipe_bytes.load(std::memory_order_relaxed) <= 0) {
    *static_cast<char*>(buf) = 0;
    return 1;
  }
  ssize_t r = read(fd, buf, n);
  if (fd == g_pipe_read.load(std::memory_order_relaxed) && r > 0)
    g_pipe_bytes.fetch_sub(r, std::memory_order_relaxed);
  return r;
}

// libunwind writes with syscall(SYS_write, ...); every other number passes through unchanged
// (x86-64 passes a variadic call's integer arguments in the same registers).
long checked_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
  if (nr == SYS_write && a1 == g_pipe_write.load(std::memory_order_relaxed) && a3 == 1) {
    const auto at = uint64_t(a2);
    if (unwind_known_readable(at, at + 1)) return 1;
    long r = syscall(SYS_write, a1, a2, a3);
    if (r > 0) g_pipe_bytes.fetch_add(r, std::memory_order_relaxed);
    return r;
  }
  return syscall(nr, a1, a2, a3, a4, a5, a6);
}

// Not a check: libunwind's anonymous mappings (its per-thread trace cache, 256 KiB, which it
// zeroes whole at once; its memory pools) are populated by the mmap itself, one system call
// instead of a page fault per page: 64 faults for each thread that unwinds.
// Raw: this library's own mmap is the program's interposer (raw_sys.h).
void* populated_mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  if ((flags & MAP_ANONYMOUS) && (prot & PROT_WRITE)) flags |= MAP_POPULATE;
  long r = raw_syscall(SYS_mmap, addr, len, prot, flags, fd, off);
  if (raw_failed(r)) {
    errno = int(-r);
    return MAP_FAILED;
  }
  return reinterpret_cast<void*>(r);
}

void* checked_for(const char* name) {
  if (strcmp(name, "mmap") == 0) return reinterpret_cast<void*>(&populated_mmap);
  if (strcmp(name, "mincore") == 0) return reinterpret_cast<void*>(&checked_mincore);
  if (strcmp(name, "msync") == 0) return reinterpret_cast<void*>(&checked_msync);
  if (strcmp(name, "pipe2") == 0) return reinterpret_cast<void*>(&checked_pipe2);
  if (strcmp(name, "read") == 0) return reinterpret_cast<void*>(&checked_read);
  if (strcmp(name, "syscall") == 0) return reinterpret_cast<void*>(&checked_syscall);
  return nullptr;
}

}  // namespace

bool unwind_known_readable(uint64_t lo, uint64_t hi) {
  // Only the stacks: a module's segments would be readable too, but another thread's dlclose can
  // unmap one before the registry hears of it, and a wrong "readable" here is a fault in the
  // handler; libunwind checks stack slots nearly always.
  if (hi <= lo) return false;
  return g_on_stack && g_on_stack(lo, hi);
}

void unwind_validate_set_stack_check(StackCheck check) { g_on_stack = check; }

int unwind_validate_install(const dl_phdr_info* info) { return got_patch_object(info, checked_for); }

}  // namespace hpcrun
