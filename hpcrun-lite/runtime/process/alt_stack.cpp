// See alt_stack.h.
#include "process/alt_stack.h"

#include <signal.h>
#include <sys/mman.h>

#include <cstddef>

#include "base/raw_sys.h"

namespace hpcrun {

namespace {

// The ending handler writes the profile on this stack (the writer, the format library and
// zstd need some tens of KiB). Reserved, not committed: a thread touches what it uses.
constexpr size_t kGuard = 4096;
constexpr size_t kSize = 256 * 1024;

char* stack_base(void* memory) { return static_cast<char*>(memory) + kGuard; }

}  // namespace

void alt_stack_thread_start(void** memory) {
  stack_t current;
  if (sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;
  if (!*memory) {
    void* mem = raw_mmap(kGuard + kSize, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
    if (!mem) return;
    // The lowest page stays inaccessible: an overflow of the signal stack faults instead of
    // writing into whatever lies below.
    mprotect(mem, kGuard, PROT_NONE);
    *memory = mem;
  }
  stack_t ss{};
  ss.ss_sp = stack_base(*memory);
  ss.ss_size = kSize;
  sigaltstack(&ss, nullptr);
}

bool alt_stack_contains(const void* memory, uint64_t lo, uint64_t hi) {
  if (!memory) return false;
  const auto base = reinterpret_cast<uint64_t>(memory) + kGuard;
  return lo >= base && hi <= base + kSize && lo <= hi;
}

void alt_stack_thread_end(void* memory) {
  if (!memory) return;
  stack_t current;
  // A stack the program replaced ours with stays the program's.
  if (sigaltstack(nullptr, &current) != 0 || current.ss_sp != stack_base(memory) ||
      (current.ss_flags & SS_ONSTACK))
    return;
  stack_t off{};
  off.ss_flags = SS_DISABLE;
  sigaltstack(&off, nullptr);
}

}  // namespace hpcrun
