// Finds which instruction a timer sample most likely stalled on and the data address it touched.
//
// On a timer interrupt the saved PC is, in practice, the instruction AFTER the one that stalled
// (measured on the project's x86-64 VMs: in a streaming loop 99% of samples sit on the `add` after
// the load; the instruction at the PC has a memory operand in under 1% of samples, the one before
// it in 99.2-99.8%). So the previous instruction is decoded first, found by decoding forward
// from the start of the enclosing function (function bounds from the module's .eh_frame_hdr via
// find_object, which is async-signal-safe): rule Previous. When it cannot be used (a branch, a
// branch target in between, no memory operand, pointer chasing) four further rules look for the
// access from the code: LoadFeeds (the load that produced the input of the waiting instruction,
// with simple pointer increments since undone), ChasedNext (the next access through a chased
// pointer), BranchJoin (a memory access before a branch target whose own instruction touches
// only the stack) and LoopAccess (the one load of a tight loop, for a sample on its compare or
// branch). Compute followed by a spill, a store or a constant load is charged to no data
// rather than to that access (rule Compute); otherwise the instruction at the PC is used (rule
// Current). The rules (pc_decision.h, `Rule`) and the cases in which each applies are listed
// before decide_from_code in access_decode.cpp. The choice per PC is cached in a lock-free table
// (pc_cache.h).
//
// Everything here is called from a signal handler: it allocates nothing, takes no lock, and does
// not touch errno. Stack use: about 4 KiB per call (see access_decode.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "decode/eh_frame_bounds.h"
#include "decode/pc_cache.h"
#include "decode/pc_decision.h"

namespace hpcrun {

// The bound on one miss's work: at most this many instructions decoded forward from the function
// start, and none more than kDecodeMaxBackSpan bytes past the pcs being decided (backward branches
// longer than that are not counted as targets; see the rules in access_decode.cpp).
inline constexpr unsigned kDecodeMaxScanInsns = 4096;
inline constexpr uint64_t kDecodeMaxBackSpan = 2048;

// Registers saved by the kernel at the interrupt, in the order of the x86-64 encoding
// (rax rcx rdx rbx rsp rbp rsi rdi r8..r15), plus rip and the thread's FS base.
struct SavedRegs {
  uint64_t gpr[16];
  uint64_t rip;
  uint64_t fs_base;
};

enum class AccessKind : uint8_t {
  NoMemoryOperand,  // neither candidate instruction touches memory (explicitly)
  Address,          // ea is valid
  Unresolvable,     // touches memory but the address cannot be computed (VSIB gather, gs:, ...)
};

struct Access {
  AccessKind kind = AccessKind::NoMemoryOperand;
  uint64_t insn = 0;   // address of the chosen instruction (the sampled instruction)
  uint64_t ea = 0;     // effective address (Address only)
  uint8_t size = 0;    // operand size in bytes, 0 if unknown
  bool is_write = false;
};

// Whether a data address is read-only for good (a constant of the program): constant_data
// (find_object.h) in the runtime, a stand-in in tests.
using ConstantData = bool (*)(uint64_t addr);

// Pure decision on a code buffer: `code` holds the bytes of a function starting at runtime address
// `func_start`, `len` bytes long; `pc` lies inside. Decodes forward from the start. `constant`
// tells which RIP-relative targets are read-only data (null: none). Used directly by unit tests
// on hand-assembled byte sequences; the runtime's misses (resolve_sample) ask constant_data.
PcDecision decide_from_code(const uint8_t* code, size_t len, uint64_t func_start, uint64_t pc,
                            ConstantData constant = nullptr);

// Decodes one instruction at `insn` and computes its memory access using `regs` (RIP-relative and
// fs: segments handled). Returns NoMemoryOperand when it has no explicit memory operand (lea and
// nop are not accesses).
Access access_at(uint64_t insn, const SavedRegs& regs);

// The memory operand of the instruction at `insn`, decoded once (pc_decision.h), and the access
// it gives with registers `regs`: apply_recipe(access_recipe(insn), insn, regs) equals
// access_at(insn, regs) whenever the recipe is valid, without decoding.
AccessRecipe access_recipe(uint64_t insn);
Access apply_recipe(const AccessRecipe& r, uint64_t insn, const SavedRegs& regs);

// The access a decision designates for a sample with registers `regs` (regs.rip is the pc):
// the chosen instruction's access with its address registers corrected, or, when the chosen
// instruction has no memory operand, the instruction at pc; NoData gives NoMemoryOperand. With a
// valid recipe in the decision (every decision the cache made), nothing is decoded.
Access access_for(const PcDecision& d, const SavedRegs& regs);

// The whole rule, with the per-PC cache: what a sample at regs.rip accessed.
Access resolve_sample(const SavedRegs& regs);

// Statistics of the PC cache, for tests and -v output.
struct DecodeStats {
  uint64_t lookups, hits, inserts, full, evictions;
  uint64_t invalidate_scans;  // decode_cache_invalidate calls that had to scan the table
  uint64_t invalidate_slots;  // slots those scans read (only groups of slots ever written)
  uint64_t scan_insns;        // instructions decoded forward by misses, in all
  uint64_t scan_insns_max;    // the most instructions one miss decoded forward (the bound's witness)
  uint64_t operand_decodes;   // instructions decoded at samples to compute an address (access_at)
};
DecodeStats decode_stats();

// Must be called once before the first resolve_sample (not from a signal handler): initialises
// the Zydis decoder state. Idempotent.
void decode_init();

}  // namespace hpcrun
