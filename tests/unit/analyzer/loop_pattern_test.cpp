// The loop analysis of a sampled access (symbols/loop_pattern.h) on hand-assembled functions
// (GNU as, then the bytes, each with its instruction): the pattern, the stride, the share of
// each line used, where the address comes from, and why the analysis gives up where it must.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "symbols/code_cfg.h"
#include "symbols/loop_pattern.h"

using namespace hpcl::analysis;

namespace {

constexpr uint64_t kStart = 0x1000;

AccessPattern at(const std::vector<uint8_t>& code, uint64_t offset) {
  FunctionCode f(code.data(), code.size(), kStart);
  return analyze_access(f, kStart + offset);
}

const std::vector<uint8_t> kSequential = {
    0x66, 0x0f, 0xef, 0xc0,  // 00: pxor   %xmm0,%xmm0
    0xf2, 0x0f, 0x58, 0x07,  // 04: addsd  (%rdi),%xmm0
    0x48, 0x83, 0xc7, 0x08,  // 08: add    $0x8,%rdi
    0x48, 0x39, 0xf7,        // 0c: cmp    %rsi,%rdi
    0x75, 0xf3,              // 0f: jne    04
    0xc3,                    // 11: ret
};

const std::vector<uint8_t> kColumn = {
    0xf2, 0x0f, 0x58, 0x07,                    // 00: addsd  (%rdi),%xmm0
    0x48, 0x81, 0xc7, 0x00, 0x40, 0x00, 0x00,  // 04: add    $0x4000,%rdi
    0x48, 0x39, 0xf7,                          // 0b: cmp    %rsi,%rdi
    0x75, 0xf0,                                // 0e: jne    00
    0xc3,                                      // 10: ret
};

const std::vector<uint8_t> kGather = {
    0x48, 0x63, 0x06,              // 00: movslq (%rsi),%rax
    0x48, 0x83, 0xc6, 0x04,        // 03: add    $0x4,%rsi
    0xf2, 0x0f, 0x58, 0x04, 0xc7,  // 07: addsd  (%rdi,%rax,8),%xmm0
    0x48, 0x39, 0xf2,              // 0c: cmp    %rsi,%rdx
    0x75, 0xef,                    // 0f: jne    00
    0xc3,                          // 11: ret
};

const std::vector<uint8_t> kList = {
    0x31, 0xc0,              // 00: xor    %eax,%eax
    0x48, 0x03, 0x07,        // 02: add    (%rdi),%rax
    0x48, 0x8b, 0x7f, 0x08,  // 05: mov    0x8(%rdi),%rdi
    0x48, 0x85, 0xff,        // 09: test   %rdi,%rdi
    0x75, 0xf4,              // 0c: jne    02
    0xc3,                    // 0e: ret
};

const std::vector<uint8_t> kCallInLoop = {
    0x53,                    // 00: push   %rbx
    0x48, 0x89, 0xfb,        // 01: mov    %rdi,%rbx
    0xff, 0xd2,              // 04: call   *%rdx
    0xf2, 0x0f, 0x58, 0x00,  // 06: addsd  (%rax),%xmm0
    0x48, 0x83, 0xc3, 0x08,  // 0a: add    $0x8,%rbx
    0x48, 0x39, 0xf3,        // 0e: cmp    %rsi,%rbx
    0x75, 0xf1,              // 11: jne    04
    0x5b,                    // 13: pop    %rbx
    0xc3,                    // 14: ret
};

const std::vector<uint8_t> kStrideFromCall = {
    0x53,                    // 00: push   %rbx
    0x48, 0x89, 0xfb,        // 01: mov    %rdi,%rbx
    0xff, 0xd2,              // 04: call   *%rdx
    0x48, 0x89, 0xc1,        // 06: mov    %rax,%rcx
    0xf2, 0x0f, 0x58, 0x03,  // 09: addsd  (%rbx),%xmm0
    0x48, 0x01, 0xcb,        // 0d: add    %rcx,%rbx
    0x48, 0x39, 0xf3,        // 10: cmp    %rsi,%rbx
    0x75, 0xf4,              // 13: jne    09
    0x5b,                    // 15: pop    %rbx
    0xc3,                    // 16: ret
};

const std::vector<uint8_t> kNoLoop = {
    0xf2, 0x0f, 0x10, 0x47, 0x08,  // 00: movsd  0x8(%rdi),%xmm0
    0xc3,                          // 05: ret
};

const std::vector<uint8_t> kUnrolled = {
    0xf2, 0x0f, 0x58, 0x07,        // 00: addsd  (%rdi),%xmm0
    0xf2, 0x0f, 0x58, 0x47, 0x08,  // 04: addsd  0x8(%rdi),%xmm0
    0x48, 0x83, 0xc7, 0x10,        // 09: add    $0x10,%rdi
    0x48, 0x39, 0xf7,              // 0d: cmp    %rsi,%rdi
    0x75, 0xee,                    // 10: jne    00
    0xc3,                          // 12: ret
};

const std::vector<uint8_t> kRuntimeStride = {
    0x4c, 0x8d, 0x04, 0xf5, 0x00, 0x00, 0x00, 0x00,  // 00: lea    0x0(,%rsi,8),%r8
    0xf2, 0x0f, 0x58, 0x07,                          // 08: addsd  (%rdi),%xmm0
    0x4c, 0x01, 0xc7,                                // 0c: add    %r8,%rdi
    0x48, 0x39, 0xd7,                                // 0f: cmp    %rdx,%rdi
    0x75, 0xf4,                                      // 12: jne    08
    0xc3,                                            // 14: ret
};

const std::vector<uint8_t> kStrideInRegister = {
    0xb9, 0x00, 0x20, 0x00, 0x00,  // 00: mov    $0x2000,%ecx
    0xf2, 0x0f, 0x58, 0x07,        // 05: addsd  (%rdi),%xmm0
    0x48, 0x01, 0xcf,              // 09: add    %rcx,%rdi
    0x48, 0x39, 0xd7,              // 0c: cmp    %rdx,%rdi
    0x75, 0xf4,                    // 0f: jne    05
    0xc3,                          // 11: ret
};

const std::vector<uint8_t> kVector = {
    0xc5, 0xfd, 0x58, 0x07,  // 00: vaddpd (%rdi),%ymm0,%ymm0
    0x48, 0x83, 0xc7, 0x20,  // 04: add    $0x20,%rdi
    0x48, 0x39, 0xf7,        // 08: cmp    %rsi,%rdi
    0x75, 0xf3,              // 0b: jne    00
    0xc3,                    // 0d: ret
};

const std::vector<uint8_t> kComputedJump = {
    0xf2, 0x0f, 0x10, 0x07,  // 00: movsd  (%rdi),%xmm0
    0xff, 0xe0,              // 04: jmp    *%rax
    0x48, 0x83, 0xc7, 0x08,  // 06: add    $0x8,%rdi
    0x48, 0x39, 0xf7,        // 0a: cmp    %rsi,%rdi
    0x75, 0xf1,              // 0d: jne    00
    0xc3,                    // 0f: ret
};

// GCC's column walk of a double[2048][2048]: the outer loop derives the next column from the
// inner loop's exit value of rax (== rdx when `jne` falls through).
const std::vector<uint8_t> kNest = {
    0x48, 0x89, 0xf9,                          // 00: mov    %rdi,%rcx
    0x48, 0x8d, 0x97, 0x00, 0x00, 0x00, 0x02,  // 03: lea    0x2000000(%rdi),%rdx
    0x48, 0x81, 0xc1, 0x00, 0x40, 0x00, 0x02,  // 0a: add    $0x2004000,%rcx
    0x48, 0x8d, 0x82, 0x00, 0x00, 0x00, 0xfe,  // 11: lea    -0x2000000(%rdx),%rax
    0xf2, 0x0f, 0x58, 0x00,                    // 18: addsd  (%rax),%xmm0
    0x48, 0x05, 0x00, 0x40, 0x00, 0x00,        // 1c: add    $0x4000,%rax
    0x48, 0x39, 0xd0,                          // 22: cmp    %rdx,%rax
    0x75, 0xf1,                                // 25: jne    18
    0x48, 0x8d, 0x50, 0x08,                    // 27: lea    0x8(%rax),%rdx
    0x48, 0x39, 0xca,                          // 2b: cmp    %rcx,%rdx
    0x75, 0xe1,                                // 2e: jne    11
    0xc3,                                      // 30: ret
};

const std::vector<uint8_t> kRecords = {
    0xf2, 0x0f, 0x10, 0x0f,        // 00: movsd  (%rdi),%xmm1
    0xf2, 0x0f, 0x59, 0x4f, 0x38,  // 04: mulsd  0x38(%rdi),%xmm1
    0x48, 0x83, 0xc7, 0x40,        // 09: add    $0x40,%rdi
    0xf2, 0x0f, 0x58, 0xc1,        // 0d: addsd  %xmm1,%xmm0
    0x48, 0x39, 0xfe,              // 11: cmp    %rdi,%rsi
    0x75, 0xea,                    // 14: jne    00
    0xc3,                          // 16: ret
};

const std::vector<uint8_t> kIndexed = {
    0x31, 0xc0,                    // 00: xor    %eax,%eax
    0xf2, 0x0f, 0x58, 0x04, 0xc7,  // 02: addsd  (%rdi,%rax,8),%xmm0
    0x48, 0x83, 0xc0, 0x01,        // 07: add    $0x1,%rax
    0x48, 0x39, 0xc6,              // 0b: cmp    %rax,%rsi
    0x75, 0xf2,                    // 0e: jne    02
    0xc3,                          // 10: ret
};

}  // namespace

