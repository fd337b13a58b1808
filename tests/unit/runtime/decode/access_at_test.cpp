// access_at and resolve_sample on real code: instructions placed by an assembler block with a
// global label on each, so the test knows their exact addresses. The code is never executed;
// only its bytes are decoded and the registers are made up.
#include <gtest/gtest.h>

#include <cstdint>

#include "decode/access_decode.h"
#include "decode/saved_regs.h"

extern "C" {
alignas(64) uint64_t hpcl_t_array[64];

extern const char hpcl_t_fn_loads[], hpcl_t_fn_loads_end[];
extern const char hpcl_t_rip_load[], hpcl_t_bi_store[], hpcl_t_fs_load[], hpcl_t_fs_disp[];
extern const char hpcl_t_gs_load[], hpcl_t_lea[], hpcl_t_nop[], hpcl_t_prefetch[], hpcl_t_rmw[];
extern const char hpcl_t_ymm[], hpcl_t_zmm_store[], hpcl_t_gather[], hpcl_t_movsq[], hpcl_t_cmpsb[];
extern const char hpcl_t_stosb[], hpcl_t_addr32[], hpcl_t_neg[], hpcl_t_r13[], hpcl_t_rsp[];
extern const char hpcl_t_noop[], hpcl_t_push_mem[], hpcl_t_cmpxchg[];

extern const char hpcl_t_fn_chain[], hpcl_t_chain_after[], hpcl_t_chase[], hpcl_t_chase_after[];
extern const char hpcl_t_chain_head[], hpcl_t_chain_head_after[];

extern const char hpcl_t_dep_load[], hpcl_t_dep_wait[], hpcl_t_dep_cmp[], hpcl_t_dep_lost[];
extern const char hpcl_t_hop[], hpcl_t_hop_after[], hpcl_t_store[], hpcl_t_join[];
extern const char hpcl_t_spill[], hpcl_t_fed_load[], hpcl_t_fed[], hpcl_t_const[], hpcl_t_general[];
}

