// decide_from_code on hand-assembled byte sequences (bytes checked with GNU as + objdump).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "decode/access_decode.h"

namespace {

using hpcrun::Choice;
using hpcrun::decide_from_code;
using hpcrun::PcDecision;
using hpcrun::Rule;

constexpr uint64_t kStart = 0x401000;  // runtime address given to the bytes (never executed)

PcDecision decide(const std::vector<uint8_t>& code, uint64_t pc_off) {
  return decide_from_code(code.data(), code.size(), kStart, kStart + pc_off);
}

// `prev` followed by `add rcx, rax` (48 01 c1) and `ret` (c3); the decision at the add.
PcDecision after(std::vector<uint8_t> prev) {
  const uint64_t pc_off = prev.size();
  prev.insert(prev.end(), {0x48, 0x01, 0xc1, 0xc3});
  return decide(prev, pc_off);
}

void expect_previous(const PcDecision& d, unsigned len) {
  EXPECT_EQ(d.choice, Choice::UsePrevious);
  EXPECT_EQ(d.prev_len, len);
}

TEST(DecideFromCode, LoadThenAddUsesPrevious) {
  const std::vector<uint8_t> code = {
      0x48, 0x8b, 0x07,  // 0: mov rax, [rdi]
      0x48, 0x01, 0xc1,  // 3: add rcx, rax      <- pc
      0xc3,              // 6: ret
  };
  expect_previous(decide(code, 3), 3);
  // At the ret the previous instruction (add rcx, rax) has no memory operand; it waits for the
  // load's rax, so LoadFeeds designates the load (rules_test.cpp has that rule's cases).
  const PcDecision at_ret = decide(code, 6);
  EXPECT_EQ(at_ret.choice, Choice::UseOther);
  EXPECT_EQ(at_ret.offset, -6);
  // At the function start there is no previous instruction.
  EXPECT_EQ(decide(code, 0).choice, Choice::UseCurrent);
}

TEST(DecideFromCode, PreviousIsBranch) {
  const std::vector<uint8_t> jmp = {
      0x48, 0x8b, 0x07,  // 0: mov rax, [rdi]
      0xeb, 0x03,        // 3: jmp 0xa
      0x48, 0x01, 0xc1,  // 5: add rcx, rax      <- pc
      0xc3,              // 8: ret
  };
  EXPECT_EQ(decide(jmp, 5).choice, Choice::UseCurrent);
  EXPECT_EQ(after({0x74, 0x05}).choice, Choice::UseCurrent);                    // je +5 (past pc)
  EXPECT_EQ(after({0x75, 0xfe}).choice, Choice::UseCurrent);                    // jne self
  EXPECT_EQ(after({0xe8, 0xfb, 0xff, 0xff, 0xff}).choice, Choice::UseCurrent);  // call self
  EXPECT_EQ(after({0xc3}).choice, Choice::UseCurrent);                          // ret
  EXPECT_EQ(after({0xff, 0x10}).choice, Choice::UseCurrent);                    // call [rax]
  EXPECT_EQ(after({0xff, 0x60, 0x08}).choice, Choice::UseCurrent);              // jmp [rax+8]
  EXPECT_EQ(after({0xe2, 0xfe}).choice, Choice::UseCurrent);                    // loop self
}

TEST(DecideFromCode, BackwardLoopBranchTargetsPc) {
  const std::vector<uint8_t> loop = {
      0x48, 0x8b, 0x0f,        // 0x0: mov rcx, [rdi]
      0x48, 0x03, 0x07,        // 0x3: add rax, [rdi]   <- loop head
      0x48, 0x83, 0xc7, 0x08,  // 0x6: add rdi, 8
      0x48, 0x39, 0xf7,        // 0xa: cmp rdi, rsi
      0x75, 0xf4,              // 0xd: jne 0x3
      0xc3,                    // 0xf: ret
  };
  // The back edge after pc targets pc: control may come from the jne, not the mov.
  EXPECT_EQ(decide(loop, 0x3).choice, Choice::UseCurrent);
  // One instruction later nothing targets pc and the previous instruction loads.
  expect_previous(decide(loop, 0x6), 3);
  // At the cmp, after add rdi,8: the loop's one load, rdi as it was (rule LoopAccess).
  const PcDecision at_cmp = decide(loop, 0xa);
  EXPECT_EQ(at_cmp.choice, Choice::UseOther);
  EXPECT_EQ(at_cmp.rule, Rule::LoopAccess);
  EXPECT_EQ(at_cmp.offset, 0x3 - 0xa);
  ASSERT_EQ(at_cmp.nfixes, 1);
  EXPECT_EQ(at_cmp.fixes[0].reg, 7);  // rdi
  EXPECT_EQ(at_cmp.fixes[0].delta, 8);
  EXPECT_EQ(decide(loop, 0xf).choice, Choice::UseCurrent);  // prev is the jne
}

TEST(DecideFromCode, ForwardBranchTargetsPc) {
  const std::vector<uint8_t> code = {
      0x74, 0x03,        // 0: je 5
      0x48, 0x8b, 0x07,  // 2: mov rax, [rdi]
      0x48, 0x03, 0x0e,  // 5: add rcx, [rsi]   <- pc, also the je's target
      0xc3,              // 8: ret
  };
  EXPECT_EQ(decide(code, 5).choice, Choice::UseCurrent);
  // With no data access at the target, the load before it is preferred (BranchJoin).
  std::vector<uint8_t> no_access = code;
  no_access[6] = 0x01;
  no_access[7] = 0xc1;  // add rcx, rax
  expect_previous(decide(no_access, 5), 3);
}

TEST(DecideFromCode, BranchIntoPreviousInstruction) {
  const std::vector<uint8_t> code = {
      0x74, 0x01,              // 0: je 3 (skips the lock prefix)
      0xf0, 0x0f, 0xb1, 0x0f,  // 2: lock cmpxchg [rdi], ecx
      0x90,                    // 6: nop             <- pc
      0xc3,                    // 7: ret
  };
  EXPECT_EQ(decide(code, 6).choice, Choice::UseCurrent);
  // Without the jump the cmpxchg is a usable previous instruction.
  const std::vector<uint8_t> plain = {0xf0, 0x0f, 0xb1, 0x0f, 0x90, 0xc3};
  expect_previous(decide(plain, 4), 4);
}

TEST(DecideFromCode, PointerChasingUsesCurrent) {
  EXPECT_EQ(after({0x48, 0x8b, 0x00}).choice, Choice::UseCurrent);        // mov rax, [rax]
  EXPECT_EQ(after({0x8b, 0x00}).choice, Choice::UseCurrent);              // mov eax, [rax]
  EXPECT_EQ(after({0x48, 0x8b, 0x1c, 0xd8}).choice, Choice::UseCurrent);  // mov rbx, [rax+rbx*8]
  EXPECT_EQ(after({0x48, 0x8b, 0x04, 0xd8}).choice, Choice::UseCurrent);  // mov rax, [rax+rbx*8]
  expect_previous(after({0x48, 0x8b, 0x0c, 0xd8}), 4);                    // mov rcx, [rax+rbx*8]
  EXPECT_EQ(after({0xff, 0x74, 0x24, 0x08}).choice, Choice::UseCurrent);  // push [rsp+8]: rsp written
  EXPECT_EQ(after({0xf3, 0xa4}).choice, Choice::UseCurrent);              // rep movsb: rsi/rdi advance
  EXPECT_EQ(after({0xac}).choice, Choice::UseCurrent);                    // lodsb: rsi advances
  expect_previous(after({0x8f, 0x00}), 2);                                // pop [rax]: rsp, not rax
}

TEST(DecideFromCode, NonAccessesUseCurrent) {
  EXPECT_EQ(after({0x48, 0x8d, 0x47, 0x08}).choice, Choice::UseCurrent);  // lea rax, [rdi+8]
  EXPECT_EQ(after({0x0f, 0x1f, 0x04, 0x00}).choice, Choice::UseCurrent);  // nop dword [rax+rax]
  EXPECT_EQ(after({0x01, 0xd8}).choice, Choice::UseCurrent);              // add eax, ebx
  EXPECT_EQ(after({0x50}).choice, Choice::UseCurrent);                    // push rax (implicit [rsp])
  EXPECT_EQ(after({0x0f, 0x1a, 0x04, 0x18}).choice, Choice::UseCurrent);  // bndldx bnd0, [rax+rbx]
}

TEST(DecideFromCode, AccessesUsePrevious) {
  expect_previous(after({0x0f, 0x18, 0x4f, 0x40}), 4);  // prefetcht0 [rdi+64]
  expect_previous(after({0x0f, 0xae, 0x3f}), 3);        // clflush [rdi]
  expect_previous(after({0x01, 0x07}), 2);              // add [rdi], eax (read-modify-write)
  expect_previous(after({0x67, 0x8b, 0x47, 0x04}), 4);  // mov eax, [edi+4] (writes eax, base edi)
  expect_previous(after({0x64, 0x48, 0x8b, 0x14, 0x25, 0x00, 0x00, 0x00, 0x00}), 9);  // mov rdx, fs:[0]
  expect_previous(after({0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00}), 7);  // mov rax, [rip+0x100]
  expect_previous(after({0xff, 0x37}), 2);              // push qword [rdi]
}

TEST(DecideFromCode, VexEvexLoads) {
  expect_previous(after({0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x07}), 6);  // vmovdqu64 zmm16, [rdi]
  expect_previous(after({0xc5, 0xf5, 0x58, 0x04, 0xc6}), 5);        // vaddpd ymm0, ymm1, [rsi+rax*8]
  expect_previous(after({0xc4, 0xe2, 0x75, 0x2e, 0x17}), 5);        // vmaskmovps [rdi], ymm1, ymm2
  // A gather is an access (its address is not computable, which access_at reports).
  expect_previous(after({0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x8f}), 6);  // vpgatherdd ymm0, [rdi+ymm1*4], ymm2
}

TEST(DecideFromCode, UnknownCases) {
  const std::vector<uint8_t> code = {
      0x48, 0x8b, 0x07,  // 0: mov rax, [rdi]
      0x48, 0x01, 0xc1,  // 3: add rcx, rax
      0xc3,              // 6: ret
  };
  EXPECT_EQ(decide(code, 1).choice, Choice::Unknown);  // inside the mov
  EXPECT_EQ(decide(code, 4).choice, Choice::Unknown);  // inside the add
  EXPECT_EQ(decide_from_code(code.data(), code.size(), kStart, kStart - 1).choice, Choice::Unknown);
  EXPECT_EQ(decide(code, 7).choice, Choice::Unknown);  // past the end

  const std::vector<uint8_t> bad = {
      0x06,              // 0: invalid in 64-bit mode (push es)
      0x48, 0x01, 0xc1,  // 1: add rcx, rax
      0xc3,              // 4: ret
  };
  EXPECT_EQ(decide(bad, 4).choice, Choice::Unknown);
}

TEST(DecideFromCode, BoundedScan) {
  // 70000 one-byte nops then a load: the pc after the load is beyond the 64 KiB budget.
  std::vector<uint8_t> big(70000, 0x90);
  big.insert(big.end(), {0x48, 0x8b, 0x07, 0xc3});
  EXPECT_EQ(decide(big, 70003).choice, Choice::Unknown);
  // Within the budget (4000 nops) the load is found; 5000 nops exceed 4096 instructions
  // (hpcrun::kDecodeMaxScanInsns: the bound on one miss's work in the signal handler).
  std::vector<uint8_t> mid(4000, 0x90);
  mid.insert(mid.end(), {0x48, 0x8b, 0x07, 0xc3});
  expect_previous(decide(mid, 4003), 3);
  std::vector<uint8_t> many(5000, 0x90);
  many.insert(many.end(), {0x48, 0x8b, 0x07, 0xc3});
  EXPECT_EQ(decide(many, 5003).choice, Choice::Unknown);  // > 4096 instructions
}

// A backward branch counts as a target only when it spans at most kDecodeMaxBackSpan bytes: the
// scan of a miss then stops that far past the pcs it decides.
TEST(DecideFromCode, LongBackEdgeIsNotATarget) {
  auto loop_with_body = [](size_t nops) {
    std::vector<uint8_t> code = {
        0x48, 0x8b, 0x07,  // 0: mov rax, [rdi]
        0x48, 0x03, 0x0e,  // 3: add rcx, [rsi]   <- pc, the loop head
    };
    code.insert(code.end(), nops, 0x90);
    const int64_t rel = 3 - int64_t(code.size() + 5);  // jmp rel32 back to 3
    code.push_back(0xe9);
    for (int i = 0; i < 4; ++i) code.push_back(uint8_t(uint64_t(rel) >> (8 * i)));
    code.push_back(0xc3);
    return code;
  };
  // pc is a loop head reached by the back edge: the load before it is not what the loop waits
  // for (Current, at a target).
  EXPECT_EQ(decide(loop_with_body(1000), 3).choice, Choice::UseCurrent);
  // A back edge of more than 2 KiB is not seen: pc is not a target, and rule Previous applies.
  expect_previous(decide(loop_with_body(3000), 3), 3);
}

TEST(DecideFromCode, UndecodableBytesAfterPcAreSkipped) {
  const std::vector<uint8_t> code = {
      0x48, 0x8b, 0x07,  // 0: mov rax, [rdi]
      0x48, 0x03, 0x0e,  // 3: add rcx, [rsi]   <- pc
      0xc3,              // 6: ret
      0x06,              // 7: invalid byte (data in code)
      0xeb, 0xf9,        // 8: jmp 3
  };
  EXPECT_EQ(decide(code, 3).choice, Choice::UseCurrent);
}

}  // namespace
