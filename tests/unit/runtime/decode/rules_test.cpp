// The decoder's rules beyond "the previous instruction" (access_decode.cpp: BranchJoin, LoadFeeds, ChasedNext and Compute), on
// hand-assembled byte sequences (bytes checked with GNU as + objdump), with their refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "decode/access_decode.h"

namespace {

using hpcrun::Choice;
using hpcrun::PcDecision;
using hpcrun::Rule;
using Bytes = std::vector<uint8_t>;

constexpr uint64_t kStart = 0x401000;

// Instructions used below (Intel syntax).
const Bytes kMovdquXmm2Rax = {0xf3, 0x0f, 0x6f, 0x10};         // movdqu xmm2, [rax]
const Bytes kMovdquXmm2RaxRbx = {0xf3, 0x0f, 0x6f, 0x14, 0xd8};  // movdqu xmm2, [rax+rbx*8]
const Bytes kAddRax16 = {0x48, 0x83, 0xc0, 0x10};                // add rax, 0x10
const Bytes kAddRax32 = {0x48, 0x83, 0xc0, 0x20};                // add rax, 0x20
const Bytes kAddEax16 = {0x83, 0xc0, 0x10};                      // add eax, 0x10
const Bytes kAddRaxRcx = {0x48, 0x01, 0xc8};                     // add rax, rcx
const Bytes kIncRbx = {0x48, 0xff, 0xc3};                        // inc rbx
const Bytes kDecRbx = {0x48, 0xff, 0xcb};                        // dec rbx
const Bytes kPaddq = {0x66, 0x0f, 0xd4, 0xc2};                   // paddq xmm0, xmm2
const Bytes kAddpdXmm2 = {0x66, 0x0f, 0x58, 0xd3};               // addpd xmm2, xmm3
const Bytes kCmpRdxRax = {0x48, 0x39, 0xc2};                     // cmp rdx, rax
const Bytes kAddRcx1 = {0x48, 0x83, 0xc1, 0x01};                 // add rcx, 1
const Bytes kMovupdXmm1Rsi = {0x66, 0x0f, 0x10, 0x0e};           // movupd xmm1, [rsi]
const Bytes kLeaRsi16 = {0x48, 0x8d, 0x76, 0x10};                // lea rsi, [rsi+0x10]
const Bytes kSubRsi8 = {0x48, 0x83, 0xee, 0x08};                 // sub rsi, 8
const Bytes kMulpd = {0x66, 0x0f, 0x59, 0xc1};                   // mulpd xmm0, xmm1
const Bytes kAddRdxMemRax = {0x48, 0x03, 0x10};                  // add rdx, [rax]
const Bytes kMovRaxRax8 = {0x48, 0x8b, 0x40, 0x08};              // mov rax, [rax+8]
const Bytes kTestRax = {0x48, 0x85, 0xc0};                       // test rax, rax
const Bytes kMovRaxRcx = {0x48, 0x89, 0xc8};                     // mov rax, rcx
const Bytes kMovRbxRcx = {0x48, 0x89, 0xcb};                     // mov rbx, rcx
const Bytes kAddRdxMemRaxRbx = {0x48, 0x03, 0x14, 0x18};         // add rdx, [rax+rbx]
const Bytes kMovRdxRax16 = {0x48, 0x8b, 0x50, 0x10};             // mov rdx, [rax+0x10]
const Bytes kXorStore = {0x4b, 0x31, 0x3c, 0xc1};                // xor [r9+r8*8], rdi
const Bytes kAddStack = {0x48, 0x83, 0x44, 0x24, 0x20, 0x01};    // add qword [rsp+0x20], 1
const Bytes kMovRcxRbp = {0x48, 0x8b, 0x4d, 0xf8};               // mov rcx, [rbp-8]
const Bytes kAddRcxMemRsi = {0x48, 0x03, 0x0e};                  // add rcx, [rsi]
const Bytes kRoundps = {0x66, 0x45, 0x0f, 0x3a, 0x08, 0xf6, 0x01};             // roundps xmm14, xmm14, 1
const Bytes kSpillXmm14 = {0x44, 0x0f, 0x29, 0xb4, 0x24, 0x18, 0x03, 0, 0};     // movaps [rsp+0x318], xmm14
const Bytes kXorpsXmm14 = {0x45, 0x0f, 0x57, 0xf6};                             // xorps xmm14, xmm14
const Bytes kMovupsXmm3Rdi = {0x0f, 0x10, 0x1f};                                // movups xmm3, [rdi]
const Bytes kMulps = {0x0f, 0x59, 0xdc};                                        // mulps xmm3, xmm4
const Bytes kSpillXmm3 = {0x0f, 0x29, 0x5c, 0x24, 0x20};                        // movaps [rsp+0x20], xmm3
const Bytes kAddpsXmm5 = {0x0f, 0x58, 0xee};                                    // addps xmm5, xmm6
const Bytes kAddpsRipConst = {0x0f, 0x58, 0x3d, 0x00, 0x01, 0x00, 0x00};        // addps xmm7, [rip+0x100]
const Bytes kMulsdRipConst = {0xf2, 0x0f, 0x59, 0x05, 0x00, 0x01, 0x00, 0x00};  // mulsd xmm0, [rip+0x100]
const Bytes kMovsdXmm0Rax = {0xf2, 0x0f, 0x10, 0x00};                           // movsd xmm0, [rax]
const Bytes kIncRcx = {0x48, 0xff, 0xc1};                                       // inc rcx
const Bytes kMovRaxRsiRcx = {0x48, 0x8b, 0x04, 0xce};                           // mov rax, [rsi+rcx*8]
const Bytes kMovsdStoreRdi = {0xf2, 0x0f, 0x11, 0x04, 0xcf};                    // movsd [rdi+rcx*8], xmm0
const Bytes kReloadRbp = {0x0f, 0x28, 0x4d, 0xd0};                              // movaps xmm1, [rbp-0x30]
const Bytes kLockOrStack = {0xf0, 0x48, 0x83, 0x0c, 0x24, 0x00};              // lock or qword [rsp], 0
const Bytes kReloadXmm3 = {0x0f, 0x10, 0x5c, 0x24, 0x40};                       // movups xmm3, [rsp+0x40]
const Bytes kCmpRcxRdx = {0x48, 0x39, 0xd1};                                    // cmp rcx, rdx
const Bytes kAddRaxMemRsiRcx = {0x48, 0x03, 0x04, 0xce};                        // add rax, [rsi+rcx*8]
const Bytes kCallNext = {0xe8, 0, 0, 0, 0};                                     // call rel32 (to the next)
const Bytes kRet = {0xc3};
const Bytes kCallFuncStart = {0xe8, 0, 0, 0, 0};  // call rel32, patched to the function start

// A function made of instructions; offsets of each instruction are kept for the checks.
struct Fn {
  Bytes code;
  std::vector<uint64_t> at;  // offset of the i-th instruction
  Fn(std::initializer_list<Bytes> insns) {
    for (const Bytes& b : insns) {
      at.push_back(code.size());
      code.insert(code.end(), b.begin(), b.end());
    }
    at.push_back(code.size());
  }
  // Appends a 2-byte jcc/jmp (opcode `op`) to instruction `target`; returns its index.
  size_t jump(uint8_t op, size_t target) {
    const int64_t rel = static_cast<int64_t>(at[target]) - static_cast<int64_t>(code.size() + 2);
    code.push_back(op);
    code.push_back(static_cast<uint8_t>(static_cast<int8_t>(rel)));
    at.back() = code.size() - 2;
    at.push_back(code.size());
    return at.size() - 2;
  }
  void add(const Bytes& b) {
    code.insert(code.end(), b.begin(), b.end());
    at.push_back(code.size());
  }
  PcDecision at_insn(size_t i, hpcrun::ConstantData constant = nullptr) const {
    return hpcrun::decide_from_code(code.data(), code.size(), kStart, kStart + at[i], constant);
  }
  int64_t off(size_t from, size_t to) const { return static_cast<int64_t>(at[to]) - static_cast<int64_t>(at[from]); }
};

constexpr uint8_t kJne = 0x75, kJe = 0x74, kJmp = 0xeb;
constexpr uint8_t RAX = 0, RCX = 1, RBX = 3, RSI = 6;

void expect_other(const PcDecision& d, Rule rule, int64_t offset) {
  EXPECT_EQ(d.choice, Choice::UseOther);
  EXPECT_EQ(d.rule, rule);
  EXPECT_EQ(d.offset, offset);
}

void expect_fixes(const PcDecision& d, std::initializer_list<std::pair<uint8_t, int>> fixes) {
  ASSERT_EQ(d.nfixes, fixes.size());
  size_t i = 0;
  for (auto [reg, delta] : fixes) {
    EXPECT_EQ(d.fixes[i].reg, reg) << i;
    EXPECT_EQ(d.fixes[i].delta, delta) << i;
    ++i;
  }
}

void expect_current(const PcDecision& d) {
  EXPECT_EQ(d.choice, Choice::UseCurrent);
  EXPECT_EQ(d.rule, Rule::Current);
}

// ---- Rule D: the load that feeds the waiting instruction -----------------------------------------

TEST(RuleLoadFeeds, Sse2StreamingLoop) {
  // 0: movdqu xmm2,[rax]; 1: add rax,16; 2: paddq xmm0,xmm2; 3: cmp rdx,rax; 4: jne 0; 5: ret
  Fn f{kMovdquXmm2Rax, kAddRax16, kPaddq, kCmpRdxRax};
  f.jump(kJne, 0);
  f.add(kRet);
  // At the paddq: it waits for xmm2, loaded two instructions back; rax has advanced by 16.
  const PcDecision d = f.at_insn(2);
  expect_other(d, Rule::LoadFeeds, f.off(2, 0));
  expect_fixes(d, {{RAX, 16}});
  // At the cmp: the cmp reads rax and rdx (written by no load); its predecessor paddq waits for
  // the load.
  const PcDecision c = f.at_insn(3);
  expect_other(c, Rule::LoadFeeds, f.off(3, 0));
  expect_fixes(c, {{RAX, 16}});
  // At the add right after the load: the previous instruction itself (rule Previous).
  EXPECT_EQ(f.at_insn(1).choice, Choice::UsePrevious);
}

TEST(RuleLoadFeeds, TwoRegistersLeaAndSub) {
  Fn two{kMovdquXmm2RaxRbx, kAddRax32, kIncRbx, kPaddq, kRet};
  const PcDecision d = two.at_insn(3);
  expect_other(d, Rule::LoadFeeds, two.off(3, 0));
  expect_fixes(d, {{RAX, 32}, {RBX, 1}});
  // Updates that cancel out need no correction.
  Fn zero{kMovdquXmm2RaxRbx, kIncRbx, kDecRbx, kPaddq, kRet};
  const PcDecision z = zero.at_insn(3);
  expect_other(z, Rule::LoadFeeds, zero.off(3, 0));
  EXPECT_EQ(z.nfixes, 0);
  // lea rsi,[rsi+16] then sub rsi,8: rsi is 8 ahead of the load's.
  Fn lea{kMovupdXmm1Rsi, kLeaRsi16, kSubRsi8, kMulpd, kRet};
  const PcDecision l = lea.at_insn(3);
  expect_other(l, Rule::LoadFeeds, lea.off(3, 0));
  expect_fixes(l, {{RSI, 8}});
}

TEST(RuleLoadFeeds, RefusesUnknownUpdateOfAddressRegister) {
  expect_current(Fn({kMovdquXmm2Rax, kAddRaxRcx, kPaddq, kRet}).at_insn(2));  // add rax, rcx
  expect_current(Fn({kMovdquXmm2Rax, kAddEax16, kPaddq, kRet}).at_insn(2));   // 32-bit update
  expect_current(Fn({kMovdquXmm2Rax, kMovRaxRcx, kPaddq, kRet}).at_insn(2));  // mov rax, rcx
}

TEST(RuleLoadFeeds, RefusesWhenTheInputComesFromANonLoad) {
  // The nearest writer of xmm2 is the addpd: the load is not followed through it.
  expect_current(Fn({kMovdquXmm2Rax, kAddpdXmm2, kAddRax16, kPaddq, kRet}).at_insn(3));
}

TEST(RuleLoadFeeds, RefusesBranchTargetInBetween) {
  // 0: movdqu; 1: add rax,16 (loop head); 2: paddq; 3: jne 1: the paddq's xmm2 may come from the
  // previous iteration's path... which is the same load, but the rule does not look across blocks.
  Fn f{kMovdquXmm2Rax, kAddRax16, kPaddq};
  f.jump(kJne, 1);
  f.add(kRet);
  expect_current(f.at_insn(2));
  // The pc itself a branch target: no dependence is followed either.
  Fn g{kMovdquXmm2Rax, kAddRax16, kPaddq};
  g.jump(kJne, 2);
  g.add(kRet);
  expect_current(g.at_insn(2));
}

TEST(RuleLoadFeeds, RefusesControlTransferInBetween) {
  Fn f{kMovdquXmm2Rax, kCallFuncStart, kAddRax16, kPaddq, kRet};
  // call rel32 to the function start (offset 0): rel = -(end of the call).
  const int32_t rel = -static_cast<int32_t>(f.at[2]);
  std::memcpy(&f.code[f.at[1] + 1], &rel, 4);
  expect_current(f.at_insn(3));
}

TEST(RuleLoadFeeds, RefusesTooFarBack) {
  // Eight unrelated instructions between the load and the waiter: beyond kDepInsns.
  Fn far{kMovdquXmm2Rax, kAddRcx1, kAddRcx1, kAddRcx1, kAddRcx1, kAddRcx1, kAddRcx1, kAddRcx1, kAddRcx1, kPaddq, kRet};
  expect_current(far.at_insn(9));
  Fn near{kMovdquXmm2Rax, kAddRcx1, kAddRcx1, kAddRcx1, kAddRcx1, kAddRcx1, kAddRcx1, kPaddq, kRet};
  expect_other(near.at_insn(7), Rule::LoadFeeds, near.off(7, 0));
}

TEST(RuleLoadFeeds, RefusesChasingLoad) {
  // mov rax,[rax+8] then add rcx,rax... the add's input is a load that overwrote its base: the
  // corrections cannot recover the old rax (this is ChasedNext's case when it is the previous one).
  Fn f{kMovRaxRax8, kAddRcx1, {0x48, 0x01, 0xc1}, kRet};  // add rcx, rax
  expect_current(f.at_insn(2));
}

// ---- Rule F: the next access through a chased pointer --------------------------------------------

TEST(RuleChasedNext, LinkedListWalk) {
  // 0: add rdx,[rax]; 1: mov rax,[rax+8]; 2: test rax,rax; 3: jne 0; 4: ret
  Fn f{kAddRdxMemRax, kMovRaxRax8, kTestRax};
  f.jump(kJne, 0);
  f.add(kRet);
  // At the test: the back-edge leads to add rdx,[rax] with the new rax (the next node).
  expect_other(f.at_insn(2), Rule::ChasedNext, f.off(2, 0));
}

TEST(RuleChasedNext, ForwardBranchFallsThroughAndJumpIsFollowed) {
  // 0: mov rax,[rax+8]; 1: test; 2: je 5; 3: jmp 4; 4: mov rdx,[rax+16]; 5: ret
  Fn f{kMovRaxRax8, kTestRax};
  f.jump(kJe, 0);  // placeholder, patched below
  f.jump(kJmp, 0);
  f.add(kMovRdxRax16);
  f.add(kRet);
  f.code[f.at[2] + 1] = static_cast<uint8_t>(f.at[5] - f.at[3]);  // je -> ret
  f.code[f.at[3] + 1] = static_cast<uint8_t>(f.at[4] - f.at[4]);  // jmp -> next
  expect_other(f.at_insn(1), Rule::ChasedNext, f.off(1, 4));
}

TEST(RuleChasedNext, Refusals) {
  // The chased register is overwritten before any access through it.
  expect_current(Fn({kMovRaxRax8, kTestRax, kMovRaxRcx, kAddRdxMemRax, kRet}).at_insn(1));
  // The access's other address register is written in between.
  expect_current(Fn({kMovRaxRax8, kTestRax, kMovRbxRcx, kAddRdxMemRaxRbx, kRet}).at_insn(1));
  // A call ends the search.
  Fn call{kMovRaxRax8, kTestRax, kCallFuncStart, kAddRdxMemRax, kRet};
  const int32_t rel = -static_cast<int32_t>(call.at[3]);
  std::memcpy(&call.code[call.at[2] + 1], &rel, 4);
  expect_current(call.at_insn(1));
  // The instruction at pc accesses memory itself: it is used (rule Current, as before).
  expect_current(Fn({kMovRaxRax8, kAddRcxMemRsi, kAddRdxMemRax, kRet}).at_insn(1));
}

TEST(RuleChasedNext, SkipsUnrelatedAccesses) {
  // add rcx,[rsi] lies on the path but not through rax: the search goes on to [rax+16].
  Fn f{kMovRaxRax8, kTestRax, kAddRcxMemRsi, kMovRdxRax16, kRet};
  expect_other(f.at_insn(1), Rule::ChasedNext, f.off(1, 3));
}

// ---- Rule B: a memory access before a branch target that touches only the stack ------------------

// store_join.c's layout: 0: `before` (loop top); 1: `join` (the if/else join); 2: jne 0 (back-edge
// spanning both); 3: ret; 4: add rcx,1 (the else branch, out of line); 5: jmp 1.
Fn join_layout(const Bytes& before, const Bytes& join) {
  Fn f{before, join};
  f.jump(kJne, 0);
  f.add(kRet);
  f.add(kAddRcx1);
  f.jump(kJmp, 1);
  return f;
}

TEST(RuleBranchJoin, StoreBeforeStackCounterAtJoin) {
  // xor [r9+r8*8],rdi before add qword [rsp+0x20],1 at the join.
  const PcDecision d = join_layout(kXorStore, kAddStack).at_insn(1);
  EXPECT_EQ(d.choice, Choice::UsePrevious);
  EXPECT_EQ(d.rule, Rule::BranchJoin);
  EXPECT_EQ(d.prev_len, kXorStore.size());
  // A forward join (if without else, no loop): 0: je 2; 1: the store; 2: the counter.
  Fn g{};
  g.jump(kJe, 0);  // patched below
  g.add(kXorStore);
  g.add(kAddStack);
  g.add(kRet);
  g.code[g.at[0] + 1] = static_cast<uint8_t>(g.at[2] - g.at[1]);
  EXPECT_EQ(g.at_insn(2).rule, Rule::BranchJoin);
  // rbp-based counters count as stack too; no memory operand at the join as well.
  const Fn h = join_layout(kXorStore, kMovRcxRbp);
  EXPECT_EQ(h.at_insn(1).rule, Rule::BranchJoin);
  const Fn n = join_layout(kXorStore, kAddRcx1);
  EXPECT_EQ(n.at_insn(1).rule, Rule::BranchJoin);
}

TEST(RuleBranchJoin, RefusedAtLoopHeadAfterPreheaderLoad) {
  // 0: xor [r9+r8*8],rdi (runs once); 1: add qword [rsp+0x20],1 (loop head); 2: jne 1.
  Fn f{kXorStore, kAddStack};
  f.jump(kJne, 1);
  f.add(kRet);
  expect_current(f.at_insn(1));
  // The same inside an outer loop that spans the preheader: then the rule applies (limit: the
  // inner loop still runs more often than the preheader).
  Fn g{kXorStore, kAddStack};
  g.jump(kJne, 1);
  g.jump(kJne, 0);
  g.add(kRet);
  EXPECT_EQ(g.at_insn(1).rule, Rule::BranchJoin);
}

TEST(RuleBranchJoin, Refusals) {
  // The instruction at the target accesses non-stack data: it is used.
  const Fn f = join_layout(kXorStore, kAddRcxMemRsi);
  expect_current(f.at_insn(1));
  // The previous instruction has no memory operand: the target's stack access did not take the
  // time either (Compute at a target); or it chases: the target's instruction.
  const Fn g = join_layout(kAddRcx1, kAddStack);
  EXPECT_EQ(g.at_insn(1).choice, Choice::NoData);
  EXPECT_EQ(g.at_insn(1).rule, Rule::Compute);
  const Fn h = join_layout(kMovRaxRax8, kAddStack);
  expect_current(h.at_insn(1));
}

// ---- Rule N: compute before a spill, a store or a constant is no data -------------------------------

void expect_no_data(const PcDecision& d) {
  EXPECT_EQ(d.choice, Choice::NoData);
  EXPECT_EQ(d.rule, Rule::Compute);
}

TEST(RuleCompute, SpillAfterComputeIsNoData) {
  // GROMACS (docs/CASES.md): roundps, then the spill of its result. The roundps took the time;
  // its input comes from no load, so nothing is charged (before: [rsp+0x318], i.e. [stack]).
  expect_no_data(Fn({kXorpsXmm14, kRoundps, kSpillXmm14, kRet}).at_insn(2));
  // A reload through rbp after compute: a stack access too.
  expect_no_data(Fn({kXorpsXmm14, kRoundps, kReloadRbp, kRet}).at_insn(2));
  // At the start of the function there is no previous instruction: the spill itself (Current, at the function start).
  expect_current(Fn({kSpillXmm14, kRet}).at_insn(0));
}

TEST(RuleCompute, ComputeFedByALoadGoesToTheLoad) {
  // movups xmm3,[rdi]; mulps xmm3,xmm4; movaps [rsp+0x20],xmm3 <- pc: the mulps waited for the
  // load, which is charged (LoadFeeds with the previous instruction as the waiter).
  Fn f{kMovupsXmm3Rdi, kMulps, kSpillXmm3, kRet};
  const PcDecision d = f.at_insn(2);
  expect_other(d, Rule::LoadFeeds, f.off(2, 0));
  EXPECT_EQ(d.nfixes, 0);
  // The same with a pointer increment in between: corrected as LoadFeeds does.
  Fn g{kMovupsXmm3Rdi, {0x48, 0x83, 0xc7, 0x10}, kMulps, kSpillXmm3, kRet};  // add rdi, 16
  const PcDecision e = g.at_insn(3);
  expect_other(e, Rule::LoadFeeds, g.off(3, 0));
  expect_fixes(e, {{7, 16}});
}

TEST(RuleCompute, RipConstantAfterComputeIsNoData) {
  expect_no_data(Fn({kAddpsXmm5, kAddpsRipConst, kRet}).at_insn(1));
}

TEST(RuleCompute, StoreAfterComputeIsNoData) {
  // A store through a general pointer has not run either; the store buffer hides its latency.
  expect_no_data(Fn({kAddpsXmm5, kMovsdStoreRdi, kRet}).at_insn(1));
}

TEST(RuleCompute, GeneralLoadAfterComputeKeepsTheInstructionAtPc) {
  // inc rcx; mov rax,[rsi+rcx*8] <- pc: a load through a general pointer (the next element of a
  // stream, in the loops measured) stays charged (Current, a load after compute).
  expect_current(Fn({kIncRcx, kMovRaxRsiRcx, kRet}).at_insn(1));
  // ... unless the previous instruction waited for a load (D first).
  Fn f{kMovupsXmm3Rdi, kMulps, kMovRaxRsiRcx, kRet};
  expect_other(f.at_insn(2), Rule::LoadFeeds, f.off(2, 0));
}

TEST(RuleCompute, AtABranchTarget) {
  // 0: addps; 1: movaps [rsp+0x20],xmm3 <- pc, target of the jne: no data (prev is compute on
  // one path, the jump on the other; the spill ran on neither).
  Fn f{kAddpsXmm5, kSpillXmm3, kIncRcx};
  f.jump(kJne, 1);
  f.add(kRet);
  expect_no_data(f.at_insn(1));
  // A general load at the target stays the instruction at pc (Current, at a target); LoadFeeds is not tried across it.
  Fn g{kMovupsXmm3Rdi, kMulps, kMovRaxRsiRcx, kIncRcx};
  g.jump(kJne, 2);
  g.add(kRet);
  expect_current(g.at_insn(2));
}

TEST(RuleCompute, SpillOrReloadBeforePcIsNoData) {
  // The spill store is the previous instruction: it waited for the mulps, which is charged to no
  // data (Compute, after a cheap access), not to [rsp+0x20].
  expect_no_data(Fn({kMulps, kSpillXmm3, kIncRcx, kRet}).at_insn(2));
  // A reload before pc: an L1 hit, no data.
  expect_no_data(Fn({kReloadRbp, kIncRcx, kRet}).at_insn(1));
  // A spill of a value just loaded: the load that feeds it (LoadFeeds with the spill as waiter).
  Fn f{kMovupsXmm3Rdi, kSpillXmm3, kIncRcx, kRet};
  expect_other(f.at_insn(2), Rule::LoadFeeds, f.off(2, 0));
  // Arithmetic on a SIMD literal (GROMACS: `mulps c(%rip),%xmm2; addps c(%rip),%xmm3`): no data.
  expect_no_data(Fn({kAddpsRipConst, kIncRcx, kRet}).at_insn(1));
  // The fence idiom on the stack (Open MPI's `lock orq $0,(%rsp)`) is no data access: its time
  // is the fence's, code time (access_operand), after it and at it.
  EXPECT_NE(Fn({kLockOrStack, kIncRcx, kRet}).at_insn(1).choice, Choice::UsePrevious);
  static const uint8_t kFence[] = {0xf0, 0x48, 0x83, 0x0c, 0x24, 0x00};
  hpcrun::SavedRegs regs{};
  regs.gpr[4] = 0x7ffd0000;  // rsp
  EXPECT_EQ(hpcrun::access_at(reinterpret_cast<uint64_t>(kFence), regs).kind, hpcrun::AccessKind::NoMemoryOperand);
  // A real read-modify-write under lock stays an access.
  static const uint8_t kLockAdd1[] = {0xf0, 0x48, 0x83, 0x04, 0x24, 0x01};  // lock add qword [rsp], 1
  EXPECT_EQ(hpcrun::access_at(reinterpret_cast<uint64_t>(kLockAdd1), regs).kind, hpcrun::AccessKind::Address);
}

// A scalar RIP-relative load (`mulsd c(%rip),%xmm0`, gfortran's `acc * 0.5d0`) is a constant when
// its target is read-only data of its module (constant_data), and stays Previous otherwise: a
// global scalar in writable data can miss.
uint64_t g_constant_at = 0;
bool constant_here(uint64_t addr) { return addr == g_constant_at; }

TEST(RuleCompute, ScalarLiteralOfReadOnlyDataIsNoData) {
  Fn f{kMulsdRipConst, kIncRcx, kRet};
  g_constant_at = kStart + f.at[1] + 0x100;  // the rip of the next instruction + the displacement
  EXPECT_EQ(f.at_insn(1).choice, Choice::UsePrevious);  // nothing known about its target
  expect_no_data(f.at_insn(1, constant_here));
  g_constant_at += 8;  // another address read-only: this load's target is still writable data
  EXPECT_EQ(f.at_insn(1, constant_here).choice, Choice::UsePrevious);
  // The load that feeds its other input is charged (LoadFeeds with the mulsd as the waiter).
  Fn g{kMovsdXmm0Rax, kMulsdRipConst, kIncRcx, kRet};
  g_constant_at = kStart + g.at[2] + 0x100;
  expect_other(g.at_insn(2, constant_here), Rule::LoadFeeds, g.off(2, 0));
}

TEST(RuleCompute, CheapFeedingLoadIsNoData) {
  // The load that feeds the waiting mulps is a reload from the stack: no data, at a spill (LoadFeeds finds a cheap load: Compute)
  // and at an instruction without data access (D).
  expect_no_data(Fn({kReloadXmm3, kMulps, kSpillXmm3, kRet}).at_insn(2));
  expect_no_data(Fn({kReloadXmm3, kMulps, kIncRcx, kRet}).at_insn(2));
  // The same through a general pointer is charged (LoadFeeds).
  Fn f{kMovupsXmm3Rdi, kMulps, kIncRcx, kRet};
  expect_other(f.at_insn(2), Rule::LoadFeeds, f.off(2, 0));
}

// ---- Rule L: the one load of a tight loop, at its loop control ---------------------------------

// `insns` closed by a jne back to instruction `head`, then a ret.
Fn loop(std::initializer_list<Bytes> insns, size_t head = 0) {
  Fn f(insns);
  f.jump(kJne, head);
  f.add(kRet);
  return f;
}

TEST(RuleLoopAccess, ReductionLoopControlGoesToItsLoad) {
  // 0: add rdx,[rax]; 1: add rax,16; 2: cmp rdx,rax; 3: jne 0; 4: ret. Neither the cmp nor the
  // jne is fed by a load (their inputs come from add rax,16): the loop's one load, rax as it was.
  const Fn f = loop({kAddRdxMemRax, kAddRax16, kCmpRdxRax});
  for (size_t i : {size_t{2}, size_t{3}}) {
    const PcDecision d = f.at_insn(i);
    expect_other(d, Rule::LoopAccess, f.off(i, 0));
    expect_fixes(d, {{RAX, 16}});
  }
  EXPECT_EQ(f.at_insn(1).rule, Rule::Previous);  // right after the load
  expect_current(f.at_insn(4));                  // after the loop: the ret
}

TEST(RuleLoopAccess, LoadLaterInTheLoopIsItsPreviousIteration) {
  // 0: mov rbx,rcx (preheader); 1: inc rcx (head); 2: cmp rcx,rdx; 3: add rax,[rsi+rcx*8];
  // 4: jne 1. At the cmp the load last ran in the previous iteration, before this one's inc rcx.
  const Fn f = loop({kMovRbxRcx, kIncRcx, kCmpRcxRdx, kAddRaxMemRsiRcx}, 1);
  const PcDecision d = f.at_insn(2);
  expect_other(d, Rule::LoopAccess, f.off(2, 3));
  expect_fixes(d, {{RCX, 1}});
  EXPECT_EQ(f.at_insn(4).rule, Rule::Previous);  // the jne right after the load
}

TEST(RuleLoopAccess, Refusals) {
  // Two data accesses: which one stalled is not known.
  expect_current(loop({kAddRdxMemRax, kMovsdXmm0Rax, kAddRax16, kCmpRdxRax}).at_insn(3));
  // A store alone (movsd [rdi+rcx*8],xmm0): the store buffer hides it, as for rule Compute.
  expect_current(loop({kMovsdStoreRdi, kIncRcx, kCmpRcxRdx}).at_insn(2));
  // A stack counter (add qword [rsp+0x20],1): a local, not data the loop streams through.
  expect_current(loop({kAddStack, kIncRcx, kCmpRcxRdx}).at_insn(2));
  // A call in the loop: its callee's time is not the load's.
  expect_current(loop({kAddRdxMemRax, kCallNext, kAddRax16, kCmpRdxRax}).at_insn(3));
  // An update of the address register that is not a constant step (add rax,rcx).
  expect_current(loop({kAddRdxMemRax, kAddRaxRcx, kCmpRdxRax}).at_insn(2));
  // Too long a loop (7 instructions): its other instructions may be computation of their own.
  expect_current(loop({kAddRdxMemRax, kAddRax16, kIncRcx, kIncRcx, kIncRcx, kCmpRdxRax}).at_insn(5));
  // A forward branch out of the loop's code: not straight code. 0: add rdx,[rax]; 1: add rax,16;
  // 2: je +5 (to the ret); 3: cmp rdx,rax; 4: jne 0; 5: ret.
  expect_current(loop({kAddRdxMemRax, kAddRax16, {0x74, 0x05}, kCmpRdxRax}).at_insn(4));
}

}  // namespace