TEST(LoopPattern, StreamIsSequential) {
  const AccessPattern p = at(kSequential, 0x04);
  EXPECT_EQ(p.kind, PatternKind::Sequential);
  ASSERT_TRUE(p.has_stride);
  EXPECT_EQ(p.stride, 8);
  EXPECT_DOUBLE_EQ(p.line_use, 1.0);
  EXPECT_EQ(p.size, 8u);
  EXPECT_EQ(p.loop_head, kStart + 0x04);
  // The pointer is the function's first parameter, at offset 0.
  EXPECT_EQ(p.origin.kind, AddressOrigin::Kind::Register);
  EXPECT_EQ(p.origin.reg, 7);  // rdi
  EXPECT_EQ(p.origin.offset, 0);
}

TEST(LoopPattern, ColumnWalkIsStridedWithAnEighthOfEachLine) {
  const AccessPattern p = at(kColumn, 0x00);
  EXPECT_EQ(p.kind, PatternKind::Strided);
  EXPECT_EQ(p.stride, 16384);
  // 8 bytes of each 64-byte line it touches, not 8 of 16384.
  EXPECT_DOUBLE_EQ(p.line_use, 0.125);
}

TEST(LoopPattern, IndexLoadedInTheLoopIsIndirect) {
  EXPECT_EQ(at(kGather, 0x07).kind, PatternKind::Indirect);
  // The index itself streams.
  const AccessPattern index = at(kGather, 0x00);
  EXPECT_EQ(index.kind, PatternKind::Sequential);
  EXPECT_EQ(index.stride, 4);
}

