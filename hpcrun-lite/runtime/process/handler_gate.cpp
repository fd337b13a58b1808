// See handler_gate.h.
#include "process/handler_gate.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/raw_sys.h"

namespace hpcrun {

// Raw rt_sigprocmask with the kernel's 8-byte set: the runtime's other masks are taken the same
// way, glibc's wrapper would also touch its own internal signals, and a thread-side gate runs
// inside the program's free(), whose errno stays the program's (raw_sys.h).
namespace {
std::atomic<uint64_t> g_also_blocked{0};
}  // namespace

void blocked_with_sampling(int signo) {
  if (signo > 0 && signo <= 64) g_also_blocked.fetch_or(uint64_t{1} << (signo - 1), std::memory_order_relaxed);
}

BlockedSignal::BlockedSignal(int signo) {
  if (signo <= 0 || signo > 64) return;
  const uint64_t set = (uint64_t{1} << (signo - 1)) | g_also_blocked.load(std::memory_order_relaxed);
  blocked_ = raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, &old_, sizeof(uint64_t)) == 0;
}

BlockedSignal::~BlockedSignal() {
  if (blocked_) raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old_, nullptr, sizeof(uint64_t));
}

bool wait_handler_quiet(const std::atomic<int>& in_handler, uint64_t deadline_ns) {
  while (in_handler.load(std::memory_order_seq_cst) != 0) {
    if (monotonic_ns() >= deadline_ns) return false;
    sched_yield();
  }
  return true;
}

}  // namespace hpcrun
