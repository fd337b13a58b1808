// Instruction decoding for software address sampling. See access_decode.h for the contract.
//
// Everything in this file may run inside a signal handler of the measured program:
//   - no allocation, no locks, no stdio, no errno changes (nothing here makes a system call;
//     find_object is async-signal-safe and keeps errno),
//   - only static storage (the PC cache, pc_cache.cpp, is a fixed table of 64-bit atomic words),
//   - bounded work per call (forward decoding is capped, see kMaxScanBytes / kMaxScanInsns),
//   - stack use per call is about 4 KiB: a miss decides with up to three decoded instructions
//     and their operands (1.1 KiB each) live at once, access_at needs one plus a
//     ZydisRegisterContext (2.1 KiB); a handler on an alternate signal stack needs at least 8 KiB.
//
// Memory reads: only code bytes are read (never data at the computed address), and only where
// they are known to be mapped: [function start, pc] was executed or lies in the same FDE-covered
// text; bytes after pc up to the bound from function_bounds (FDE end or next FDE start); at
// a single instruction, at most to the end of its page unless the instruction spans into the
// next page (then that page is mapped too, because the instruction was fetched).
#include "decode/access_decode.h"

#include <Zydis/Zydis.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "loader/find_object.h"
#include "hpcl/x86/operands.h"