TEST(LoopPattern, PointerLoadedThroughItselfIsDependent) {
  EXPECT_EQ(at(kList, 0x02).kind, PatternKind::Dependent);  // the node's value
  EXPECT_EQ(at(kList, 0x05).kind, PatternKind::Dependent);  // the hop itself
  EXPECT_EQ(at(kList, 0x02).group.size(), 2u) << "val and next are read in one iteration";
}

TEST(LoopPattern, CallClobberingTheAddressIsUnknownAndSaysWhy) {
  const AccessPattern p = at(kCallInLoop, 0x06);
  EXPECT_EQ(p.kind, PatternKind::Unknown);
  EXPECT_NE(p.why.find("call"), std::string::npos) << p.why;
}

TEST(LoopPattern, StrideACallReturnedIsUnknownAndSaysSo) {
  const AccessPattern p = at(kStrideFromCall, 0x09);
  EXPECT_EQ(p.kind, PatternKind::Unknown);
  EXPECT_FALSE(p.has_stride);
  EXPECT_NE(p.why.find("a value a call returned"), std::string::npos) << p.why;
}

TEST(LoopPattern, NoLoopIsUnknown) {
  const AccessPattern p = at(kNoLoop, 0x00);
  EXPECT_EQ(p.kind, PatternKind::Unknown);
  EXPECT_NE(p.why.find("no loop"), std::string::npos) << p.why;
}

TEST(LoopPattern, UnrolledAccessesCoverTheirStride) {
  for (uint64_t off : {0x00u, 0x04u}) {
    const AccessPattern p = at(kUnrolled, off);
    EXPECT_EQ(p.kind, PatternKind::Sequential) << off;
    EXPECT_EQ(p.stride, 16);
    EXPECT_DOUBLE_EQ(p.line_use, 1.0);
  }
}

TEST(LoopPattern, RunTimeStrideIsUnknownAndNamesItsRegister) {
  const AccessPattern p = at(kRuntimeStride, 0x08);
  EXPECT_EQ(p.kind, PatternKind::Unknown);
  EXPECT_FALSE(p.has_stride);
  EXPECT_NE(p.why.find("run-time value: 8 x rsi"), std::string::npos) << p.why;
  ASSERT_EQ(p.stride_params.size(), 1u);
  EXPECT_EQ(p.stride_params[0], 6);  // rsi
}

TEST(LoopPattern, StrideSetBeforeTheLoopIsAConstant) {
  const AccessPattern p = at(kStrideInRegister, 0x05);
  EXPECT_EQ(p.kind, PatternKind::Strided);
  EXPECT_EQ(p.stride, 0x2000);
}

