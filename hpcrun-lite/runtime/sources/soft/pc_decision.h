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
};

// A register correction: the chosen instruction ran with gpr[reg] == saved gpr[reg] - delta.
struct RegFix {
  uint8_t reg = 0;    // x86-64 encoding order, 0 = rax .. 15 = r15
  int16_t delta = 0;
};

struct PcDecision {
  Choice choice = Choice::Unknown;
  uint8_t prev_len = 0;  // length of the previous instruction when choice == UsePrevious
  int16_t offset = 0;    // UseOther: the chosen instruction is at pc + offset
  uint8_t nfixes = 0;    // UseOther: corrections of its address registers (at most 2)
  RegFix fixes[2];
  Rule rule = Rule::Unknown;
};

}  // namespace hpcrun
