// See dynamic_tls.h.
//
// Races, and why each is safe:
//  - The thread owning `tp` exits while we read: its TCB (on its stack, or from the loader's
//    allocator for the main thread) may be unmapped; safe_read then fails and we report no block.
//  - The thread resizes its DTV (a dlopen raised the module count and it touched a new TLS
//    variable): glibc frees the old vector after copying it. We may read the old copy (its slots
//    still name the same blocks, or fail to read it) or the new one; either way a slot holds a
//    block of that module or the unallocated marker. Freed memory that malloc recycled could
//    yield garbage: the count and module id are bounded, and a garbage block address only
//    makes one sample's address compare against a range that does not hold it.
//  - A dlclose'd module's id is reused by a later dlopen, and a thread that has not touched TLS
//    since still holds the old module's (freed) block in that slot: an address in that freed
//    block would be named after the new module's variable until the thread updates its DTV.
//    The registry keeps only the newest module per id, and the heap map takes precedence for
//    tracked blocks, so this needs a freed TLS block reused and sampled in that window.
// None of this can fault or loop: one read per pointer, no pointer followed without a bound.
#include "loader/dynamic_tls.h"

#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace hpcrun {

namespace {
constexpr uint64_t kTcbDtvOffset = 8;     // tcbhead_t { void* tcb; dtv_t* dtv; ... }
constexpr uint64_t kDtvEntry = 16;        // union dtv { size_t counter; {void* val, *to_free} }
constexpr uint64_t kMaxDtvSlots = 1u << 20;
constexpr uint64_t kUnallocated = ~0ull;  // TLS_DTV_UNALLOCATED
// Set when the kernel refuses process_vm_readv (seccomp, no CONFIG_CROSS_MEMORY_ATTACH): no
// dynamic TLS is resolved then, and no system call is wasted on each sample.
std::atomic<bool> g_no_safe_read{false};
}  // namespace

bool safe_read(uint64_t addr, void* dst, size_t n) {
  if (g_no_safe_read.load(std::memory_order_relaxed)) return false;
  iovec local{dst, n};
  iovec remote{reinterpret_cast<void*>(addr), n};
  // getpid() each time: a forked child must read its own memory, and it is a cheap system call.
  long got = syscall(SYS_process_vm_readv, syscall(SYS_getpid), &local, 1ul, &remote, 1ul, 0ul);
  if (got < 0 && (errno == ENOSYS || errno == EPERM))
    g_no_safe_read.store(true, std::memory_order_relaxed);
  return got == long(n);
}

bool safe_read_works() { return !g_no_safe_read.load(std::memory_order_relaxed); }

uint64_t dtv_block(uint64_t tp, uint64_t modid) {
  if (tp == 0 || modid == 0) return 0;
  uint64_t dtv = 0;
  if (!safe_read(tp + kTcbDtvOffset, &dtv, sizeof dtv) || dtv < kDtvEntry || dtv % 8 != 0) return 0;
  uint64_t slots = 0;
  if (!safe_read(dtv - kDtvEntry, &slots, sizeof slots) || slots > kMaxDtvSlots || modid > slots)
    return 0;
  uint64_t block = 0;
  if (!safe_read(dtv + modid * kDtvEntry, &block, sizeof block) || block == kUnallocated) return 0;
  return block;
}

}  // namespace hpcrun