TEST(LoopPattern, VectorAccessCountsItsFullWidth) {
  const AccessPattern p = at(kVector, 0x00);
  EXPECT_EQ(p.size, 32u);
  EXPECT_EQ(p.kind, PatternKind::Sequential);
  EXPECT_EQ(p.stride, 32);
}

TEST(LoopPattern, ComputedJumpInTheLoopIsUnknown) {
  const AccessPattern p = at(kComputedJump, 0x00);
  EXPECT_EQ(p.kind, PatternKind::Unknown);
  EXPECT_NE(p.why.find("computed jump"), std::string::npos) << p.why;
}

TEST(LoopPattern, NestGivesTheEnclosingLoopsStep) {
  const AccessPattern p = at(kNest, 0x18);
  EXPECT_EQ(p.kind, PatternKind::Strided);
  EXPECT_EQ(p.stride, 16384);
  ASSERT_TRUE(p.has_outer_stride);
  EXPECT_EQ(p.outer_stride, 8);
  EXPECT_EQ(p.origin.kind, AddressOrigin::Kind::Register);
  EXPECT_EQ(p.origin.reg, 7);
  EXPECT_EQ(p.origin.step_divisor, 8);
}

TEST(LoopPattern, TwoFieldsOfARecordShareTheirLoopsLines) {
  const AccessPattern x = at(kRecords, 0x00), y = at(kRecords, 0x04);
  for (const AccessPattern* p : {&x, &y}) {
    EXPECT_EQ(p->kind, PatternKind::Strided);
    EXPECT_EQ(p->stride, 64);
    EXPECT_DOUBLE_EQ(p->line_use, 16.0 / 64.0);
    EXPECT_EQ(p->group.size(), 2u);
  }
  EXPECT_EQ(x.origin.offset, 0);
  EXPECT_EQ(y.origin.offset, 0x38);
  EXPECT_EQ(y.origin.step_divisor, 64);
}

TEST(LoopPattern, ScaledIndexStrides) {
  const AccessPattern p = at(kIndexed, 0x02);
  EXPECT_EQ(p.kind, PatternKind::Sequential);
  EXPECT_EQ(p.stride, 8);
  EXPECT_EQ(p.origin.kind, AddressOrigin::Kind::Register);
}

TEST(LoopPattern, NotAnInstructionStartSaysSo) {
  const AccessPattern p = at(kSequential, 0x05);
  EXPECT_EQ(p.kind, PatternKind::Unknown);
  EXPECT_NE(p.why.find("not an instruction"), std::string::npos) << p.why;
}

namespace {

// LAMMPS's neighbour loop: the index is masked (`j &= NEIGHMASK`) before it is used.
const std::vector<uint8_t> kMaskedGather = {
    0x8b, 0x06,                    // 00: mov    (%rsi),%eax
    0x48, 0x83, 0xc6, 0x04,        // 02: add    $0x4,%rsi
    0x25, 0xff, 0xff, 0xff, 0x3f,  // 06: and    $0x3fffffff,%eax
    0xf2, 0x0f, 0x58, 0x04, 0xc7,  // 0b: addsd  (%rdi,%rax,8),%xmm0
    0x48, 0x39, 0xf2,              // 10: cmp    %rsi,%rdx
    0x75, 0xeb,                    // 13: jne    00
    0xc3,                          // 15: ret
};

// Alignment padding after a jump falls into the loop's latch: dead code, no way into the loop
// (LAMMPS's PairLJCut::compute had no loop at all before it was left out of the dominators).
const std::vector<uint8_t> kPadded = {
    0x48, 0x89, 0xfb,        // 00: mov    %rdi,%rbx
    0xeb, 0x0a,              // 03: jmp    0f
    0x90,                    // 05: nop
    0x48, 0x83, 0xc3, 0x08,  // 06: add    $0x8,%rbx
    0x48, 0x39, 0xf3,        // 0a: cmp    %rsi,%rbx
    0x74, 0x06,              // 0d: je     15
    0xf2, 0x0f, 0x58, 0x03,  // 0f: addsd  (%rbx),%xmm0
    0xeb, 0xf1,              // 13: jmp    06
    0xc3,                    // 15: ret
};

}  // namespace

TEST(LoopPattern, MaskedIndexIsStillIndirect) {
  const AccessPattern p = at(kMaskedGather, 0x0b);
  EXPECT_EQ(p.kind, PatternKind::Indirect) << p.why;
}

TEST(LoopPattern, DeadPaddingDoesNotHideTheLoop) {
  const AccessPattern p = at(kPadded, 0x0f);
  EXPECT_EQ(p.kind, PatternKind::Sequential) << p.why;
  EXPECT_EQ(p.stride, 8);
}