// clang-format off
asm(R"(
  .intel_syntax noprefix
  .text
  .p2align 4
  .globl hpcl_t_fn_loads
  .type hpcl_t_fn_loads, @function
hpcl_t_fn_loads:
  .cfi_startproc
  .globl hpcl_t_rip_load
hpcl_t_rip_load:   mov rax, qword ptr [rip + hpcl_t_array + 16]
  .globl hpcl_t_bi_store
hpcl_t_bi_store:   mov dword ptr [rdi + rsi*4 + 8], eax
  .globl hpcl_t_fs_load
hpcl_t_fs_load:    mov rax, qword ptr fs:0
  .globl hpcl_t_fs_disp
hpcl_t_fs_disp:    mov rax, qword ptr fs:[rdi + 8]
  .globl hpcl_t_gs_load
hpcl_t_gs_load:    mov rax, qword ptr gs:8
  .globl hpcl_t_lea
hpcl_t_lea:        lea rax, [rdi + 8]
  .globl hpcl_t_nop
hpcl_t_nop:        nop dword ptr [rax + rax]
  .globl hpcl_t_prefetch
hpcl_t_prefetch:   prefetcht0 [rdi + 64]
  .globl hpcl_t_rmw
hpcl_t_rmw:        add dword ptr [rdi], eax
  .globl hpcl_t_ymm
hpcl_t_ymm:        vmovdqu ymm0, ymmword ptr [rsi + rax*8]
  .globl hpcl_t_zmm_store
hpcl_t_zmm_store:  vmovdqu64 zmmword ptr [rdi + 64], zmm16
  .globl hpcl_t_gather
hpcl_t_gather:     vpgatherdd ymm0, [rdi + ymm1*4], ymm2
  .globl hpcl_t_movsq
hpcl_t_movsq:      rep movsq
  .globl hpcl_t_cmpsb
hpcl_t_cmpsb:      cmpsb
  .globl hpcl_t_stosb
hpcl_t_stosb:      stosb
  .globl hpcl_t_addr32
hpcl_t_addr32:     mov eax, dword ptr [edi + 4]
  .globl hpcl_t_neg
hpcl_t_neg:        mov rax, qword ptr [rdi - 8]
  .globl hpcl_t_r13
hpcl_t_r13:        mov rax, qword ptr [r13 + r12*2 + 0x100]
  .globl hpcl_t_rsp
hpcl_t_rsp:        mov rax, qword ptr [rsp + 16]
  .globl hpcl_t_noop
hpcl_t_noop:       add eax, ebx
  .globl hpcl_t_push_mem
hpcl_t_push_mem:   push qword ptr [rdx]
  .globl hpcl_t_cmpxchg
hpcl_t_cmpxchg:    lock cmpxchg qword ptr [r9], rcx
  ret
  .cfi_endproc
  .globl hpcl_t_fn_loads_end
hpcl_t_fn_loads_end:
  .size hpcl_t_fn_loads, . - hpcl_t_fn_loads

  .p2align 4
  .globl hpcl_t_fn_chain
  .type hpcl_t_fn_chain, @function
hpcl_t_fn_chain:
  .cfi_startproc
  xor ecx, ecx
  .globl hpcl_t_chain_head
hpcl_t_chain_head:
  mov rdx, qword ptr [rdi + rsi*8]
  .globl hpcl_t_chain_head_after
hpcl_t_chain_head_after:
  add rcx, rdx
  add rsi, 1
  cmp rsi, 8
  jne hpcl_t_chain_head
  mov rax, qword ptr [rdi]
  .globl hpcl_t_chain_after
hpcl_t_chain_after:
  add rcx, rax
  .globl hpcl_t_chase
hpcl_t_chase:
  mov rax, qword ptr [rax]
  .globl hpcl_t_chase_after
hpcl_t_chase_after:
  add rcx, rax
  ret
  .cfi_endproc
  .size hpcl_t_fn_chain, . - hpcl_t_fn_chain

  .p2align 4
  .globl hpcl_t_fn_rules
  .type hpcl_t_fn_rules, @function
hpcl_t_fn_rules:
  .cfi_startproc
  xor ecx, ecx
  .globl hpcl_t_dep_load
hpcl_t_dep_load:
  movdqu xmm2, xmmword ptr [rax + rbx*8 + 0x40]
  add rax, 0x20
  lea rbx, [rbx - 2]
  .globl hpcl_t_dep_wait
hpcl_t_dep_wait:
  paddq xmm0, xmm2
  .globl hpcl_t_dep_cmp
hpcl_t_dep_cmp:
  cmp rax, rdx
  movdqu xmm3, xmmword ptr [rsi]
  add rsi, rcx
  .globl hpcl_t_dep_lost
hpcl_t_dep_lost:
  paddq xmm0, xmm3
  .globl hpcl_t_hop
hpcl_t_hop:
  mov rdi, qword ptr [rdi + 8]
  .globl hpcl_t_hop_after
hpcl_t_hop_after:
  add rcx, 1
  test rdi, rdi
  jne hpcl_t_hop
  test ecx, ecx
  je hpcl_t_join
  .globl hpcl_t_store
hpcl_t_store:
  xor qword ptr [r9 + r8*8], rdi
  .globl hpcl_t_join
hpcl_t_join:
  add qword ptr [rsp + 0x20], 1
  ret
  .cfi_endproc
  .size hpcl_t_fn_rules, . - hpcl_t_fn_rules

  .p2align 4
  .globl hpcl_t_fn_compute
  .type hpcl_t_fn_compute, @function
hpcl_t_fn_compute:
  .cfi_startproc
  xorps xmm14, xmm14
  roundps xmm14, xmm14, 1
  .globl hpcl_t_spill
hpcl_t_spill:
  movaps xmmword ptr [rsp + 0x318], xmm14
  .globl hpcl_t_fed_load
hpcl_t_fed_load:
  movups xmm3, xmmword ptr [rdi]
  mulps xmm3, xmm4
  .globl hpcl_t_fed
hpcl_t_fed:
  movaps xmmword ptr [rsp + 0x20], xmm3
  addps xmm5, xmm6
  .globl hpcl_t_const
hpcl_t_const:
  addps xmm7, xmmword ptr [rip + hpcl_t_array]
  inc rcx
  .globl hpcl_t_general
hpcl_t_general:
  mov rax, qword ptr [rsi + rcx*8]
  ret
  .cfi_endproc
  .size hpcl_t_fn_compute, . - hpcl_t_fn_compute
  .att_syntax prefix
)");
// clang-format on

