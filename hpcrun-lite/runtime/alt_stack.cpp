// See alt_stack.h.
#include "alt_stack.h"

#include <signal.h>
#include <sys/mman.h>

#include <cstddef>

#include "raw_sys.h"

namespace hpcrun {

namespace {

// The ending handler writes the profile on this stack (the writer, the format library and
// zstd need some tens of KiB). Reserved, not committed: a thread touches what it uses.
constexpr size_t kGuard = 4096;
constexpr size_t kSize = 256 * 1024;

__thread void* t_stack __attribute__((tls_model("initial-exec"))) = nullptr;

}  // namespace

void alt_stack_thread_start() {
  if (t_stack) return;
  stack_t current;
  if (sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;
  void* mem = raw_mmap(kGuard + kSize, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
  if (!mem) return;
  // The lowest page stays inaccessible: an overflow of the signal stack faults instead of
  // writing into whatever lies below.
  mprotect(mem, kGuard, PROT_NONE);
  stack_t ss{};
  ss.ss_sp = static_cast<char*>(mem) + kGuard;
  ss.ss_size = kSize;
  if (sigaltstack(&ss, nullptr) != 0) {
    raw_munmap(mem, kGuard + kSize);
    return;
  }
  t_stack = mem;
}

void alt_stack_thread_end() {
  if (!t_stack) return;
  stack_t current;
  if (sigaltstack(nullptr, &current) == 0 && current.ss_sp == static_cast<char*>(t_stack) + kGuard &&
      !(current.ss_flags & SS_ONSTACK)) {
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    if (sigaltstack(&off, nullptr) == 0) raw_munmap(t_stack, kGuard + kSize);
  }
  // A stack the program replaced ours with stays; ours is then left mapped (it may still be
  // in use by a handler that runs on it).
  t_stack = nullptr;
}

}  // namespace hpcrun
