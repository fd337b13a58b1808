// The bound on a decoder miss's work (issue 14): a miss decides inside the signal handler, and a
// decoded instruction costs 60-80 ns here, so it decodes at most kDecodeMaxScanInsns instructions
// from the function start and stops kDecodeMaxBackSpan bytes past the pcs it decides. These tests
// count the instructions a miss decoded (DecodeStats::scan_insns) in a function of 20,000 bytes;
// before the bound, both misses below decoded all 20,000.
#include <gtest/gtest.h>

#include <cstdint>

#include "decode/access_decode.h"
#include "pc_corpus.h"

extern "C" const char hpcl_t_big_early[], hpcl_t_big_late[], hpcl_t_big_load[];

// A function with an FDE (so function_bounds finds it): a load, then 20,000 one-byte nops, a load.
asm(R"(
  .intel_syntax noprefix
  .text
  .globl hpcl_t_big
  .type hpcl_t_big, @function
hpcl_t_big:
  .cfi_startproc
  .globl hpcl_t_big_load
hpcl_t_big_load:    mov rax, qword ptr [rdi]
  .globl hpcl_t_big_early
hpcl_t_big_early:   add rcx, rax
  .fill 20000, 1, 0x90
                    mov rax, qword ptr [rsi]
  .globl hpcl_t_big_late
hpcl_t_big_late:    add rcx, rax
  ret
  .cfi_endproc
  .size hpcl_t_big, .-hpcl_t_big
  .att_syntax prefix
)");

namespace {

uint64_t addr(const char* p) { return reinterpret_cast<uint64_t>(p); }

// Resolves a sample at pc (a miss: each pc is resolved once per process) and returns how many
// instructions that miss decoded.
uint64_t miss_work(uint64_t pc, hpcrun::Access* a) {
  hpcrun::decode_init();
  const auto before = hpcrun::decode_stats();
  *a = hpcrun::resolve_sample(hpcl_test::regs_for(pc));
  const auto after = hpcrun::decode_stats();
  EXPECT_EQ(after.hits, before.hits) << "the test needs a miss";
  return after.scan_insns - before.scan_insns;
}

TEST(DecodeBound, MissNearTheStartStopsPastItsWindow) {
  hpcrun::Access a;
  const uint64_t n = miss_work(addr(hpcl_t_big_early), &a);
  // The window reaches 128 bytes past pc; the scan goes kDecodeMaxBackSpan bytes further.
  EXPECT_LE(n, 2 + 128 + hpcrun::kDecodeMaxBackSpan);
  EXPECT_GT(n, hpcrun::kDecodeMaxBackSpan);  // it did look for back edges that far
  EXPECT_EQ(a.insn, addr(hpcl_t_big_load));  // rule Previous still found the load before pc
}

TEST(DecodeBound, MissDeepInAFunctionDecodesAtMostTheBudget) {
  hpcrun::Access a;
  const uint64_t n = miss_work(addr(hpcl_t_big_late), &a);
  EXPECT_LE(n, hpcrun::kDecodeMaxScanInsns);
  // Beyond the budget the decision is Unknown: the instruction at pc (no memory operand).
  EXPECT_EQ(a.insn, addr(hpcl_t_big_late));
  EXPECT_EQ(a.kind, hpcrun::AccessKind::NoMemoryOperand);
  EXPECT_LE(hpcrun::decode_stats().scan_insns_max, hpcrun::kDecodeMaxScanInsns);
}

}  // namespace