namespace {

using hpcrun::Access;
using hpcrun::AccessKind;
using hpcrun::SavedRegs;

enum Gpr { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

uint64_t addr(const char* p) { return reinterpret_cast<uint64_t>(p); }

SavedRegs regs_with(std::initializer_list<std::pair<Gpr, uint64_t>> values, uint64_t fs_base = 0) {
  SavedRegs r{};
  for (unsigned i = 0; i < 16; ++i) r.gpr[i] = 0xdead0000ull + i;  // visible garbage
  for (auto [g, v] : values) r.gpr[g] = v;
  r.fs_base = fs_base;
  return r;
}

class AccessAt : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { hpcrun::decode_init(); }
};

void expect_address(const Access& a, uint64_t insn, uint64_t ea, unsigned size, bool is_write) {
  EXPECT_EQ(a.kind, AccessKind::Address);
  EXPECT_EQ(a.insn, insn);
  EXPECT_EQ(a.ea, ea);
  EXPECT_EQ(a.size, size);
  EXPECT_EQ(a.is_write, is_write);
}

TEST_F(AccessAt, RipRelativeLoad) {
  const Access a = hpcrun::access_at(addr(hpcl_t_rip_load), regs_with({}));
  expect_address(a, addr(hpcl_t_rip_load), reinterpret_cast<uint64_t>(&hpcl_t_array[2]), 8, false);
}

TEST_F(AccessAt, BaseIndexStore) {
  const Access a = hpcrun::access_at(addr(hpcl_t_bi_store), regs_with({{RDI, 0x10000}, {RSI, 5}}));
  expect_address(a, addr(hpcl_t_bi_store), 0x10000 + 5 * 4 + 8, 4, true);
}

TEST_F(AccessAt, FsRelativeTls) {
  const uint64_t fs = 0x7f0000001000;
  expect_address(hpcrun::access_at(addr(hpcl_t_fs_load), regs_with({}, fs)), addr(hpcl_t_fs_load), fs, 8, false);
  expect_address(hpcrun::access_at(addr(hpcl_t_fs_disp), regs_with({{RDI, 0x40}}, fs)), addr(hpcl_t_fs_disp),
                 fs + 0x48, 8, false);
  // Without an FS base the address is not known.
  EXPECT_EQ(hpcrun::access_at(addr(hpcl_t_fs_load), regs_with({}, 0)).kind, AccessKind::Unresolvable);
}

TEST_F(AccessAt, FsLoadMatchesRealThreadPointer) {
  // mov rax, fs:0 reads the TCB self pointer, which is the FS base itself.
  const uint64_t fs = hpcrun::fs_base_of_current_thread();
  const Access a = hpcrun::access_at(addr(hpcl_t_fs_load), regs_with({}, fs));
  EXPECT_EQ(a.ea, fs);
  EXPECT_EQ(*reinterpret_cast<const uint64_t*>(a.ea), fs);
}

TEST_F(AccessAt, UnresolvableForms) {
  const Access gs = hpcrun::access_at(addr(hpcl_t_gs_load), regs_with({}, 0x1000));
  EXPECT_EQ(gs.kind, AccessKind::Unresolvable);
  EXPECT_EQ(gs.size, 8);
  const Access g = hpcrun::access_at(addr(hpcl_t_gather), regs_with({{RDI, 0x1000}}));
  EXPECT_EQ(g.kind, AccessKind::Unresolvable);
  EXPECT_FALSE(g.is_write);
}

TEST_F(AccessAt, NotAccesses) {
  for (const char* p : {hpcl_t_lea, hpcl_t_nop, hpcl_t_noop}) {
    const Access a = hpcrun::access_at(addr(p), regs_with({{RDI, 0x1000}, {RAX, 0x2000}}));
    EXPECT_EQ(a.kind, AccessKind::NoMemoryOperand) << static_cast<const void*>(p);
    EXPECT_EQ(a.insn, addr(p));
  }
}

TEST_F(AccessAt, PrefetchAndReadModifyWrite) {
  expect_address(hpcrun::access_at(addr(hpcl_t_prefetch), regs_with({{RDI, 0x5000}})), addr(hpcl_t_prefetch),
                 0x5040, 1, false);
  expect_address(hpcrun::access_at(addr(hpcl_t_rmw), regs_with({{RDI, 0x5000}})), addr(hpcl_t_rmw), 0x5000, 4,
                 true);
  expect_address(hpcrun::access_at(addr(hpcl_t_cmpxchg), regs_with({{R9, 0x7000}})), addr(hpcl_t_cmpxchg), 0x7000,
                 8, true);
  expect_address(hpcrun::access_at(addr(hpcl_t_push_mem), regs_with({{RDX, 0x9000}, {RSP, 0x8000}})),
                 addr(hpcl_t_push_mem), 0x9000, 8, false);
}

TEST_F(AccessAt, VectorOperands) {
  expect_address(hpcrun::access_at(addr(hpcl_t_ymm), regs_with({{RSI, 0x10000}, {RAX, 3}})), addr(hpcl_t_ymm),
                 0x10018, 32, false);
  expect_address(hpcrun::access_at(addr(hpcl_t_zmm_store), regs_with({{RDI, 0x20000}})), addr(hpcl_t_zmm_store),
                 0x20040, 64, true);
}

TEST_F(AccessAt, StringInstructionsUseSource) {
  expect_address(hpcrun::access_at(addr(hpcl_t_movsq), regs_with({{RSI, 0x3000}, {RDI, 0x4000}})),
                 addr(hpcl_t_movsq), 0x3000, 8, false);
  expect_address(hpcrun::access_at(addr(hpcl_t_cmpsb), regs_with({{RSI, 0x3000}, {RDI, 0x4000}})),
                 addr(hpcl_t_cmpsb), 0x3000, 1, false);
  expect_address(hpcrun::access_at(addr(hpcl_t_stosb), regs_with({{RSI, 0x3000}, {RDI, 0x4000}})),
                 addr(hpcl_t_stosb), 0x4000, 1, true);
}

TEST_F(AccessAt, RegisterMapping) {
  // 32-bit address size: edi is the low half of rdi, the sum wraps at 2^32.
  expect_address(hpcrun::access_at(addr(hpcl_t_addr32), regs_with({{RDI, 0x1'ffff'fffeull}})), addr(hpcl_t_addr32),
                 0x2, 4, false);
  expect_address(hpcrun::access_at(addr(hpcl_t_neg), regs_with({{RDI, 0x1000}})), addr(hpcl_t_neg), 0xff8, 8, false);
  expect_address(hpcrun::access_at(addr(hpcl_t_r13), regs_with({{R13, 0x100000}, {R12, 0x30}})), addr(hpcl_t_r13),
                 0x100000 + 0x60 + 0x100, 8, false);
  expect_address(hpcrun::access_at(addr(hpcl_t_rsp), regs_with({{RSP, 0x7ffd0000}})), addr(hpcl_t_rsp),
                 0x7ffd0010, 8, false);
}

TEST_F(AccessAt, ResolveSampleUsesPreviousInstruction) {
  // pc after `mov rax, [rdi]`: the load is the sampled instruction.
  const SavedRegs r = [] {
    SavedRegs s = regs_with({{RDI, 0x6000}, {RAX, 0x6100}});
    s.rip = addr(hpcl_t_chain_after);
    return s;
  }();
  const Access a = hpcrun::resolve_sample(r);
  expect_address(a, addr(hpcl_t_chain_after) - 3, 0x6000, 8, false);
  // Second call: cache hit, same answer.
  const auto before = hpcrun::decode_stats();
  const Access b = hpcrun::resolve_sample(r);
  const auto after = hpcrun::decode_stats();
  expect_address(b, a.insn, 0x6000, 8, false);
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_EQ(after.lookups, before.lookups + 1);
}

TEST_F(AccessAt, ResolveSamplePointerChaseFallsBack) {
  // pc after `mov rax, [rax]`: rax is already overwritten, so the current instruction is used,
  // and `add rcx, rax` has no memory operand.
  SavedRegs r = regs_with({{RAX, 0x6100}});
  r.rip = addr(hpcl_t_chase_after);
  const Access a = hpcrun::resolve_sample(r);
  EXPECT_EQ(a.kind, AccessKind::NoMemoryOperand);
  EXPECT_EQ(a.insn, addr(hpcl_t_chase_after));
  // pc on the load itself: its predecessor `add rcx, rax` waited for `mov rax, [rdi]`, which is
  // charged (LoadFeeds with the previous instruction as the waiter), not the chasing load at pc.
  r.rip = addr(hpcl_t_chase);
  r.gpr[RDI] = 0x6000;
  const Access b = hpcrun::resolve_sample(r);
  expect_address(b, addr(hpcl_t_chain_after) - 3, 0x6000, 8, false);
}

TEST_F(AccessAt, ResolveSampleLoopHead) {
  // The loop head is the target of the back edge: the instruction at pc (the load) is used.
  SavedRegs r = regs_with({{RDI, 0x8000}, {RSI, 2}});
  r.rip = addr(hpcl_t_chain_head);
  expect_address(hpcrun::resolve_sample(r), addr(hpcl_t_chain_head), 0x8010, 8, false);
  // After the load inside the loop body: previous instruction.
  r.rip = addr(hpcl_t_chain_head_after);
  expect_address(hpcrun::resolve_sample(r), addr(hpcl_t_chain_head), 0x8010, 8, false);
}

TEST_F(AccessAt, ResolveSampleOutsideAnyModule) {
  // A pc in no module: no decision, the current instruction is decoded. Use a code-like buffer
  // on the stack (its bytes: mov rax, [rdi]; ret).
  alignas(16) uint8_t code[16] = {0x48, 0x8b, 0x07, 0xc3};
  SavedRegs r = regs_with({{RDI, 0xabc0}});
  r.rip = reinterpret_cast<uint64_t>(code);
  uint64_t s = 0, e = 0;
  EXPECT_FALSE(hpcrun::function_bounds(r.rip, &s, &e));
  expect_address(hpcrun::resolve_sample(r), r.rip, 0xabc0, 8, false);
}

SavedRegs at_pc(const char* pc, std::initializer_list<std::pair<Gpr, uint64_t>> values) {
  SavedRegs r = regs_with(values);
  r.rip = addr(pc);
  return r;
}

TEST_F(AccessAt, LoadFeedingUndoesPointerIncrements) {
  // At the paddq: rax has advanced by 0x20 and rbx moved by -2 since the movdqu read
  // [rax + rbx*8 + 0x40]; the address is the one the load used.
  const uint64_t ea = 0x10000 + 10 * 8 + 0x40;
  expect_address(hpcrun::resolve_sample(at_pc(hpcl_t_dep_wait, {{RAX, 0x10020}, {RBX, 8}})), addr(hpcl_t_dep_load),
                 ea, 16, false);
  // One instruction later (the cmp waits on nothing loaded; the paddq before it does).
  expect_address(hpcrun::resolve_sample(at_pc(hpcl_t_dep_cmp, {{RAX, 0x10020}, {RBX, 8}})), addr(hpcl_t_dep_load),
                 ea, 16, false);
  // access_for on the decision computed from the bytes gives the same.
  uint64_t s = 0, e = 0;
  ASSERT_TRUE(hpcrun::function_bounds(addr(hpcl_t_dep_wait), &s, &e));
  const hpcrun::PcDecision d =
      hpcrun::decide_from_code(reinterpret_cast<const uint8_t*>(s), e - s, s, addr(hpcl_t_dep_wait));
  EXPECT_EQ(d.rule, hpcrun::Rule::LoadFeeds);
  EXPECT_EQ(hpcrun::access_for(d, at_pc(hpcl_t_dep_wait, {{RAX, 0x10020}, {RBX, 8}})).ea, ea);
}

TEST_F(AccessAt, LoadFeedingGivesUpOnUnknownUpdate) {
  // add rsi, rcx between the load and the waiter: rsi's old value is unknown, so no data.
  const Access a = hpcrun::resolve_sample(at_pc(hpcl_t_dep_lost, {{RSI, 0x20000}, {RCX, 16}}));
  EXPECT_EQ(a.kind, AccessKind::NoMemoryOperand);
  EXPECT_EQ(a.insn, addr(hpcl_t_dep_lost));
}

TEST_F(AccessAt, PointerChaseUsesNextAccessThroughTheNewPointer) {
  // After mov rdi,[rdi+8]: rdi is the next node; the loop's next access is the same load on it.
  expect_address(hpcrun::resolve_sample(at_pc(hpcl_t_hop_after, {{RDI, 0x5000}})), addr(hpcl_t_hop), 0x5008, 8,
                 false);
}

TEST_F(AccessAt, StoreBeforeStackOnlyJoin) {
  // The join after the store is a branch target whose instruction only touches the stack: the
  // store is charged, not [rsp+0x20].
  expect_address(hpcrun::resolve_sample(at_pc(hpcl_t_join, {{R9, 0x7000}, {R8, 3}, {RSP, 0x7ffd0000}})),
                 addr(hpcl_t_store), 0x7018, 8, true);
}

TEST_F(AccessAt, ComputeBeforeSpillOrConstantIsNoData) {
  // roundps then its spill: no data, although [rsp+0x318] is computable.
  const Access spill = hpcrun::resolve_sample(at_pc(hpcl_t_spill, {{RSP, 0x7ffd0000}}));
  EXPECT_EQ(spill.kind, AccessKind::NoMemoryOperand);
  EXPECT_EQ(spill.insn, addr(hpcl_t_spill));
  // addps then addps with a .rodata-style constant: no data either.
  const Access rodata = hpcrun::resolve_sample(at_pc(hpcl_t_const, {}));
  EXPECT_EQ(rodata.kind, AccessKind::NoMemoryOperand);
  EXPECT_EQ(rodata.insn, addr(hpcl_t_const));
}

TEST_F(AccessAt, ComputeFedByALoadChargesTheLoad) {
  // mulps waited for movups [rdi]: the spill after the mulps is charged to the movups.
  expect_address(hpcrun::resolve_sample(at_pc(hpcl_t_fed, {{RDI, 0x9000}, {RSP, 0x7ffd0000}})),
                 addr(hpcl_t_fed_load), 0x9000, 16, false);
  // A general load after inc rcx stays the instruction at pc.
  expect_address(hpcrun::resolve_sample(at_pc(hpcl_t_general, {{RSI, 0xa000}, {RCX, 2}})), addr(hpcl_t_general),
                 0xa010, 8, false);
}

TEST(SavedRegs, FromUcontextMapsEncodingOrder) {
  ucontext_t uc{};
  greg_t* g = uc.uc_mcontext.gregs;
  const int order[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                         REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  for (int i = 0; i < 16; ++i) g[order[i]] = 1000 + i;
  g[REG_RIP] = 0x401000;
  const SavedRegs r = hpcrun::saved_regs_from_ucontext(&uc, 0x7777);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(r.gpr[i], 1000u + i) << i;
  EXPECT_EQ(r.rip, 0x401000u);
  EXPECT_EQ(r.fs_base, 0x7777u);
}

// The operand cached with a decision (issue 23) computes what decoding computes: every
// instruction above (addressing forms, widths, fs:, rip-relative, string, gather, no access),
// with registers drawn at random, with and without an FS base.
TEST_F(AccessAt, RecipeComputesWhatDecodingComputes) {
  const char* insns[] = {hpcl_t_rip_load, hpcl_t_bi_store, hpcl_t_fs_load, hpcl_t_fs_disp, hpcl_t_gs_load,
                         hpcl_t_lea, hpcl_t_nop, hpcl_t_prefetch, hpcl_t_rmw, hpcl_t_ymm, hpcl_t_zmm_store,
                         hpcl_t_gather, hpcl_t_movsq, hpcl_t_cmpsb, hpcl_t_stosb, hpcl_t_addr32, hpcl_t_neg,
                         hpcl_t_r13, hpcl_t_rsp, hpcl_t_noop, hpcl_t_push_mem, hpcl_t_cmpxchg,
                         hpcl_t_dep_load, hpcl_t_chain_head, hpcl_t_chase};
  uint64_t rng = 0x2545F4914F6CDD1Dull;
  auto next = [&] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  for (const char* insn : insns) {
    const hpcrun::AccessRecipe r = hpcrun::access_recipe(addr(insn));
    ASSERT_TRUE(r.valid) << "instruction at +" << addr(insn) - addr(hpcl_t_fn_loads);
    for (int round = 0; round < 50; ++round) {
      SavedRegs regs{};
      for (uint64_t& g : regs.gpr) g = next() >> (round % 3 == 0 ? 0 : 16);  // high bits too
      regs.fs_base = round % 5 == 0 ? 0 : next() >> 20;
      const Access want = hpcrun::access_at(addr(insn), regs);
      const Access got = hpcrun::apply_recipe(r, addr(insn), regs);
      EXPECT_EQ(got.kind, want.kind) << addr(insn) - addr(hpcl_t_fn_loads);
      EXPECT_EQ(got.insn, want.insn);
      EXPECT_EQ(got.ea, want.ea) << "instruction at +" << addr(insn) - addr(hpcl_t_fn_loads);
      EXPECT_EQ(got.size, want.size);
      EXPECT_EQ(got.is_write, want.is_write);
    }
  }
}

// A sample at a pc already decided is not decoded again: the cached operand gives the address
// from this sample's registers.
TEST_F(AccessAt, ACachedPcIsNotDecodedAgain) {
  SavedRegs r = regs_with({{RDI, 0x9000}, {RSI, 3}});
  r.rip = addr(hpcl_t_chain_head_after);  // the load before it: mov rdx, [rdi + rsi*8]
  const Access first = hpcrun::resolve_sample(r);
  expect_address(first, addr(hpcl_t_chain_head), 0x9018, 8, false);
  const auto before = hpcrun::decode_stats();
  for (uint64_t i = 0; i < 100; ++i) {
    r.gpr[RSI] = i;
    expect_address(hpcrun::resolve_sample(r), addr(hpcl_t_chain_head), 0x9000 + 8 * i, 8, false);
  }
  const auto after = hpcrun::decode_stats();
  EXPECT_EQ(after.hits, before.hits + 100);
  EXPECT_EQ(after.operand_decodes, before.operand_decodes) << "a cached pc was decoded again";
  EXPECT_EQ(after.scan_insns, before.scan_insns);
}

}  // namespace
