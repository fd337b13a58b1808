// x86-64 operand helpers on Zydis-decoded instructions (library hpcl::x86), shared by the
// runtime's sampler, whose attribution rules (decode/access_decode.cpp) decide from the code
// which instruction a timer sample charges, and the analyzer's code analysis (symbols/code_cfg,
// loop_pattern, reg_values), which must agree with them on what "an access" is and which
// registers an instruction reads and writes.
//
// Pure functions of a decoded instruction: they allocate nothing, take no lock and make no
// system call, so the signal handler may call them.
#pragma once

#include <Zydis/Zydis.h>

#include <cstddef>
#include <cstdint>

namespace hpcl::x86 {

inline constexpr size_t kMaxInsnLen = 15;  // the longest x86 instruction

bool is_control_transfer(const ZydisDecodedInstruction& in);

// Target of a direct (relative-immediate) branch: jcc, jmp rel, call rel, loop, jrcxz, xbegin.
bool direct_branch_target(const ZydisDecodedInstruction& in, uint64_t runtime_address, uint64_t* target);

// `lock or $0,(%rsp)` / `lock add $0,(%rsp)` (any operand size): a full memory fence.
bool is_fence_idiom(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops);

// The memory operand that is a data access, or -1.
//   - operand type MEMORY with memory type MEM or VSIB (AGEN = lea-style address generation and
//     MIB = MPX bound tables are not accesses) and a non-empty read/write action;
//   - explicit operands only, except for string instructions (movs, cmps, stos, lods, scas and
//     their rep forms), whose memory operands Zydis reports as hidden; implicit stack operands of
//     push/pop/call/ret are not counted;
//   - lea and nops with memory operands (nop dword [rax+rax], reserved-nop hints) are not
//     accesses; prefetches and clflush are (they touch the line);
//   - with two memory operands (movs, cmps) the source [rsi] is preferred;
//   - the full-fence idiom `lock or/add $0,(%rsp)` (Open MPI, GCC's __atomic_thread_fence on
//     some targets) is not an access: it changes nothing, and its time is the fence's (the store
//     buffer draining), like mfence's. In HPCC's MPI progress loop it made [stack] a top row.
int access_operand(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops);

// General-purpose register -> its 64-bit register (RAX..R15), or NONE for anything else.
ZydisRegister gpr64(ZydisRegister r);

// True when the instruction writes (or may write) a general-purpose register that the address of
// operand `m` uses: its base or index. Implicit and hidden writes count (movs advances rsi/rdi).
bool overwrites_address_register(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops,
                                 const ZydisDecodedOperand& m);

// Register sets for the dependence rules: bit i for general-purpose register i (encoding order,
// any width), bit 16 + n for vector register n (xmm, ymm or zmm). Flags, x87, mask and segment
// registers have no bit: a dependence through them is not followed.
using RegSet = uint64_t;

RegSet reg_bit(ZydisRegister r);

// Registers of the register operands (explicit or implicit) with an action in `actions`; with
// `with_addresses`, also the base and index of the memory operands (which are read).
RegSet registers_of(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops, unsigned actions,
                    bool with_addresses);
RegSet reads_of(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops);
// Possibly conditionally, explicitly or implicitly.
RegSet writes_of(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops);
RegSet address_regs(const ZydisDecodedOperand& m);

// A memory operand addressed from the stack pointer or the frame pointer alone (locals, spills).
// rbp is also a general register without frame pointers; such an access is then taken as stack.
bool stack_only(const ZydisDecodedOperand& m);

// A simple update of the 64-bit register `r` by a constant: add/sub r, imm; inc/dec r;
// lea r, [r + disp]. Sets *delta to the amount added.
bool constant_update(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops, ZydisRegister r,
                     int64_t* delta);

}  // namespace hpcl::x86
