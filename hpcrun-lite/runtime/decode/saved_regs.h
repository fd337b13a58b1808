// Builds the decoder's SavedRegs from a signal handler's ucontext (x86-64 Linux, glibc).
//
// ucontext's gregs are NOT in encoding order (REG_R8..REG_R15, REG_RDI, REG_RSI, REG_RBP,
// REG_RBX, REG_RDX, REG_RAX, REG_RCX, REG_RSP, REG_RIP); SavedRegs::gpr is (rax rcx rdx rbx rsp
// rbp rsi rdi r8..r15). The kernel does not save the FS base in the ucontext: pass the thread's
// own, which the handler can read with fs_base_of_current_thread() (the handler runs on the
// interrupted thread, so its FS base is the same).
#pragma once

#include <ucontext.h>

#include <cstdint>

#include "base/thread_pointer.h"
#include "decode/access_decode.h"

namespace hpcrun {

inline SavedRegs saved_regs_from_ucontext(const ucontext_t* uc, uint64_t fs_base) {
  const greg_t* g = uc->uc_mcontext.gregs;
  SavedRegs r;
  r.gpr[0] = static_cast<uint64_t>(g[REG_RAX]);
  r.gpr[1] = static_cast<uint64_t>(g[REG_RCX]);
  r.gpr[2] = static_cast<uint64_t>(g[REG_RDX]);
  r.gpr[3] = static_cast<uint64_t>(g[REG_RBX]);
  r.gpr[4] = static_cast<uint64_t>(g[REG_RSP]);
  r.gpr[5] = static_cast<uint64_t>(g[REG_RBP]);
  r.gpr[6] = static_cast<uint64_t>(g[REG_RSI]);
  r.gpr[7] = static_cast<uint64_t>(g[REG_RDI]);
  r.gpr[8] = static_cast<uint64_t>(g[REG_R8]);
  r.gpr[9] = static_cast<uint64_t>(g[REG_R9]);
  r.gpr[10] = static_cast<uint64_t>(g[REG_R10]);
  r.gpr[11] = static_cast<uint64_t>(g[REG_R11]);
  r.gpr[12] = static_cast<uint64_t>(g[REG_R12]);
  r.gpr[13] = static_cast<uint64_t>(g[REG_R13]);
  r.gpr[14] = static_cast<uint64_t>(g[REG_R14]);
  r.gpr[15] = static_cast<uint64_t>(g[REG_R15]);
  r.rip = static_cast<uint64_t>(g[REG_RIP]);
  r.fs_base = fs_base;
  return r;
}

}  // namespace hpcrun
