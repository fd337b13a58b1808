// Instruction decoding for software address sampling. See access_decode.h for the contract.
//
// Everything in this file may run inside a signal handler of the measured program:
//   - no allocation, no locks, no stdio, no errno changes (nothing here makes a system call;
//     _dl_find_object is async-signal-safe and does not set errno),
//   - only static storage (the PC cache is a fixed table of 64-bit atomic words),
//   - bounded work per call (forward decoding is capped, see kMaxScanBytes / kMaxScanInsns),
//   - stack use per call is about 3.5 KiB (a Zydis instruction, its operands and a
//     ZydisRegisterContext), so a handler on an alternate signal stack needs at least 8 KiB.
//
// Memory reads: only code bytes are read (never data at the computed address), and only where
// they are known to be mapped: [function start, pc] was executed or lies in the same FDE-covered
// text; bytes after pc up to the bound from bounds_impl (FDE end or next FDE start); at
// a single instruction, at most to the end of its page unless the instruction spans into the
// next page (then that page is mapped too, because the instruction was fetched).
#include "access_decode.h"

#include <Zydis/Zydis.h>
#include <dlfcn.h>

#include <atomic>
#include <cstring>

namespace hpcrun {
namespace {

constexpr uint64_t kPageSize = 4096;
constexpr size_t kMaxInsnLen = 15;

// Bound on the forward decoding of one pass over a function (see the rules before
// decide_from_code).
constexpr uint64_t kMaxScanBytes = 64 * 1024;
constexpr unsigned kMaxScanInsns = 20000;

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
// Classification helpers shared by decide_from_code and access_at, so that the decision and the
// address computation agree on what "an access" is.

bool is_control_transfer(const ZydisDecodedInstruction& in) {
  if (in.meta.branch_type != ZYDIS_BRANCH_TYPE_NONE) return true;
  switch (in.meta.category) {
    case ZYDIS_CATEGORY_COND_BR:
    case ZYDIS_CATEGORY_UNCOND_BR:
    case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_RET:
    case ZYDIS_CATEGORY_SYSCALL:
    case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_INTERRUPT:
      return true;
    default:
      return false;
  }
}

// Target of a direct (relative-immediate) branch: jcc, jmp rel, call rel, loop, jrcxz, xbegin.
bool direct_branch_target(const ZydisDecodedInstruction& in, uint64_t runtime_address,
                          uint64_t* target) {
  for (const auto& imm : in.raw.imm) {
    if (imm.size != 0 && imm.is_relative) {
      *target = runtime_address + in.length + static_cast<uint64_t>(imm.value.s);
      return true;
    }
  }
  return false;
}

// The memory operand that is a data access, or -1.
//   - operand type MEMORY with memory type MEM or VSIB (AGEN = lea-style address generation and
//     MIB = MPX bound tables are not accesses) and a non-empty read/write action;
//   - explicit operands only, except for string instructions (movs, cmps, stos, lods, scas and
//     their rep forms), whose memory operands Zydis reports as hidden; implicit stack operands of
//     push/pop/call/ret are not counted;
//   - lea and nops with memory operands (nop dword [rax+rax], reserved-nop hints) are not
//     accesses; prefetches and clflush are (they touch the line);
//   - with two memory operands (movs, cmps) the source [rsi] is preferred.
int access_operand(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops) {
  if (in.mnemonic == ZYDIS_MNEMONIC_LEA || in.mnemonic == ZYDIS_MNEMONIC_NOP ||
      in.meta.category == ZYDIS_CATEGORY_NOP || in.meta.category == ZYDIS_CATEGORY_WIDENOP) {
    return -1;
  }
  const bool string_op = in.meta.category == ZYDIS_CATEGORY_STRINGOP;
  int found = -1;
  for (int i = 0; i < in.operand_count; ++i) {
    const ZydisDecodedOperand& op = ops[i];
    if (op.type != ZYDIS_OPERAND_TYPE_MEMORY) continue;
    if (op.mem.type != ZYDIS_MEMOP_TYPE_MEM && op.mem.type != ZYDIS_MEMOP_TYPE_VSIB) continue;
    if (op.actions == 0) continue;
    if (op.visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT && !string_op) continue;
    if (!string_op) return i;
    if (found < 0) found = i;
    if (op.mem.base == ZYDIS_REGISTER_RSI || op.mem.base == ZYDIS_REGISTER_ESI ||
        op.mem.base == ZYDIS_REGISTER_SI) {
      return i;
    }
  }
  return found;
}

// General-purpose register -> its 64-bit register (RAX..R15), or NONE for anything else.
ZydisRegister gpr64(ZydisRegister r) {
  if (r == ZYDIS_REGISTER_NONE) return ZYDIS_REGISTER_NONE;
  const ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
  if (big >= ZYDIS_REGISTER_RAX && big <= ZYDIS_REGISTER_R15) return big;
  return ZYDIS_REGISTER_NONE;
}

// True when the instruction writes (or may write) a general-purpose register that the address of
// operand `m` uses: its base or index. Implicit and hidden writes count (movs advances rsi/rdi).
bool overwrites_address_register(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops,
                                 const ZydisDecodedOperand& m) {
  const ZydisRegister base = gpr64(m.mem.base);
  const ZydisRegister index = gpr64(m.mem.index);
  if (base == ZYDIS_REGISTER_NONE && index == ZYDIS_REGISTER_NONE) return false;
  for (int i = 0; i < in.operand_count; ++i) {
    const ZydisDecodedOperand& op = ops[i];
    if (op.type != ZYDIS_OPERAND_TYPE_REGISTER) continue;
    if ((op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) == 0) continue;
    const ZydisRegister w = gpr64(op.reg.value);
    if (w != ZYDIS_REGISTER_NONE && (w == base || w == index)) return true;
  }
  return false;
}

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

// ------------------------------------------------------------------------------------------------
// PC cache: 64K slots of one atomic word: pc << 16 | prev_len << 8 | (choice + 1). 0 = empty.
// Open addressing within a window of kProbe slots from the hash; entries are never removed, so a
// lookup may stop at the first empty slot. Inserts CAS into the first empty slot of the window.

constexpr unsigned kCacheBits = 16;
constexpr uint64_t kCacheSlots = uint64_t{1} << kCacheBits;
constexpr unsigned kProbe = 16;

std::atomic<uint64_t> g_cache[kCacheSlots];
std::atomic<uint64_t> g_lookups{0}, g_hits{0}, g_inserts{0}, g_full{0};

static_assert(std::atomic<uint64_t>::is_always_lock_free);

uint64_t cache_hash(uint64_t pc) { return (pc * 0x9E3779B97F4A7C15ull) >> (64 - kCacheBits); }

uint64_t pack(uint64_t pc, PcDecision d) {
  return (pc << 16) | (uint64_t{d.prev_len} << 8) | (static_cast<uint64_t>(d.choice) + 1);
}

PcDecision unpack(uint64_t w) {
  PcDecision d;
  d.choice = static_cast<Choice>((w & 0xff) - 1);
  d.prev_len = static_cast<uint8_t>((w >> 8) & 0xff);
  return d;
}

bool cache_lookup(uint64_t pc, PcDecision* d) {
  const uint64_t h = cache_hash(pc);
  for (unsigned i = 0; i < kProbe; ++i) {
    const uint64_t w = g_cache[(h + i) & (kCacheSlots - 1)].load(std::memory_order_relaxed);
    if (w == 0) return false;
    if ((w >> 16) == pc) {
      *d = unpack(w);
      return true;
    }
  }
  return false;
}

void cache_insert(uint64_t pc, PcDecision d) {
  if (pc == 0 || (pc >> 48) != 0) return;  // not representable (never happens in user space)
  const uint64_t word = pack(pc, d);
  const uint64_t h = cache_hash(pc);
  for (unsigned i = 0; i < kProbe; ++i) {
    std::atomic<uint64_t>& slot = g_cache[(h + i) & (kCacheSlots - 1)];
    uint64_t expected = 0;
    if (slot.compare_exchange_strong(expected, word, std::memory_order_relaxed)) {
      g_inserts.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if ((expected >> 16) == pc) return;  // another thread inserted the same pc (same decision)
  }
  g_full.fetch_add(1, std::memory_order_relaxed);
}

// ------------------------------------------------------------------------------------------------
// .eh_frame_hdr / .eh_frame reading (DWARF pointer encodings, as used by the LSB for .eh_frame).

constexpr uint8_t DW_EH_PE_omit = 0xff;
constexpr uint8_t DW_EH_PE_absptr = 0x00;
constexpr uint8_t DW_EH_PE_uleb128 = 0x01;
constexpr uint8_t DW_EH_PE_udata2 = 0x02;
constexpr uint8_t DW_EH_PE_udata4 = 0x03;
constexpr uint8_t DW_EH_PE_udata8 = 0x04;
constexpr uint8_t DW_EH_PE_sleb128 = 0x09;
constexpr uint8_t DW_EH_PE_sdata2 = 0x0a;
constexpr uint8_t DW_EH_PE_sdata4 = 0x0b;
constexpr uint8_t DW_EH_PE_sdata8 = 0x0c;
constexpr uint8_t DW_EH_PE_pcrel = 0x10;
constexpr uint8_t DW_EH_PE_datarel = 0x30;
constexpr uint8_t DW_EH_PE_indirect = 0x80;

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint64_t read_uleb(const uint8_t*& p) {
  uint64_t v = 0;
  unsigned shift = 0;
  for (int i = 0; i < 10; ++i) {
    const uint8_t b = *p++;
    if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
    shift += 7;
    if ((b & 0x80) == 0) break;
  }
  return v;
}

int64_t read_sleb(const uint8_t*& p) {
  int64_t v = 0;
  unsigned shift = 0;
  uint8_t b = 0;
  for (int i = 0; i < 10; ++i) {
    b = *p++;
    if (shift < 64) v |= static_cast<int64_t>(uint64_t{b & 0x7fu} << shift);
    shift += 7;
    if ((b & 0x80) == 0) break;
  }
  if (shift < 64 && (b & 0x40) != 0) v |= -(int64_t{1} << shift);
  return v;
}

// Reads the value part of an encoded pointer (low nibble: format); advances p.
bool read_format(const uint8_t*& p, uint8_t enc, uint64_t* out) {
  switch (enc & 0x0f) {
    case DW_EH_PE_absptr:
    case DW_EH_PE_udata8: *out = load<uint64_t>(p); p += 8; return true;
    case DW_EH_PE_sdata8: *out = static_cast<uint64_t>(load<int64_t>(p)); p += 8; return true;
    case DW_EH_PE_udata4: *out = load<uint32_t>(p); p += 4; return true;
    case DW_EH_PE_sdata4: *out = static_cast<uint64_t>(int64_t{load<int32_t>(p)}); p += 4; return true;
    case DW_EH_PE_udata2: *out = load<uint16_t>(p); p += 2; return true;
    case DW_EH_PE_sdata2: *out = static_cast<uint64_t>(int64_t{load<int16_t>(p)}); p += 2; return true;
    case DW_EH_PE_uleb128: *out = read_uleb(p); return true;
    case DW_EH_PE_sleb128: *out = static_cast<uint64_t>(read_sleb(p)); return true;
    default: return false;
  }
}

// Full encoded pointer: absolute, pc-relative or data-relative (datarel base given); no indirect.
bool read_encoded(const uint8_t*& p, uint8_t enc, uint64_t datarel_base, uint64_t* out) {
  if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect) != 0) return false;
  const uint64_t field = reinterpret_cast<uint64_t>(p);
  uint64_t v;
  if (!read_format(p, enc, &v)) return false;
  switch (enc & 0x70) {
    case 0x00: break;
    case DW_EH_PE_pcrel: v += field; break;
    case DW_EH_PE_datarel: v += datarel_base; break;
    default: return false;
  }
  *out = v;
  return true;
}

// pc_range of the FDE at `fde` (address range it covers), using its CIE's 'R' encoding.
bool fde_pc_range(const uint8_t* fde, uint64_t* range) {
  if (load<uint32_t>(fde) == 0xffffffffu || load<uint32_t>(fde) == 0) return false;
  const uint8_t* cie_field = fde + 4;
  const uint32_t cie_off = load<uint32_t>(cie_field);
  if (cie_off == 0) return false;  // this is a CIE, not an FDE
  const uint8_t* cie = cie_field - cie_off;
  if (load<uint32_t>(cie) == 0xffffffffu || load<uint32_t>(cie + 4) != 0) return false;
  const uint8_t* p = cie + 8;
  const uint8_t version = *p++;
  if (version != 1 && version != 3) return false;
  const char* aug = reinterpret_cast<const char*>(p);
  size_t aug_len = 0;
  while (aug_len < 16 && aug[aug_len] != '\0') ++aug_len;
  if (aug_len == 16) return false;
  p += aug_len + 1;
  (void)read_uleb(p);  // code alignment factor
  (void)read_sleb(p);  // data alignment factor
  if (version == 1) {
    ++p;  // return address register
  } else {
    (void)read_uleb(p);
  }
  uint8_t fde_enc = DW_EH_PE_absptr;
  if (aug_len > 0) {
    if (aug[0] != 'z') return false;
    (void)read_uleb(p);  // augmentation data length
    for (size_t i = 1; i < aug_len; ++i) {
      switch (aug[i]) {
        case 'R': fde_enc = *p++; break;
        case 'L': ++p; break;
        case 'P': {
          const uint8_t penc = *p++;
          uint64_t ignored;
          if (!read_format(p, penc, &ignored)) return false;
          break;
        }
        case 'S':
        case 'B':
        case 'G': break;
        default: return false;  // unknown augmentation: cannot find the FDE fields safely
      }
    }
  }
  const uint8_t* q = fde + 8;
  uint64_t ignored;
  if ((fde_enc & 0x0f) == DW_EH_PE_uleb128 || (fde_enc & 0x0f) == DW_EH_PE_sleb128) return false;
  if (!read_format(q, fde_enc, &ignored)) return false;   // pc_begin
  if (!read_format(q, fde_enc & 0x0f, range)) return false;  // pc_range: format only, unsigned
  return true;
}

// function_bounds: the FDE covering pc; `end` is the FDE end (or the next FDE start when the FDE
// cannot be parsed), so [start, end) is mapped code.
bool bounds_impl(uint64_t pc, uint64_t* start, uint64_t* end) {
  dl_find_object r;
  if (_dl_find_object(reinterpret_cast<void*>(pc), &r) != 0) return false;
  if (r.dlfo_eh_frame == nullptr) return false;
  const uint8_t* hdr = static_cast<const uint8_t*>(r.dlfo_eh_frame);
  const uint64_t base = reinterpret_cast<uint64_t>(hdr);
  if (hdr[0] != 1) return false;
  const uint8_t eh_frame_ptr_enc = hdr[1], fde_count_enc = hdr[2], table_enc = hdr[3];
  if (table_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4)) return false;
  const uint8_t* p = hdr + 4;
  uint64_t v;
  if (!read_encoded(p, eh_frame_ptr_enc, base, &v)) return false;
  uint64_t count;
  if (!read_encoded(p, fde_count_enc, base, &count) || count == 0) return false;
  const uint8_t* table = p;  // count pairs of (int32 initial_location, int32 fde), datarel
  auto loc = [&](uint64_t i) { return base + static_cast<uint64_t>(int64_t{load<int32_t>(table + 8 * i)}); };
  if (pc < loc(0)) return false;
  uint64_t lo = 0, hi = count;  // invariant: loc(lo) <= pc, and loc(hi) > pc or hi == count
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (loc(mid) <= pc) lo = mid; else hi = mid;
  }
  const uint64_t s = loc(lo);
  const bool last = lo + 1 == count;
  uint64_t e = last ? reinterpret_cast<uint64_t>(r.dlfo_map_end) : loc(lo + 1);
  const uint8_t* fde =
      reinterpret_cast<const uint8_t*>(base + static_cast<uint64_t>(int64_t{load<int32_t>(table + 8 * lo + 4)}));
  uint64_t range;
  if (fde_pc_range(fde, &range)) {
    if (pc - s >= range) return false;  // pc lies after the function (padding, code without FDE)
    if (s + range < e) e = s + range;
  } else if (last) {
    // Without the FDE's length the mapping end could lie past holes between segments; do not
    // guess for the last FDE (after it come the non-code sections).
    return false;
  }
  *start = s;
  *end = e;
  return true;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// The decision rules (decide_from_code), in order; the first that applies wins.
