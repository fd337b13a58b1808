// libunwind's memory checks, answered from what the runtime already knows.
//
// Debian's libunwind 1.6.2 checks every address it reads while it steps a frame it has not traced
// before (unw_step sets its cursor's `validate`): mincore(2) on the page, then a write(2) of one
// byte from the address into a pipe it keeps (EFAULT when unreadable) and a read(2) to drain the
// pipe again. Three system calls per page it has not checked lately (it remembers four), about
// 140 checks in a 1-rank LAMMPS start-up: 410 of the system calls the runtime added there
// (bench/kernel_entries.sh, 2-vCPU EPYC VM). Nearly all those addresses are on the stack being
// unwound, whose bounds the runtime keeps (thread_state.h, alt_stack.h).
//
// libunwind's own calls of mincore, msync, pipe2, read and syscall (its write) are pointed at
// the functions here through its global offset table (got_patch.h); no other caller is affected.
// A range inside the calling thread's stack or its signal stack is answered at once as readable;
// anything else goes to the kernel as before (a module's segments too: another thread's dlclose
// may have unmapped one that the registry still lists). The pipe is still
// drained correctly: a read goes to the kernel only while a write really put a byte in it.
// Async-signal-safe, as libunwind's own checks. Its anonymous mappings are populated at once
// (unwind_validate.cpp).
#pragma once

#include <link.h>

#include <cstdint>

namespace hpcrun {

// The calling thread's stacks (its own and its signal stack): whether [lo, hi) lies in one. Set
// by the runtime, which keeps the threads' bounds (thread_state.h), before unwind_init.
using StackCheck = bool (*)(uint64_t lo, uint64_t hi);
void unwind_validate_set_stack_check(StackCheck check);

// Patches the loaded libunwind `info` (loaded by unwind_init). Call before libunwind's first
// use, which opens its pipe. Returns the number of slots patched.
int unwind_validate_install(const dl_phdr_info* info);

// Whether [lo, hi) is known readable without asking the kernel (tests).
bool unwind_known_readable(uint64_t lo, uint64_t hi);

}  // namespace hpcrun
