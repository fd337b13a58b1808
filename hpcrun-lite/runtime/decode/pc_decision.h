// What the sampler's decoder decides for one PC from the code bytes alone: which instruction a
// timer sample there charges, by which rule, with which register corrections. The decision is
// what the per-PC cache (pc_cache.h) stores; access_decode.h makes it and applies it.
#pragma once

#include <cstdint>

namespace hpcrun {

// The decision for one PC, computed from code bytes alone (no registers), cacheable.
//   UsePrevious  the instruction just before pc (prev_len bytes long);
//   UseCurrent   the instruction at pc;
//   UseOther     the instruction at pc + offset (a load earlier in the block, or the next access
//                through a chased pointer), with the address registers corrected by `fixes`;
//   Unknown      no decision (pc not an instruction start of a known function);
//   NoData       the time went to computation: no instruction's access is charged (rule Compute).
// With UsePrevious / UseOther, an instruction that turns out to have no memory operand falls back
// to the instruction at pc (access_for).
enum class Choice : uint8_t { UsePrevious, UseCurrent, Unknown, UseOther, NoData };

// Which rule made the decision (for tests and the rules' documentation; cached with it). The rules
// and the cases in which each applies are listed before decide_from_code in access_decode.cpp.
enum class Rule : uint8_t {
  Unknown,     // no decision: pc is not an instruction start of a function the decoder can read
  Current,     // the instruction at pc
  Previous,    // the instruction just before pc
  BranchJoin,  // the memory access before a branch target whose instruction touches only the stack
  LoadFeeds,   // the load that produced the waiting instruction's input
  ChasedNext,  // the next access through the pointer a chasing load wrote
  Compute,     // compute before an access that did not run yet (spill, store, constant): no data
  LoopAccess,  // the one load of a tight loop, at its loop control (compare, branch, increment)
};

// A register correction: the chosen instruction ran with gpr[reg] == saved gpr[reg] - delta.
struct RegFix {
  uint8_t reg = 0;    // x86-64 encoding order, 0 = rax .. 15 = r15
  int16_t delta = 0;
};

// The memory operand of the access a decision designates, decoded once when the decision is made
// and cached with it (issue 23), so that a sample at a known pc computes its address from the
// registers without decoding again: ea = disp + base + index << scale (each register truncated
// to its width), masked to 32 bits for a 32-bit address size, plus the FS base for fs:.
// It depends on the code bytes only; the registers come at each sample.
struct AccessRecipe {
  static constexpr uint8_t kNoReg = 16, kRip = 17;
  bool valid = false;     // false: not expressible here (moffs, 16-bit addressing): access_at decodes
  bool at_pc = false;     // the instruction at pc (rule Current, or the fallback when the chosen
                          // instruction touches no memory); else the chosen one, after its fixes
  uint8_t kind = 0;       // AccessKind
  uint8_t size = 0;       // operand bytes, 0 if unknown
  bool is_write = false;
  bool addr32 = false;
  bool fs = false;
  uint8_t base = kNoReg;  // 0-15 (x86-64 encoding order), kNoReg, or kRip
  uint8_t index = kNoReg;
  uint8_t base_width = 0, index_width = 0;  // 0: 64 bits, 1: 32, 2: 16, 3: 8
  uint8_t scale_log2 = 0;
  int32_t disp = 0;       // with kRip: the displacement plus the instruction's length
};

struct PcDecision {
  Choice choice = Choice::Unknown;
  uint8_t prev_len = 0;  // length of the previous instruction when choice == UsePrevious
  int16_t offset = 0;    // UseOther: the chosen instruction is at pc + offset
  uint8_t nfixes = 0;    // UseOther: corrections of its address registers (at most 2)
  RegFix fixes[2];
  Rule rule = Rule::Unknown;
  AccessRecipe access;  // what access_for computes, when valid
};

}  // namespace hpcrun