//   U1. pc outside [func_start, func_start + len)                                  -> Unknown
//   U2. decoding forward from func_start does not land exactly on pc (pc inside an instruction,
//       or an undecodable byte (data in code) before pc), or reaching pc needs 64 KiB of code or
//       more, or 20000 instructions or more (kMaxScanBytes / kMaxScanInsns)        -> Unknown
//   C1. pc == func_start (no previous instruction in the function)                 -> UseCurrent
//   C2. the previous instruction transfers control (jcc, jmp, call, ret, loop, syscall, int;
//       direct or indirect)                                                        -> UseCurrent
//   C3. a direct branch (relative jcc/jmp/call/loop/jrcxz/xbegin) anywhere in the scanned part of
//       the function targets an address in (previous, pc], i.e. pc itself or the middle of the
//       previous instruction (e.g. a jump over a lock prefix): control may reach pc without
//       executing the previous instruction as decoded. The scan continues past pc to the end of
//       the function, because loop back-edges come after their head; it stops at the end of the
//       function, at 64 KiB from its start or after 20000 instructions in all, whichever comes
//       first (a branch to pc from beyond that is not seen). Bytes that do not decode are skipped
//       one at a time (this can only add targets, i.e. make C3 more likely).   -> UseCurrent
//   C4. the previous instruction has no memory operand that is a data access (see
//       access_operand: lea, nops, MPX bound-table forms and implicit stack operands are not;
//       prefetch, clflush and string instructions are)                             -> UseCurrent
//   C5. the previous instruction writes (possibly conditionally, explicitly or implicitly) a
//       general-purpose register its accessed address uses as base or index: mov rax,[rax],
//       mov rbx,[rax+rbx*8], mov eax,[rax], movs/stos/lods (advance rsi/rdi)     -> UseCurrent
//   P.  otherwise                                                   -> UsePrevious(prev length)
//
// One linear pass over the function gives the instruction starts and the branch targets in a
// window of addresses; every instruction start in the window can then be decided without another
// pass. resolve_sample uses that on a miss to also cache the decisions of the instructions around
// the sampled pc (a hot loop is then decoded once, not once per sampled pc); the result for each
// pc is exactly what decide_from_code gives for it alone.
namespace {

constexpr unsigned kWindowWords = 5;                // 320 bits of instruction starts / targets
constexpr uint64_t kBatchBefore = 128, kBatchAfter = 128;  // decided around a missed pc
constexpr uint64_t kWindowSlack = 16;               // room for the previous instruction
static_assert(kWindowSlack + kBatchBefore + kBatchAfter <= 64 * kWindowWords);

struct Window {
  uint64_t base = 0;  // runtime address of bit 0
  uint64_t starts[kWindowWords] = {};
  uint64_t targets[kWindowWords] = {};

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
};

// The linear pass. An address is recorded as an instruction start when the decode from the
// function start reached it exactly, with no undecodable byte before it, fewer than kMaxScanInsns
// instructions before it, and less than kMaxScanBytes from the start.
void scan_function(const ZydisDecoder* scan, const uint8_t* code, size_t len, uint64_t func_start, Window* w) {
  const uint64_t scan_end = len < kMaxScanBytes ? len : kMaxScanBytes;
  ZydisDecodedInstruction in;
  uint64_t off = 0;
  unsigned insns = 0;
  bool aligned = true;
  while (off < scan_end && insns < kMaxScanInsns) {
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
    if (direct_branch_target(in, at, &t)) Window::set(w->targets, w->base, t);
    off += in.length;
  }
}

// Rules C1..C5 for an instruction start `pc` of the window (U1/U2 already checked).
PcDecision decide_in_window(const ZydisDecoder* full, const uint8_t* code, uint64_t func_start, uint64_t pc,
                            const Window& w) {
  PcDecision cur;
  cur.choice = Choice::UseCurrent;
  if (pc == func_start) return cur;  // C1
  uint64_t prev = pc;
  for (uint64_t k = 1; k <= kMaxInsnLen && pc - k >= func_start; ++k) {
    if (w.is_start(pc - k)) {
      prev = pc - k;
      break;
    }
  }
  PcDecision unknown;
  if (prev == pc) return unknown;  // cannot happen for a recorded start after the first
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(full, code + (prev - func_start), pc - prev, &in, ops))) return unknown;
  if (in.length != pc - prev) return unknown;
  if (is_control_transfer(in)) return cur;  // C2
  for (uint64_t a = prev + 1; a <= pc; ++a) {
    if (w.is_target(a)) return cur;  // C3
  }
  const int m = access_operand(in, ops);
  if (m < 0) return cur;                                        // C4
  if (overwrites_address_register(in, ops, ops[m])) return cur;  // C5
  PcDecision p;
  p.choice = Choice::UsePrevious;
  p.prev_len = in.length;
  return p;
}