namespace hpcrun {

// The instruction facts this file decides with (what an access is, which registers an
// instruction reads and writes) are the x86 library's, which the analyzer shares.
using namespace hpcl::x86;
namespace {

constexpr uint64_t kPageSize = 4096;

// Bound on the forward decoding of one pass over a function (see the rules before
// decide_from_code): a decoded instruction costs 60-80 ns here, and a miss is decided inside the
// signal handler. kMaxScanInsns bounds the whole pass (was 20000: up to ~1.5 ms per miss);
// kMaxBackSpan the part after the window of decided pcs, which only looks for branches back into
// it: longer backward branches are not counted (docs/PERFORMANCE.md, "Decoder misses").
constexpr uint64_t kMaxScanBytes = 64 * 1024;
constexpr unsigned kMaxScanInsns = kDecodeMaxScanInsns;
constexpr uint64_t kMaxBackSpan = kDecodeMaxBackSpan;

// ------------------------------------------------------------------------------------------------
// Decoder state. ZydisDecoderInit only fills a small struct; decode_init() does it once into the
// globals (and binds the lazily-resolved PLT entries of everything used later). Before that, each
// caller initialises a copy on its own stack, so calling too early is still correct.

ZydisDecoder g_decoder;       // full decoding (operands, categories)
ZydisDecoder g_scan_decoder;  // minimal mode: length and raw fields only, for forward scans
std::atomic<int> g_decoder_state{0};  // 0 = not initialised, 1 = initialising, 2 = ready

void init_decoders(ZydisDecoder* full, ZydisDecoder* scan) {
  ZydisDecoderInit(full, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  ZydisDecoderInit(scan, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  ZydisDecoderEnableMode(scan, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE);
}

struct Decoders {
  const ZydisDecoder* full;
  const ZydisDecoder* scan;
};

// `local` is used (and initialised) only before decode_init has completed.
Decoders get_decoders(ZydisDecoder (&local)[2]) {
  if (g_decoder_state.load(std::memory_order_acquire) == 2) return {&g_decoder, &g_scan_decoder};
  init_decoders(&local[0], &local[1]);
  return {&local[0], &local[1]};
}

// ------------------------------------------------------------------------------------------------
// Reading live code and registers (access_at): the operand helpers themselves are in operands.h,
// shared with the rules below so that the decision and the address computation agree on what
// "an access" is.

// Decodes one instruction at runtime address `addr` without reading past its page unless the
// instruction really continues into the next one.
bool decode_at(const ZydisDecoder* dec, uint64_t addr, ZydisDecodedInstruction* in,
               ZydisDecodedOperand* ops) {
  const uint64_t to_page_end = kPageSize - (addr & (kPageSize - 1));
  const size_t first = to_page_end < kMaxInsnLen ? static_cast<size_t>(to_page_end) : kMaxInsnLen;
  const void* p = reinterpret_cast<const void*>(addr);
  ZyanStatus st = ZydisDecoderDecodeFull(dec, p, first, in, ops);
  if (st == ZYDIS_STATUS_NO_MORE_DATA && first < kMaxInsnLen) {
    st = ZydisDecoderDecodeFull(dec, p, kMaxInsnLen, in, ops);
  }
  return ZYAN_SUCCESS(st);
}

// Value of a register as an address component, truncated to the register's width.
bool register_value(ZydisRegister r, const SavedRegs& regs, uint64_t* v) {
  const ZydisRegister big = gpr64(r);
  if (big == ZYDIS_REGISTER_NONE) return false;
  uint64_t x = regs.gpr[big - ZYDIS_REGISTER_RAX];
  switch (ZydisRegisterGetClass(r)) {
    case ZYDIS_REGCLASS_GPR32: x &= 0xffffffffu; break;
    case ZYDIS_REGCLASS_GPR16: x &= 0xffffu; break;
    case ZYDIS_REGCLASS_GPR8: x &= 0xffu; break;  // never an address register in 64-bit mode
    default: break;
  }
  *v = x;
  return true;
}

// An access that cannot have taken the time of the instruction before it, because it has not run
// yet and hits L1 when it does (Compute): a store (the store buffer hides its latency), a stack
// access (spills, reloads, locals: stack_only), or a RIP-relative load (a constant of .rodata).
bool cheap_access(const ZydisDecodedOperand& m) {
  if ((m.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0) return true;
  if (m.mem.type != ZYDIS_MEMOP_TYPE_MEM) return false;
  return stack_only(m) || m.mem.base == ZYDIS_REGISTER_RIP;
}

// The previous instruction's access `m` (the instruction at runtime address `at`) could not have
// stalled on memory (Compute or LoadFeeds, after a cheap access): a stack access (a spill, a
// reload, a scalar local: stack_only) or a RIP-relative load of a constant: 16 bytes or more (a
// SIMD literal of .rodata, `addps c(%rip),%xmm3`), or of any width when `constant` says its
// module keeps the address read-only (`mulsd c(%rip),%xmm0`, the scalar literal of `acc * 0.5`),
// unless it is atomic (lock prefix, xchg; the fence idiom `lock or [rsp], 0` is no access at all,
// see access_operand). Other narrower RIP-relative loads stay Previous: a global scalar in
// writable data can miss (written by another thread), unlike a spill slot or a constant.
bool cheap_previous(const ZydisDecodedInstruction& in, const ZydisDecodedOperand& m, uint64_t at,
                    ConstantData constant) {
  if ((in.attributes & ZYDIS_ATTRIB_HAS_LOCK) != 0 || in.mnemonic == ZYDIS_MNEMONIC_XCHG) return false;
  if (m.mem.type != ZYDIS_MEMOP_TYPE_MEM) return false;
  if (stack_only(m)) return true;
  if (m.mem.base != ZYDIS_REGISTER_RIP || (m.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0) return false;
  if (m.size >= 128) return true;
  const uint64_t target = at + in.length + static_cast<uint64_t>(m.mem.disp.value);
  return constant != nullptr && constant(target);
}


std::atomic<uint64_t> g_lookups{0}, g_hits{0};
std::atomic<uint64_t> g_scan_insns{0}, g_scan_insns_max{0};
std::atomic<uint64_t> g_operand_decodes{0};

}  // namespace

// ------------------------------------------------------------------------------------------------
// The attribution rules (decide_from_code). Eight rules decide, the values of `Rule`
// (pc_decision.h); these names are the ones docs/DESIGN.md and the tests use:
//   Unknown     no decision: the instruction at pc is used, if it can be decoded at all;
//   Current     the instruction at pc;
//   Previous    the instruction just before pc (the usual case: the PC is after the stall);
//   BranchJoin  the memory access just before a branch target whose own instruction touches only
//               the stack;
//   LoadFeeds   the load that produced an input of the instruction that waited;
//   ChasedNext  the next access through the pointer a chasing load just wrote;
//   Compute     no data: the time went to computation before an access that had not run yet;
//   LoopAccess  the one load of a tight loop, at its loop control.
// Terms used below. "prev" is the instruction just before pc. "prev is an access": it has a
// memory operand that is a data access (access_operand: lea, nops, MPX bound-table forms and
// implicit stack operands are not; prefetch, clflush and string instructions are). "prev chases":
// it also writes a general-purpose register its address uses (mov rax,[rax]; mov rbx,[rax+rbx*8];
// movs/lods). "cheap": the data access of the instruction at pc is a store (or read-modify-write),
// a stack access (stack_only: base rsp or rbp, no index) or a RIP-relative load (a .rodata
// constant): it has not run yet at the sample, and when it runs it hits L1 or the store buffer.
// "Targets" are found by one scan that continues past pc to the end of the function (loop
// back-edges come after their head); it stops at the end of the function, at 64 KiB from its
// start or after 4096 instructions in all, whichever comes first (a branch from beyond that is not
// seen). A backward branch spanning more than 2 KiB (kMaxBackSpan: from b to t with b - t > 2048)
// is not counted, so the scan needs to go only that far past pc. Bytes that do not decode are
// skipped one at a time (this can only add targets, i.e. make the cases that refuse a target more
// likely).
//
// The cases, in order; the first that applies decides, by the rule it names.
//   Unknown, outside: pc outside [func_start, func_start + len).
//   Unknown, not an instruction: decoding forward from func_start does not land exactly on pc
//       (pc inside an instruction, or an undecodable byte (data in code) before pc), or reaching
//       pc needs 64 KiB of code or more, or 4096 instructions or more (kMaxScanBytes /
//       kMaxScanInsns).
//   Current, at the function start: pc == func_start (no previous instruction in the function).
//   Current, after a transfer: prev transfers control (jcc, jmp, call, ret, loop, syscall, int;
//       direct or indirect).
//   Current, into prev: a direct branch (relative jcc/jmp/call/loop/jrcxz/xbegin) anywhere in
//       the scanned part of the function targets the middle of prev (e.g. a jump over a lock
//       prefix).
//   Compute, at a target: pc is a branch target, prev is not an access, and the instruction at pc
//       is cheap (see "Compute, after compute" for why).
//   Current, at a target: pc is a branch target, and prev is not an access or chases.
//   Compute or LoadFeeds, after a cheap access: prev is an access, does not chase, pc is not a
//       branch target, and prev's access is a stack access (stack_only) or a RIP-relative load
//       of a constant: 16 bytes or more (a SIMD literal), or any width into memory its module
//       keeps read-only (constant_data: .rodata, RELRO; the scalar literal of `mulsd
//       c(%rip),%xmm0`), not atomic (no lock prefix, not xchg; `lock orq $0,(%rsp)` is a
//       fence, no access): a spill store waits for its data, a reload or a literal hits L1, so
//       the time is the computation's. The load feeding prev's non-address inputs (LoadFeeds,
//       prev the waiter), else no data (Compute). Narrower RIP-relative accesses into writable
//       data before pc stay Previous (a global scalar can miss when another thread writes it).
//       Measured on tests/programs/access_patterns.f90, whose record loop gfortran inlines
//       with `vmulsd c(%rip),%xmm0,%xmm0` (acc * 0.5): 63% of its samples went to the
//       executable's data row, at the constant's address, before.
//   Previous: prev is an access, does not chase, and pc is not a branch target.
//   BranchJoin: pc is a branch target, prev is an access and does not chase, the instruction at
//       pc has no data access or only a stack one (base rsp or rbp, no index), and the edge
//       prev -> pc is not a loop entry: either no backward jump targets pc, or some backward jump
//       at b to t spans it (t < pc <= b: prev and pc lie in one loop's code, so prev runs as
//       often as the loop). A store or load that stalled before an if/else join or a latch is
//       then not silently charged to the next instruction's stack counter. Refused at a loop
//       head entered from a preheader load (`mov rcx,[rsi]; L: add rax,rcx; ...; jne L`): that
//       load runs once, the samples at L come from the loop. The sample may also have come
//       through the branch; that path's stall is not looked for (limit), and "one loop's code" is
//       judged by addresses, not by a control-flow graph.
//   Current, at a target after an access: pc is a branch target and BranchJoin refused.
//   Current, both access: prev chases and the instruction at pc has a data access too.
//   ChasedNext: prev chases, the instruction at pc has no data access, and on the straight path
//       from pc (at most kFollowInsns instructions; an unconditional direct jump is followed, a
//       backward conditional jump is taken as a loop back-edge, a forward one falls through; any
//       other transfer stops the search) an access is found whose address uses a register the
//       chasing load wrote, and neither of its address registers is written between pc and it:
//       that access, with the registers as saved. Its address is in the node the chasing load
//       just reached, so a linked structure allocated from one site is charged correctly; a
//       structure whose nodes come from several sites gets the next node's site. Without such
//       an access: Current.
//   LoadFeeds, prev waited: prev is not an access, the instruction at pc is one: the load that
//       feeds prev, prev being the waiting instruction (it took the time; it waited for that
//       load).
//   Compute, after compute: otherwise, when the instruction at pc is cheap. The time went to
//       prev's computation (or to an input LoadFeeds could not trace); the access at pc did not
//       take it. Measured on GROMACS (docs/CASES.md): 88.6% of the `[stack]` samples sat on SSE
//       spills and reloads, 68.1% after an arithmetic instruction without a memory operand
//       (`roundps` then `movaps %xmm14,0x318(%rsp)`), so "the instruction at pc" made [stack]
//       the top row with 40.7% of the data samples; .rodata SIMD constants (`addps
//       0xb2af3b(%rip)`) went the same way to the module's data row.
//   Current, a load after compute: otherwise (a load or read through a general pointer at pc).
//       Kept: such a load is usually the next element of the stream the loop reads, so the
//       variable is right although the instruction is not. Measured both ways: no e2e program
//       changed; on GROMACS and HPCC "no data" here only removed heap samples of the arrays the
//       kernels read (GROMACS kernel 1,846 -> 1,379), moving none elsewhere (docs/DESIGN.md).
//   LoadFeeds, no access: neither prev nor the instruction at pc is an access: the waiting
//       instruction is the one at pc, else prev.
//   LoopAccess: no feeding load either, and pc lies in a tight loop (straight code of at most 6
//       instructions and 48 bytes closed by a direct backward jump) whose only data access is a
//       load through general registers (see loop_access): that load, its address registers
//       corrected for the constant updates since it ran. The samples at a reduction's
//       `add rax,8; cmp rax,rdx; jne L` are the time of its one load, whose stall the loop
//       control waits behind; without this rule they were no data, between under 1% and 29% of
//       such a loop's samples by process (measured on the project's 2-vCPU VMs), so a
//       variable read by a one-load loop lost that share against one read by an unrolled loop.
//       Otherwise: Current.
// How LoadFeeds finds the load, wherever it is tried: going back from the waiting instruction
// within the block (no branch target at or after the instruction reached, no control transfer, at
// most kDepInsns instructions and kLookBack bytes before pc), the nearest instruction that writes
// a register the waiter reads must be a load (an access that reads memory, does not chase); its
// address registers may have been changed since only by add/sub imm, inc/dec or lea r,[r+disp] on
// the full 64-bit register, which are undone (at most one correction per address register, each
// within +-32 KiB) -> UseOther(load, corrections). A writer that is not such a load, or any other
// update of an address register, gives up. When the load found is cheap (a stack reload or a
// RIP-relative constant) the waiter was not waiting for memory: Compute.
//
// One linear pass over the function gives the instruction starts and the branch targets in a
// window of addresses; every instruction start in the window can then be decided without another
// pass. resolve_sample uses that on a miss to also cache the decisions of the instructions around
// the sampled pc (a hot loop is then decoded once, not once per sampled pc); the result for each
// pc is exactly what decide_from_code gives for it alone (LoadFeeds looks back at most
// kLookBack bytes, which every window covers; ChasedNext decodes forward from pc and needs no window).
namespace {

constexpr unsigned kWindowWords = 5;                // 320 bits of instruction starts / targets
constexpr uint64_t kBatchBefore = 128, kBatchAfter = 128;  // decided around a missed pc
constexpr uint64_t kWindowSlack = 64;               // room for looking back (LoadFeeds)
constexpr uint64_t kLookBack = 64;                  // LoadFeeds: bytes before pc
constexpr unsigned kDepInsns = 8;                   // LoadFeeds: instructions back from the waiter
constexpr unsigned kFollowInsns = 8;                // ChasedNext: instructions forward from pc
constexpr unsigned kLoopInsns = 6;                  // LoopAccess: instructions of a tight loop
constexpr uint64_t kLoopBytes = 48;                 // LoopAccess: its bytes, jump included
static_assert(kWindowSlack + kBatchBefore + kBatchAfter <= 64 * kWindowWords);
static_assert(kLookBack <= kWindowSlack);
static_assert(kLoopBytes <= kWindowSlack);  // LoopAccess: the loop's start is in every window

struct Window {
  uint64_t base = 0;  // runtime address of bit 0
  uint64_t starts[kWindowWords] = {};
  uint64_t targets[kWindowWords] = {};
  uint64_t loop_heads[kWindowWords] = {};  // targets of backward jumps (BranchJoin)
  uint64_t in_loop[kWindowWords] = {};     // a: some backward jump at b to t has t < a <= b

  static void set(uint64_t* bits, uint64_t base, uint64_t addr) {
    if (addr < base || addr - base >= 64 * kWindowWords) return;
    const uint64_t i = addr - base;
    bits[i / 64] |= uint64_t{1} << (i % 64);
  }
  static bool get(const uint64_t* bits, uint64_t base, uint64_t addr) {
    if (addr < base || addr - base >= 64 * kWindowWords) return false;
    const uint64_t i = addr - base;
    return (bits[i / 64] >> (i % 64)) & 1;
  }
  bool is_start(uint64_t a) const { return get(starts, base, a); }
  bool is_target(uint64_t a) const { return get(targets, base, a); }
  bool is_loop_head(uint64_t a) const { return get(loop_heads, base, a); }
  bool is_in_loop(uint64_t a) const { return get(in_loop, base, a); }
  // Marks (t, b] in in_loop, clipped to the window.
  void mark_loop(uint64_t t, uint64_t b) {
    const uint64_t end = base + 64 * kWindowWords;
    for (uint64_t a = (t + 1 > base ? t + 1 : base); a <= b && a < end; ++a) set(in_loop, base, a);
  }
};

// The linear pass. An address is recorded as an instruction start when the decode from the
// function start reached it exactly, with no undecodable byte before it, fewer than kMaxScanInsns
// instructions before it, and less than kMaxScanBytes from the start.
unsigned scan_function(const ZydisDecoder* scan, const uint8_t* code, size_t len, uint64_t func_start, Window* w) {
  const uint64_t scan_end = len < kMaxScanBytes ? len : kMaxScanBytes;
  ZydisDecodedInstruction in;
  uint64_t off = 0;
  unsigned insns = 0;
  bool aligned = true;
  // Past the window only backward branches into it matter, and those spanning more than
  // kMaxBackSpan bytes are not counted (see the rules): the scan stops that far past it.
  const uint64_t window_end = w->base + 64 * kWindowWords;
  while (off < scan_end && insns < kMaxScanInsns && func_start + off < window_end + kMaxBackSpan) {
    const uint64_t at = func_start + off;
    if (aligned) Window::set(w->starts, w->base, at);
    ++insns;
    const size_t avail = len - off < kMaxInsnLen ? len - off : kMaxInsnLen;
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(scan, nullptr, code + off, avail, &in))) {
      aligned = false;
      ++off;
      continue;
    }
    uint64_t t;
    if (direct_branch_target(in, at, &t) && (t > at || at - t <= kMaxBackSpan)) {
      Window::set(w->targets, w->base, t);
      if (t <= at && in.meta.category != ZYDIS_CATEGORY_CALL) {
        Window::set(w->loop_heads, w->base, t);
        w->mark_loop(t, at);
      }
    }
    off += in.length;
  }
  return insns;
}

// The code of one function being decided: bytes [start, start + len) at runtime address start.
struct Code {
  const ZydisDecoder* full;
  const uint8_t* bytes;
  size_t len;
  uint64_t start;
  ConstantData constant;  // cheap_previous: is a RIP-relative target read-only data?

  bool decode(uint64_t at, ZydisDecodedInstruction* in, ZydisDecodedOperand* ops) const {
    if (at < start || at - start >= len) return false;
    const uint64_t off = at - start;
    const size_t avail = len - off < kMaxInsnLen ? static_cast<size_t>(len - off) : kMaxInsnLen;
    return ZYAN_SUCCESS(ZydisDecoderDecodeFull(full, bytes + off, avail, in, ops));
  }
};

// The instruction start before `a` (within one maximal instruction length), or 0.
uint64_t start_before(const Window& w, uint64_t func_start, uint64_t a) {
  for (uint64_t k = 1; k <= kMaxInsnLen && a - k >= func_start && a >= k; ++k) {
    if (w.is_start(a - k)) return a - k;
  }
  return 0;
}

// A conditional or unconditional jump (not a call, return or other transfer).
bool is_jump(const ZydisDecodedInstruction& in) {
  return in.meta.category == ZYDIS_CATEGORY_UNCOND_BR || in.meta.category == ZYDIS_CATEGORY_COND_BR;
}

// Straight code [from, to) that ran between the chosen access and pc, in the order it ran.
struct Span {
  uint64_t from = 0, to = 0;
};

// The corrections of LoadFeeds and LoopAccess: the address registers of the access (operand `m`)
// as they were when it ran, given their values at pc, the code in `spans` having run since.
// Every instruction there that writes one of them must be a constant update. Reuses `in` / `ops`
// as scratch.
bool undo_updates(const Code& c, const Span* spans, unsigned nspans, const ZydisDecodedOperand& m,
                  PcDecision* d, ZydisDecodedInstruction* in, ZydisDecodedOperand* ops) {
  const ZydisRegister regs[2] = {gpr64(m.mem.base), gpr64(m.mem.index)};
  if ((m.mem.base != ZYDIS_REGISTER_NONE && regs[0] == ZYDIS_REGISTER_NONE && m.mem.base != ZYDIS_REGISTER_RIP) ||
      (m.mem.index != ZYDIS_REGISTER_NONE && regs[1] == ZYDIS_REGISTER_NONE)) {
    return false;  // a vector index (VSIB): no register to correct
  }
  int64_t delta[2] = {0, 0};
  for (unsigned s = 0; s < nspans; ++s) {
    for (uint64_t at = spans[s].from; at < spans[s].to;) {
      if (!c.decode(at, in, ops)) return false;
      const RegSet w = writes_of(*in, ops);
      for (unsigned i = 0; i < 2; ++i) {
        if (regs[i] == ZYDIS_REGISTER_NONE || (w & reg_bit(regs[i])) == 0) continue;
        if (i == 1 && regs[1] == regs[0]) continue;  // [rax+rax*2]: one register, counted once
        int64_t step;
        if (!constant_update(*in, ops, regs[i], &step)) return false;
        delta[i] += step;
      }
      at += in->length;
    }
  }
  d->nfixes = 0;
  for (unsigned i = 0; i < 2; ++i) {
    if (delta[i] == 0 || (i == 1 && regs[1] == regs[0])) continue;
    if (delta[i] < INT16_MIN || delta[i] > INT16_MAX) return false;
    d->fixes[d->nfixes].reg = static_cast<uint8_t>(regs[i] - ZYDIS_REGISTER_RAX);
    d->fixes[d->nfixes].delta = static_cast<int16_t>(delta[i]);
    ++d->nfixes;
  }
  return true;
}

// LoadFeeds for one waiting instruction at `waiter`, which reads `needs`.
bool load_feeding(const Code& c, const Window& w, uint64_t pc, uint64_t waiter, RegSet needs, PcDecision* d) {
  if (needs == 0) return false;
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  uint64_t cur = waiter;
  for (unsigned n = 0; n < kDepInsns; ++n) {
    if (w.is_target(cur)) return false;  // cur starts a block: what came before may not have run
    const uint64_t at = start_before(w, c.start, cur);
    if (at == 0 || at + kLookBack < pc) return false;
    if (!c.decode(at, &in, ops) || at + in.length != cur) return false;
    if (is_control_transfer(in)) return false;
    if ((writes_of(in, ops) & needs) != 0) {
      const int m = access_operand(in, ops);
      if (m < 0 || (ops[m].actions & ZYDIS_OPERAND_ACTION_MASK_READ) == 0) return false;
      if (overwrites_address_register(in, ops, ops[m])) return false;
      if (cheap_access(ops[m])) {
        // A reload of a spill slot or a constant hits L1: the waiter was waiting for its own
        // computation's inputs, not for memory (Compute).
        *d = PcDecision{};
        d->choice = Choice::NoData;
        d->rule = Rule::Compute;
        return true;
      }
      const ZydisDecodedOperand mem = ops[m];
      const Span since{at + in.length, pc};
      if (!undo_updates(c, &since, 1, mem, d, &in, ops)) return false;
      d->choice = Choice::UseOther;
      d->offset = static_cast<int16_t>(static_cast<int64_t>(at) - static_cast<int64_t>(pc));
      d->rule = Rule::LoadFeeds;
      return true;
    }
    cur = at;
  }
  return false;
}

// ChasedNext: the next access on the path from pc through a register in `chased`.
bool next_access_through(const Code& c, uint64_t pc, RegSet chased, PcDecision* d) {
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  RegSet written = 0;
  uint64_t at = pc;
  for (unsigned n = 0; n < kFollowInsns; ++n) {
    if (!c.decode(at, &in, ops)) return false;
    if (is_control_transfer(in)) {
      uint64_t target;
      if (!is_jump(in) || !direct_branch_target(in, at, &target)) return false;
      if (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR || target <= at) {
        at = target;
      } else {
        at += in.length;
      }
      continue;
    }
    const int m = access_operand(in, ops);
    if (m >= 0) {
      const RegSet uses = address_regs(ops[m]);
      if ((uses & chased) != 0 && (uses & written) == 0) {
        const int64_t off = static_cast<int64_t>(at) - static_cast<int64_t>(pc);
        if (off < INT16_MIN || off > INT16_MAX) return false;
        d->choice = Choice::UseOther;
        d->offset = static_cast<int16_t>(off);
        d->nfixes = 0;
        d->rule = Rule::ChasedNext;
        return true;
      }
    }
    written |= writes_of(in, ops);
    if ((chased & ~written) == 0) return false;  // the chased pointer is gone
    at += in.length;
  }
  return false;
}

// LoopAccess: the one load of the tight loop whose code holds pc. The loop is found forward from
// pc: a direct backward jump within kLoopInsns instructions, to a start t with t < pc and at most
// kLoopBytes before the jump's end. Its code from t to the jump must be straight (no other control
// transfer), at most kLoopInsns instructions, with exactly one data access, which reads memory
// through general registers (not a store alone, not a stack slot or a RIP-relative scalar: the
// cheap accesses of the Compute rule) and does not chase. Its address registers are corrected
// for the constant updates that ran since it last ran: after it up to pc, or after it to the
// jump and from t to pc when pc comes first in the code (the previous iteration's access).
// The caller asks only for a pc the scan found inside a loop (Window::in_loop: one bit test, so
// that code outside loops, most of what a miss decides around it, pays no decoding for this).
bool loop_access(const Code& c, const Window& w, uint64_t pc, PcDecision* d) {
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  uint64_t head = 0, end = 0;
  uint64_t at = pc;
  for (unsigned n = 0; n < kLoopInsns && end == 0; ++n) {
    if (!c.decode(at, &in, ops)) return false;
    if (is_control_transfer(in)) {
      if (!is_jump(in) || !direct_branch_target(in, at, &head) || head >= pc) return false;
      end = at + in.length;
    }
    at += in.length;
  }
  if (end == 0 || end - head > kLoopBytes || !w.is_start(head)) return false;
  uint64_t access = 0, access_end = 0;
  ZydisDecodedOperand mem{};
  unsigned n = 0;
  for (at = head; at < end; at += in.length) {
    if (++n > kLoopInsns || !c.decode(at, &in, ops)) return false;
    if (is_control_transfer(in) && at + in.length != end) return false;
    const int m = access_operand(in, ops);
    if (m < 0) continue;
    const ZydisDecodedOperand& op = ops[m];
    if (access != 0 || (op.actions & ZYDIS_OPERAND_ACTION_MASK_READ) == 0 ||
        op.mem.type != ZYDIS_MEMOP_TYPE_MEM || stack_only(op) || op.mem.base == ZYDIS_REGISTER_RIP ||
        overwrites_address_register(in, ops, op))
      return false;
    access = at;
    access_end = at + in.length;
    mem = op;
  }
  if (access == 0 || at != end) return false;  // no load, or the code does not meet the jump
  Span since[2];
  unsigned nspans = 0;
  if (access < pc) {
    since[nspans++] = Span{access_end, pc};
  } else {
    since[nspans++] = Span{access_end, end};
    since[nspans++] = Span{head, pc};
  }
  if (!undo_updates(c, since, nspans, mem, d, &in, ops)) return false;
  d->choice = Choice::UseOther;
  d->offset = static_cast<int16_t>(static_cast<int64_t>(access) - static_cast<int64_t>(pc));
  d->rule = Rule::LoopAccess;
  return true;
}

// The rules for an instruction start `pc` of the window (the Unknown cases already checked).
PcDecision decide_in_window(const Code& c, uint64_t pc, const Window& w) {
  PcDecision cur;
  cur.choice = Choice::UseCurrent;
  cur.rule = Rule::Current;
  if (pc == c.start) return cur;  // Current, at the function start
  const uint64_t prev = start_before(w, c.start, pc);
  PcDecision unknown;
  if (prev == 0) return unknown;  // cannot happen for a recorded start after the first
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  if (!c.decode(prev, &in, ops) || in.length != pc - prev) return unknown;
  if (is_control_transfer(in)) return cur;  // Current, after a transfer
  for (uint64_t a = prev + 1; a < pc; ++a) {
    if (w.is_target(a)) return cur;  // Current, into prev
  }
  const bool pc_is_target = w.is_target(pc);
  const int m = access_operand(in, ops);
  const bool chases = m >= 0 && overwrites_address_register(in, ops, ops[m]);
  PcDecision p;
  p.choice = Choice::UsePrevious;
  p.prev_len = in.length;
  p.rule = Rule::Previous;
  // The instruction at pc, needed by every remaining rule but P.
  ZydisDecodedInstruction at_pc;
  ZydisDecodedOperand at_ops[ZYDIS_MAX_OPERAND_COUNT];
  const bool pc_ok = c.decode(pc, &at_pc, at_ops);
  const int pm = pc_ok ? access_operand(at_pc, at_ops) : -1;
  PcDecision compute;
  compute.choice = Choice::NoData;
  compute.rule = Rule::Compute;
  const bool pc_cheap = pm >= 0 && cheap_access(at_ops[pm]);
  if (pc_is_target && m < 0 && pc_cheap) return compute;  // Compute, at a target
  if (pc_is_target && (m < 0 || chases)) return cur;     // Current, at a target

  PcDecision other;
  if (m >= 0 && !chases) {
    if (!pc_is_target) {
      if (!cheap_previous(in, ops[m], prev, c.constant)) return p;  // Previous
      const RegSet inputs = reads_of(in, ops) & ~address_regs(ops[m]);
      if (load_feeding(c, w, pc, prev, inputs, &other)) return other;  // LoadFeeds, after a cheap access
      return compute;                                                  // Compute, after a cheap access
    }
    const bool enters_loop = w.is_loop_head(pc) && !w.is_in_loop(pc);
    if (pc_ok && (pm < 0 || stack_only(at_ops[pm])) && !enters_loop) {
      p.rule = Rule::BranchJoin;
      return p;  // BranchJoin
    }
    return cur;  // Current, at a target after an access
  }
  if (!pc_ok || (pm >= 0 && chases)) return cur;  // Current, both access
  if (chases) {
    const RegSet chased = writes_of(in, ops) & address_regs(ops[m]);
    if (next_access_through(c, pc, chased, &other)) return other;  // ChasedNext
    return cur;  // Current: no access through the chased pointer
  }
  const RegSet prev_reads = reads_of(in, ops);
  if (pm >= 0) {
    if (load_feeding(c, w, pc, prev, prev_reads, &other)) return other;  // LoadFeeds, prev waited
    if (pc_cheap) return compute;                                        // Compute, after compute
    return cur;                                                          // Current, a load after compute
  }
  if (load_feeding(c, w, pc, pc, reads_of(at_pc, at_ops), &other)) return other;  // LoadFeeds, no access
  if (load_feeding(c, w, pc, prev, prev_reads, &other)) return other;               // LoadFeeds, no access
  if (w.is_in_loop(pc) && loop_access(c, w, pc, &other)) return other;              // LoopAccess
  return cur;                                                                       // Current: no feeding load
}

bool decidable(size_t len, uint64_t func_start, uint64_t pc, const Window& w) {
  return pc >= func_start && pc - func_start < len && pc - func_start < kMaxScanBytes && w.is_start(pc);
}

}  // namespace

PcDecision decide_from_code(const uint8_t* code, size_t len, uint64_t func_start, uint64_t pc,
                            ConstantData constant) {
  PcDecision unknown;
  if (pc < func_start || pc - func_start >= len) return unknown;  // Unknown, outside
  ZydisDecoder local[2];
  const Decoders dec = get_decoders(local);
  Window w;
  w.base = pc >= kWindowSlack ? pc - kWindowSlack : 0;
  scan_function(dec.scan, code, len, func_start, &w);
  if (!decidable(len, func_start, pc, w)) return unknown;  // Unknown, not an instruction
  return decide_in_window(Code{dec.full, code, len, func_start, constant}, pc, w);
}


Access access_at(uint64_t insn, const SavedRegs& regs) {
  Access a;
  a.insn = insn;
  ZydisDecoder local[2];
  const Decoders dec = get_decoders(local);
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  g_operand_decodes.fetch_add(1, std::memory_order_relaxed);
  if (!decode_at(dec.full, insn, &in, ops)) return a;
  const int m = access_operand(in, ops);
  if (m < 0) return a;
  const ZydisDecodedOperand& op = ops[m];

  a.kind = AccessKind::Unresolvable;
  const unsigned bytes = op.size / 8u;
  a.size = bytes <= 255 ? static_cast<uint8_t>(bytes) : 0;
  a.is_write = (op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
  if (op.mem.type == ZYDIS_MEMOP_TYPE_VSIB) return a;
  if (op.mem.segment == ZYDIS_REGISTER_GS) return a;
  if (op.mem.segment == ZYDIS_REGISTER_FS && regs.fs_base == 0) return a;

  // Only the base and index entries are read by the address calculation; the rest of the
  // (2 KiB) context is left unset on purpose.
  ZydisRegisterContext ctx;
  for (ZydisRegister r : {op.mem.base, op.mem.index}) {
    if (r == ZYDIS_REGISTER_NONE || r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_EIP) continue;
    uint64_t v;
    if (!register_value(r, regs, &v)) return a;
    ctx.values[r] = v;
  }
  uint64_t ea;
  if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddressEx(&in, &op, insn, &ctx, &ea))) return a;
  if (in.address_width == 32) ea &= 0xffffffffu;
  else if (in.address_width == 16) ea &= 0xffffu;
  if (op.mem.segment == ZYDIS_REGISTER_FS) ea += regs.fs_base;
  a.ea = ea;
  a.kind = AccessKind::Address;
  return a;
}

namespace {

// A register of an address as the recipe names it (encoding order, or kNoReg / kRip) and its
// width; false when access_at could not read it either (register_value).
bool recipe_register(ZydisRegister r, uint8_t* reg, uint8_t* width) {
  *width = 0;
  if (r == ZYDIS_REGISTER_NONE) {
    *reg = AccessRecipe::kNoReg;
    return true;
  }
  if (r == ZYDIS_REGISTER_RIP) {
    *reg = AccessRecipe::kRip;
    return true;
  }
  const ZydisRegister big = gpr64(r);
  if (big == ZYDIS_REGISTER_NONE) return false;
  *reg = static_cast<uint8_t>(big - ZYDIS_REGISTER_RAX);
  switch (ZydisRegisterGetClass(r)) {
    case ZYDIS_REGCLASS_GPR32: *width = 1; break;
    case ZYDIS_REGCLASS_GPR16: *width = 2; break;
    case ZYDIS_REGCLASS_GPR8: *width = 3; break;
    default: break;
  }
  return true;
}

uint64_t truncated(uint64_t v, uint8_t width) {
  switch (width) {
    case 1: return v & 0xffffffffu;
    case 2: return v & 0xffffu;
    case 3: return v & 0xffu;
    default: return v;
  }
}

}  // namespace

AccessRecipe access_recipe(uint64_t insn) {
  AccessRecipe r;
  ZydisDecoder local[2];
  const Decoders dec = get_decoders(local);
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  r.valid = true;
  if (!decode_at(dec.full, insn, &in, ops)) return r;  // NoMemoryOperand, as access_at
  const int m = access_operand(in, ops);
  if (m < 0) return r;
  const ZydisDecodedOperand& op = ops[m];
  r.kind = static_cast<uint8_t>(AccessKind::Unresolvable);
  const unsigned bytes = op.size / 8u;
  r.size = bytes <= 255 ? static_cast<uint8_t>(bytes) : 0;
  r.is_write = (op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
  if (op.mem.type == ZYDIS_MEMOP_TYPE_VSIB || op.mem.segment == ZYDIS_REGISTER_GS) return r;
  r.fs = op.mem.segment == ZYDIS_REGISTER_FS;
  if (!recipe_register(op.mem.base, &r.base, &r.base_width) ||
      !recipe_register(op.mem.index, &r.index, &r.index_width) || r.index == AccessRecipe::kRip)
    return r;  // a register access_at cannot read: Unresolvable there too
  // What the recipe does not express is left to access_at: 16-bit addressing, an EIP base, a
  // displacement beyond 32 bits (moffs), a scale other than 1, 2, 4, 8.
  if (in.address_width != 64 && in.address_width != 32) r.valid = false;
  if (op.mem.base == ZYDIS_REGISTER_EIP) r.valid = false;
  int64_t disp = op.mem.disp.value;
  if (r.base == AccessRecipe::kRip) disp += in.length;
  if (disp < INT32_MIN || disp > INT32_MAX) r.valid = false;
  const unsigned scale = r.index == AccessRecipe::kNoReg ? 1 : op.mem.scale;
  if (scale != 1 && scale != 2 && scale != 4 && scale != 8) r.valid = false;
  r.scale_log2 = static_cast<uint8_t>(scale == 8 ? 3 : scale == 4 ? 2 : scale == 2 ? 1 : 0);
  r.addr32 = in.address_width == 32;
  r.disp = static_cast<int32_t>(disp);
  r.kind = static_cast<uint8_t>(AccessKind::Address);
  return r;
}

Access apply_recipe(const AccessRecipe& r, uint64_t insn, const SavedRegs& regs) {
  Access a;
  a.insn = insn;
  a.kind = static_cast<AccessKind>(r.kind);
  if (a.kind == AccessKind::NoMemoryOperand) return a;
  a.size = r.size;
  a.is_write = r.is_write;
  if (a.kind != AccessKind::Address) return a;
  if (r.fs && regs.fs_base == 0) {
    a.kind = AccessKind::Unresolvable;
    return a;
  }
  uint64_t ea = static_cast<uint64_t>(int64_t{r.disp});
  if (r.base == AccessRecipe::kRip) ea += insn;
  else if (r.base < 16) ea += truncated(regs.gpr[r.base], r.base_width);
  if (r.index < 16) ea += truncated(regs.gpr[r.index], r.index_width) << r.scale_log2;
  if (r.addr32) ea &= 0xffffffffu;
  if (r.fs) ea += regs.fs_base;
  a.ea = ea;
  return a;
}

namespace {

// The decision with the operand of the access it designates (what access_for would decode at
// each sample), decoded now, at the miss: the chosen instruction's, or the one at pc when the
// chosen instruction touches no memory.
PcDecision with_recipe(PcDecision d, uint64_t pc) {
  if (d.choice == Choice::NoData) return d;
  uint64_t chosen = 0;
  if (d.choice == Choice::UsePrevious && d.prev_len != 0) chosen = pc - d.prev_len;
  else if (d.choice == Choice::UseOther) chosen = pc + static_cast<uint64_t>(int64_t{d.offset});
  if (chosen != 0) {
    d.access = access_recipe(chosen);
    if (d.access.kind != static_cast<uint8_t>(AccessKind::NoMemoryOperand)) return d;
  }
  d.access = access_recipe(pc);
  d.access.at_pc = true;
  return d;
}

// Miss path: one pass over the function, then the decisions for pc and for the not yet cached
// instruction starts within [pc - kBatchBefore, pc + kBatchAfter), all inserted into the cache.
PcDecision decide_and_cache_around(uint64_t start, uint64_t end, uint64_t pc) {
  const auto* code = reinterpret_cast<const uint8_t*>(start);
  const size_t len = end - start;
  ZydisDecoder local[2];
  const Decoders dec = get_decoders(local);
  Window w;
  const uint64_t first = pc >= kBatchBefore + kWindowSlack ? pc - kBatchBefore : kWindowSlack;
  w.base = first - kWindowSlack;
  const uint64_t insns = scan_function(dec.scan, code, len, start, &w);
  g_scan_insns.fetch_add(insns, std::memory_order_relaxed);
  uint64_t seen = g_scan_insns_max.load(std::memory_order_relaxed);
  while (insns > seen && !g_scan_insns_max.compare_exchange_weak(seen, insns, std::memory_order_relaxed)) {
  }
  const Code c{dec.full, code, len, start, constant_data};
  PcDecision d;
  if (decidable(len, start, pc, w)) d = decide_in_window(c, pc, w);
  d = with_recipe(d, pc);
  decode_cache_put(pc, d);
  for (uint64_t a = first; a < pc + kBatchAfter; ++a) {
    if (a == pc || !decidable(len, start, a, w)) continue;
    PcDecision other;
    if (decode_cache_get(a, &other)) continue;
    decode_cache_put(a, with_recipe(decide_in_window(c, a, w), a));
  }
  return d;
}

}  // namespace

Access resolve_sample(const SavedRegs& regs) {
  const uint64_t pc = regs.rip;
  g_lookups.fetch_add(1, std::memory_order_relaxed);
  PcDecision d;
  if (decode_cache_get(pc, &d)) {
    g_hits.fetch_add(1, std::memory_order_relaxed);
  } else {
    uint64_t start, end;
    if (function_bounds(pc, &start, &end)) {
      d = decide_and_cache_around(start, end, pc);
    } else {
      d = with_recipe(d, pc);
      decode_cache_put(pc, d);
    }
  }
  return access_for(d, regs);
}

Access access_for(const PcDecision& d, const SavedRegs& regs) {
  const uint64_t pc = regs.rip;
  if (d.choice == Choice::NoData) {
    Access none;
    none.insn = pc;
    return none;
  }
  if (d.access.valid) {
    // Decoded with the decision: no decoding per sample (issue 23).
    if (d.access.at_pc) return apply_recipe(d.access, pc, regs);
    if (d.choice == Choice::UsePrevious) return apply_recipe(d.access, pc - d.prev_len, regs);
    SavedRegs then = regs;
    for (unsigned i = 0; i < d.nfixes && i < 2; ++i) then.gpr[d.fixes[i].reg & 0xf] -= static_cast<uint64_t>(int64_t{d.fixes[i].delta});
    return apply_recipe(d.access, pc + static_cast<uint64_t>(int64_t{d.offset}), then);
  }
  if (d.choice == Choice::UsePrevious && d.prev_len != 0) {
    const Access a = access_at(pc - d.prev_len, regs);
    if (a.kind != AccessKind::NoMemoryOperand) return a;
  } else if (d.choice == Choice::UseOther) {
    SavedRegs then = regs;
    for (unsigned i = 0; i < d.nfixes && i < 2; ++i) then.gpr[d.fixes[i].reg & 0xf] -= static_cast<uint64_t>(int64_t{d.fixes[i].delta});
    const Access a = access_at(pc + static_cast<uint64_t>(int64_t{d.offset}), then);
    if (a.kind != AccessKind::NoMemoryOperand) return a;
  }
  return access_at(pc, regs);
}

DecodeStats decode_stats() {
  const PcCacheCounts c = pc_cache_counts();
  return DecodeStats{g_lookups.load(std::memory_order_relaxed), g_hits.load(std::memory_order_relaxed),
                     c.inserts, c.full, c.evictions, c.invalidate_scans, c.invalidate_slots,
                     g_scan_insns.load(std::memory_order_relaxed),
                     g_scan_insns_max.load(std::memory_order_relaxed),
                     g_operand_decodes.load(std::memory_order_relaxed)};
}

void decode_init() {
  int expected = 0;
  if (!g_decoder_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return;
  init_decoders(&g_decoder, &g_scan_decoder);
  g_decoder_state.store(2, std::memory_order_release);

  // Bind every lazily-resolved function used from the signal handler now, outside of it:
  // decode a `mov rax,[rdi+8]` and compute its address, and look up this function's bounds.
  static const uint8_t kWarm[] = {0x48, 0x8b, 0x47, 0x08};  // mov rax, [rdi+8]
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  if (ZYAN_SUCCESS(ZydisDecoderDecodeFull(&g_decoder, kWarm, sizeof kWarm, &in, ops))) {
    (void)ZydisDecoderDecodeInstruction(&g_scan_decoder, nullptr, kWarm, sizeof kWarm, &in);
    SavedRegs regs{};
    (void)access_at(reinterpret_cast<uint64_t>(kWarm), regs);
  }
  uint64_t s, e;
  (void)function_bounds(reinterpret_cast<uint64_t>(&decode_init), &s, &e);
}

}  // namespace hpcrun
