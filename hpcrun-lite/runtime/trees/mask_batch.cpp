// See mask_batch.h.
#include "trees/mask_batch.h"

#include <sys/syscall.h>

#include <cstdint>
#include <cstring>

#include "base/raw_sys.h"

namespace hpcrun {

namespace {

struct BatchState {
  int active;
  int blocked;       // the batch's first block of everything went to the kernel
  int quiet;         // inside the runtime: nothing goes to the kernel (mask_batch.h)
  sigset_t saved;    // the mask before it: what libunwind's restores ask for
};
__thread BatchState t_batch __attribute__((tls_model("initial-exec")));

// The kernel's mask is the first 64 bits of a sigset_t.
uint64_t word(const sigset_t& s) {
  uint64_t w;
  memcpy(&w, &s, sizeof w);
  return w;
}

// What sigfillset gives in this libc (glibc leaves out its two internal signals), as libunwind's
// full mask is made. Computed when the library is loaded, before any unwind: a function-local
// static would be guarded by a lock that a handler could meet held.
uint64_t make_full_word() {
  sigset_t s;
  sigfillset(&s);
  return word(s);
}
const uint64_t g_full_word = make_full_word();

}  // namespace

MaskBatch::MaskBatch(bool inside_runtime)
    : outer_active_(t_batch.active), outer_blocked_(t_batch.blocked), outer_quiet_(t_batch.quiet),
      outer_saved_(t_batch.saved) {
  t_batch.blocked = 0;
  t_batch.quiet = inside_runtime;
  t_batch.active = 1;
}

MaskBatch::~MaskBatch() {
  t_batch.active = 0;
  // The raw call: the wrappers would take it for one of libunwind's; and errno stays the
  // program's (a free() that tracked a block unwinds here).
  if (t_batch.blocked) raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &t_batch.saved, nullptr, 8);
  t_batch.saved = outer_saved_;
  t_batch.blocked = outer_blocked_;
  t_batch.quiet = outer_quiet_;
  t_batch.active = outer_active_;
}

bool mask_batch_take(int (*real_fn)(int, const sigset_t*, sigset_t*), int how,
                     const sigset_t* set, sigset_t* old, int* rc) {
  if (!t_batch.active || how != SIG_SETMASK || !set) return false;
  const uint64_t full = g_full_word;
  if (t_batch.quiet) {
    // Told the full mask was there before, libunwind restores the full mask: a block again,
    // answered the same way. Anything else goes through.
    if ((word(*set) & full) != full) return false;
    if (old) *old = *set;
    *rc = 0;
    return true;
  }
  if ((word(*set) & full) == full) {
    if (!t_batch.blocked) {
      sigset_t before;
      *rc = real_fn(how, set, &before);
      if (*rc != 0) return true;
      t_batch.saved = before;
      t_batch.blocked = 1;
    }
    if (old) *old = t_batch.saved;
    *rc = 0;
    return true;
  }
  if (t_batch.blocked && word(*set) == word(t_batch.saved)) {
    *rc = 0;  // stays blocked until the batch ends
    return true;
  }
  return false;
}

}  // namespace hpcrun