bool decidable(size_t len, uint64_t func_start, uint64_t pc, const Window& w) {
  return pc >= func_start && pc - func_start < len && pc - func_start < kMaxScanBytes && w.is_start(pc);
}

}  // namespace

PcDecision decide_from_code(const uint8_t* code, size_t len, uint64_t func_start, uint64_t pc) {
  PcDecision unknown;
  if (pc < func_start || pc - func_start >= len) return unknown;  // U1
  ZydisDecoder local[2];
  const Decoders dec = get_decoders(local);
  Window w;
  w.base = pc >= kWindowSlack ? pc - kWindowSlack : 0;
  scan_function(dec.scan, code, len, func_start, &w);
  if (!decidable(len, func_start, pc, w)) return unknown;  // U2
  return decide_in_window(dec.full, code, func_start, pc, w);
}

bool function_bounds(uint64_t pc, uint64_t* start, uint64_t* end) { return bounds_impl(pc, start, end); }

Access access_at(uint64_t insn, const SavedRegs& regs) {
  Access a;
  a.insn = insn;
  ZydisDecoder local[2];
  const Decoders dec = get_decoders(local);
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
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
  scan_function(dec.scan, code, len, start, &w);
  PcDecision d;
  if (decidable(len, start, pc, w)) d = decide_in_window(dec.full, code, start, pc, w);
  cache_insert(pc, d);
  for (uint64_t a = first; a < pc + kBatchAfter; ++a) {
    if (a == pc || !decidable(len, start, a, w)) continue;
    PcDecision other;
    if (cache_lookup(a, &other)) continue;
    cache_insert(a, decide_in_window(dec.full, code, start, a, w));
  }
  return d;
}

}  // namespace

Access resolve_sample(const SavedRegs& regs) {
  const uint64_t pc = regs.rip;
  g_lookups.fetch_add(1, std::memory_order_relaxed);
  PcDecision d;
  if (cache_lookup(pc, &d)) {
    g_hits.fetch_add(1, std::memory_order_relaxed);
  } else {
    uint64_t start, end;
    if (bounds_impl(pc, &start, &end)) {
      d = decide_and_cache_around(start, end, pc);
    } else {
      cache_insert(pc, d);
    }
  }
  if (d.choice == Choice::UsePrevious && d.prev_len != 0) {
    const Access a = access_at(pc - d.prev_len, regs);
    if (a.kind != AccessKind::NoMemoryOperand) return a;
  }
  return access_at(pc, regs);
}

DecodeStats decode_stats() {
  return DecodeStats{g_lookups.load(std::memory_order_relaxed), g_hits.load(std::memory_order_relaxed),
                     g_inserts.load(std::memory_order_relaxed), g_full.load(std::memory_order_relaxed)};
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
  (void)bounds_impl(reinterpret_cast<uint64_t>(&decode_init), &s, &e);
}

}  // namespace hpcrun
