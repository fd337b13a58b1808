// See reg_values.h.
#include "reg_values.h"

#include <algorithm>
#include <numeric>

#include "hpcl/x86/operands.h"

namespace hpcl::analysis {
namespace {

constexpr size_t kMaxLoads = 1u << 14;  // per pass; a longer region's further loads are unknown
constexpr int kRsp = 4, kRbp = 5;

// Register number 0..15 of a general register of any width, or -1.
int gpr_index(ZydisRegister r) {
  const ZydisRegister g = x86::gpr64(r);
  return g == ZYDIS_REGISTER_NONE ? -1 : g - ZYDIS_REGISTER_RAX;
}

unsigned width_of(ZydisRegister r) { return ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, r); }

bool is_gpr_write(const ZydisDecodedOperand& op) {
  return op.type == ZYDIS_OPERAND_TYPE_REGISTER && (op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0 &&
         gpr_index(op.reg.value) >= 0;
}

}  // namespace

Lin Lin::constant(int64_t v) {
  Lin x;
  x.known = true;
  x.c = v;
  x.why = Unknowable::None;
  return x;
}

Lin Lin::symbol(SymId s) {
  Lin x = constant(0);
  x.n = 1;
  x.t[0] = {s, 1};
  return x;
}

Lin Lin::unknown(Unknowable why, uint64_t at) {
  Lin x;
  x.why = why;
  x.why_at = at;
  return x;
}

void Lin::add_taint(SymId load) {
  for (unsigned i = 0; i < ntaint; ++i)
    if (taint[i] == load) return;
  if (ntaint < taint.size()) taint[ntaint++] = load;
}

void Lin::add_taint_of(const Lin& v) {
  for (unsigned i = 0; i < v.ntaint; ++i) add_taint(v.taint[i]);
  if (v.known)
    for (unsigned i = 0; i < v.n; ++i)
      if (v.t[i].first >= kLoadSymBase) add_taint(v.t[i].first);
}

int64_t Lin::coef(SymId s) const {
  for (unsigned i = 0; i < n; ++i)
    if (t[i].first == s) return t[i].second;
  return 0;
}

Lin operator+(const Lin& a, const Lin& b) {
  if (!a.known || !b.known) {
    Lin r = !a.known ? a : b;
    r.add_taint_of(!a.known ? b : a);
    return r;
  }
  Lin r = Lin::constant(a.c + b.c);
  r.unk = std::gcd(a.unk, b.unk);
  if (r.unk != 0) {  // keep the reason of the unknown part
    r.why = a.unk != 0 ? a.why : b.why;
    r.why_at = a.unk != 0 ? a.why_at : b.why_at;
    r.add_taint_of(a);  // only the loads of its unknown parts: the known terms are not taint
    r.ntaint = 0;
    for (const Lin* x : {&a, &b})
      for (unsigned i = 0; i < x->ntaint; ++i) r.add_taint(x->taint[i]);
  }
  unsigned i = 0, j = 0;
  while (i < a.n || j < b.n) {
    std::pair<SymId, int64_t> next;
    if (j >= b.n || (i < a.n && a.t[i].first < b.t[j].first)) next = a.t[i++];
    else if (i >= a.n || b.t[j].first < a.t[i].first) next = b.t[j++];
    else {
      next = {a.t[i].first, a.t[i].second + b.t[j].second};
      ++i;
      ++j;
    }
    if (next.second == 0) continue;
    if (r.n == Lin::kMaxTerms) return Lin::unknown(Unknowable::Terms, 0);
    r.t[r.n++] = next;
  }
  return r;
}

Lin Lin::scaled(int64_t k) const {
  if (!known) return *this;
  if (k == 0) return constant(0);
  Lin r = *this;
  r.c *= k;
  r.unk *= k < 0 ? -k : k;
  for (unsigned i = 0; i < n; ++i) r.t[i].second *= k;
  return r;
}

Lin operator-(const Lin& a, const Lin& b) { return a + b.scaled(-1); }

Lin Lin::times(const Lin& v, int64_t k) {
  if (v.known) return v.scaled(k);
  const int64_t a = k < 0 ? -k : k;
  if (a < 2) return v;
  Lin r = constant(0);
  r.unk = a;
  r.why = v.why;
  r.why_at = v.why_at;
  r.add_taint_of(v);
  return r;
}

Lin Lin::substituted(SymId s, const Lin& v) const {
  const int64_t k = coef(s);
  if (!known || k == 0) return *this;
  Lin rest = *this - symbol(s).scaled(k);
  return rest + v.scaled(k);
}

bool operator==(const Lin& a, const Lin& b) {
  if (a.known != b.known) return false;
  if (!a.known) return true;
  if (a.c != b.c || a.n != b.n || a.unk != b.unk) return false;
  for (unsigned i = 0; i < a.n; ++i)
    if (a.t[i] != b.t[i]) return false;
  return true;
}

RegState RegionSymbols::entry_state() const {
  RegState s;
  for (SymId r = 0; r < kRegSyms; ++r) s.reg[r] = Lin::symbol(r);
  return s;
}

int RegionSymbols::cell_of(const Lin& address, bool create) {
  if (!address.is_exact() || address.n != 1 || address.t[0].second != 1) return -1;
  const SymId base = address.t[0].first;
  if (base != kRsp && base != kRbp) return -1;
  for (size_t i = 0; i < cells_.size(); ++i)
    if (cells_[i].base == base && cells_[i].offset == address.c) return static_cast<int>(i);
  if (!create || cells_.size() >= kMaxCells) return -1;
  cells_.push_back(StackCell{base, address.c});
  return static_cast<int>(cells_.size() - 1);
}

Lin RegionSymbols::read_cell(const RegState& s, int cell) const {
  for (const auto& [k, v] : s.cells)
    if (k == cell) return v;
  if (s.cells_unknown) return Lin::unknown(Unknowable::Paths, 0);
  return Lin::symbol(static_cast<SymId>(kCellSymBase + cell));
}

void RegionSymbols::write_cell(RegState& s, int cell, const Lin& v) const {
  for (auto& [k, old] : s.cells)
    if (k == cell) {
      old = v;
      return;
    }
  s.cells.emplace_back(static_cast<uint16_t>(cell), v);
}

Lin RegionSymbols::lift(const RegionSymbols& inner, SymId sym, const RegState& s) {
  if (sym < kRegSyms) return s.reg[sym];
  if (sym >= kLoadSymBase) return Lin::unknown(Unknowable::Operation, inner.load(sym).insn);
  const StackCell& c = inner.cells_[sym - kCellSymBase];
  const int cell = cell_of(s.reg[c.base] + Lin::constant(c.offset), true);
  return cell >= 0 ? read_cell(s, cell) : Lin::unknown(Unknowable::Operation, 0);
}

Lin RegionSymbols::value_of(const RegState& s, SymId sym) const {
  if (sym < kRegSyms) return s.reg[sym];
  if (sym < kLoadSymBase) return read_cell(s, sym - kCellSymBase);
  return Lin::symbol(sym);
}

Lin RegionSymbols::address_of(const RegState& s, const ZydisDecodedInstruction& in, const ZydisDecodedOperand& m,
                              uint64_t addr) const {
  Lin a = Lin::constant(m.mem.disp.has_displacement ? m.mem.disp.value : 0);
  if (m.mem.base == ZYDIS_REGISTER_RIP || m.mem.base == ZYDIS_REGISTER_EIP) {
    a = a + Lin::constant(static_cast<int64_t>(addr + in.length));
  } else if (m.mem.base != ZYDIS_REGISTER_NONE) {
    const int b = gpr_index(m.mem.base);
    if (b < 0) return Lin::unknown(Unknowable::Operation, addr);
    a = a + s.reg[static_cast<size_t>(b)];
  }
  if (m.mem.index != ZYDIS_REGISTER_NONE) {
    const int x = gpr_index(m.mem.index);
    if (x < 0) return Lin::unknown(Unknowable::Operation, addr);  // a vector index (VSIB)
    a = a + Lin::times(s.reg[static_cast<size_t>(x)], m.mem.scale == 0 ? 1 : m.mem.scale);
  }
  return a;
}

// One symbol per loading instruction and address: applying an instruction again in the same
// state (to find the state before an instruction of a block) gives the same symbol.
Lin RegionSymbols::new_load(const LoadSym& l) {
  const auto [lo, hi] = loads_by_insn_.equal_range(l.insn);
  for (auto it = lo; it != hi; ++it) {
    const LoadSym& x = loads_[it->second];
    if (x.call == l.call && x.address == l.address) return Lin::symbol(static_cast<SymId>(kLoadSymBase + it->second));
  }
  if (loads_.size() >= kMaxLoads) return Lin::unknown(Unknowable::Operation, l.insn);
  loads_by_insn_.emplace(l.insn, loads_.size());
  loads_.push_back(l);
  return Lin::symbol(static_cast<SymId>(kLoadSymBase + loads_.size() - 1));
}

Lin RegionSymbols::operand_value(const RegState& s, const ZydisDecodedInstruction& in, const ZydisDecodedOperand& op,
                                 uint64_t addr) {
  switch (op.type) {
    case ZYDIS_OPERAND_TYPE_IMMEDIATE:
      return Lin::constant(op.imm.is_signed ? op.imm.value.s : static_cast<int64_t>(op.imm.value.u));
    case ZYDIS_OPERAND_TYPE_REGISTER: {
      const int r = gpr_index(op.reg.value);
      if (r < 0) return Lin::unknown(Unknowable::Operation, addr);
      if (width_of(op.reg.value) < 32) return Lin::unknown(Unknowable::Narrow, addr);
      return s.reg[static_cast<size_t>(r)];
    }
    case ZYDIS_OPERAND_TYPE_MEMORY: {
      if (op.mem.type != ZYDIS_MEMOP_TYPE_MEM) return Lin::unknown(Unknowable::Operation, addr);
      const Lin a = address_of(s, in, op, addr);
      if (op.size >= 32) {
        const int cell = cell_of(a, true);
        if (cell >= 0) return read_cell(s, cell);
      }
      return new_load(LoadSym{addr, a, static_cast<uint8_t>(std::min<unsigned>(op.size / 8, 255)), false});
    }
    default: return Lin::unknown(Unknowable::Operation, addr);
  }
}

RegState RegionSymbols::meet(const RegState& a, const RegState& b, uint64_t at) {
  RegState r;
  r.cells_unknown = a.cells_unknown || b.cells_unknown;
  for (size_t i = 0; i < 16; ++i) r.reg[i] = a.reg[i] == b.reg[i] ? a.reg[i] : Lin::unknown(Unknowable::Paths, at);
  auto find = [](const RegState& s, uint16_t k) -> const Lin* {
    for (const auto& [c, v] : s.cells)
      if (c == k) return &v;
    return nullptr;
  };
  std::vector<uint16_t> keys;
  for (const auto& [k, v] : a.cells) keys.push_back(k);
  for (const auto& [k, v] : b.cells) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (uint16_t k : keys) {
    const Lin entry = Lin::symbol(static_cast<SymId>(kCellSymBase + k));
    const Lin gone = Lin::unknown(Unknowable::Paths, at);
    const Lin* x = find(a, k);
    const Lin* y = find(b, k);
    const Lin va = x ? *x : a.cells_unknown ? gone : entry, vb = y ? *y : b.cells_unknown ? gone : entry;
    r.cells.emplace_back(k, va == vb ? va : Lin::unknown(Unknowable::Paths, at));
  }
  return r;
}

void RegionSymbols::apply(RegState& s, const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops,
                          uint64_t addr) {
  const ZydisDecodedOperand* dst = in.operand_count_visible > 0 ? &ops[0] : nullptr;
  const unsigned nvis = in.operand_count_visible;
  // An operation's unknown result, tainted by the loads its register inputs came from.
  auto computed = [&]() {
    Lin v = Lin::unknown(Unknowable::Operation, addr);
    const x86::RegSet r = x86::reads_of(in, ops);
    for (unsigned k = 0; k < 16; ++k)
      if ((r >> k) & 1) v.add_taint_of(s.reg[k]);
    return v;
  };
  auto unknown_writes = [&](Unknowable why) {
    const x86::RegSet w = x86::writes_of(in, ops);
    const Lin v = why == Unknowable::Operation ? computed() : Lin::unknown(why, addr);
    for (unsigned r = 0; r < 16; ++r)
      if ((w >> r) & 1) s.reg[r] = v;
  };
  // Stores into stack slots (and read-modify-writes of them); other memory is not tracked.
  const int m = x86::access_operand(in, ops);
  if (m >= 0 && (ops[m].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0 && ops[m].mem.type == ZYDIS_MEMOP_TYPE_MEM) {
    const int cell = cell_of(address_of(s, in, ops[m], addr), true);
    if (cell >= 0) {
      const Lin old = read_cell(s, cell);
      Lin v = Lin::unknown(Unknowable::Operation, addr);
      const bool wide = ops[m].size >= 32;
      if (wide && m == 0 && nvis == 2) {
        const Lin src = operand_value(s, in, ops[1], addr);
        if (in.mnemonic == ZYDIS_MNEMONIC_MOV) v = src;
        else if (in.mnemonic == ZYDIS_MNEMONIC_ADD) v = old + src;
        else if (in.mnemonic == ZYDIS_MNEMONIC_SUB) v = old - src;
      } else if (wide && m == 0 && nvis == 1) {
        if (in.mnemonic == ZYDIS_MNEMONIC_INC) v = old + Lin::constant(1);
        else if (in.mnemonic == ZYDIS_MNEMONIC_DEC) v = old - Lin::constant(1);
      }
      write_cell(s, cell, v);
    }
  }
  const bool reg_dst = dst != nullptr && is_gpr_write(*dst);
  const int d = reg_dst ? gpr_index(dst->reg.value) : -1;
  auto set = [&](const Lin& v) {
    if (width_of(dst->reg.value) < 32) s.reg[static_cast<size_t>(d)] = Lin::unknown(Unknowable::Narrow, addr);
    else s.reg[static_cast<size_t>(d)] = v;
  };
  switch (in.mnemonic) {
    case ZYDIS_MNEMONIC_CDQE: return;  // sign-extends eax into rax: the same value, not wrapping
    case ZYDIS_MNEMONIC_CALL: {
      for (unsigned r : {1u, 2u, 6u, 7u, 8u, 9u, 10u, 11u}) s.reg[r] = Lin::unknown(Unknowable::Call, addr);
      // rax holds what the call returned: a symbol of its own, so that a pointer from malloc can
      // be told by the call that made it.
      s.reg[0] = new_load(LoadSym{addr, Lin::unknown(Unknowable::Call, addr), 8, true});
      return;
    }
    case ZYDIS_MNEMONIC_PUSH: {
      s.reg[kRsp] = s.reg[kRsp] - Lin::constant(8);
      const int cell = cell_of(s.reg[kRsp], true);
      if (cell >= 0) write_cell(s, cell, nvis == 1 ? operand_value(s, in, ops[0], addr) : Lin::unknown(Unknowable::Operation, addr));
      return;
    }
    case ZYDIS_MNEMONIC_POP: {
      const int cell = cell_of(s.reg[kRsp], false);
      const Lin v = cell >= 0 ? read_cell(s, cell) : Lin::unknown(Unknowable::Operation, addr);
      s.reg[kRsp] = s.reg[kRsp] + Lin::constant(8);
      if (reg_dst) set(v);
      return;
    }
    default: break;
  }
  if (!reg_dst) {
    unknown_writes(Unknowable::Operation);
    return;
  }
  const Lin cur = s.reg[static_cast<size_t>(d)];
  Lin v = Lin::unknown(Unknowable::Operation, addr);
  switch (in.mnemonic) {
    case ZYDIS_MNEMONIC_MOV:
    case ZYDIS_MNEMONIC_MOVSXD:
      if (nvis == 2) v = operand_value(s, in, ops[1], addr);
      break;
    case ZYDIS_MNEMONIC_MOVZX:
    case ZYDIS_MNEMONIC_MOVSX:
      // A narrow source: its value is data (a load) or a narrow register.
      if (nvis == 2) v = operand_value(s, in, ops[1], addr);
      break;
    case ZYDIS_MNEMONIC_LEA:
      if (nvis == 2 && ops[1].type == ZYDIS_OPERAND_TYPE_MEMORY) v = address_of(s, in, ops[1], addr);
      break;
    case ZYDIS_MNEMONIC_ADD:
    case ZYDIS_MNEMONIC_SUB:
      if (nvis == 2) {
        const Lin src = operand_value(s, in, ops[1], addr);
        v = in.mnemonic == ZYDIS_MNEMONIC_ADD ? cur + src : cur - src;
        if (in.mnemonic == ZYDIS_MNEMONIC_SUB && ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
            gpr_index(ops[1].reg.value) == d)
          v = Lin::constant(0);
      }
      break;
    case ZYDIS_MNEMONIC_XOR:
      if (nvis == 2 && ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER && gpr_index(ops[1].reg.value) == d)
        v = Lin::constant(0);
      break;
    case ZYDIS_MNEMONIC_INC: v = cur + Lin::constant(1); break;
    case ZYDIS_MNEMONIC_DEC: v = cur - Lin::constant(1); break;
    case ZYDIS_MNEMONIC_NEG: v = cur.scaled(-1); break;
    case ZYDIS_MNEMONIC_NOT: v = cur.scaled(-1) - Lin::constant(1); break;
    case ZYDIS_MNEMONIC_SHL:
      if (nvis == 2) {
        const Lin k = operand_value(s, in, ops[1], addr);
        if (k.is_constant() && k.c >= 0 && k.c < 32) v = Lin::times(cur, int64_t{1} << k.c);
      }
      break;
    case ZYDIS_MNEMONIC_IMUL:
      if (nvis == 3) {
        const Lin a = operand_value(s, in, ops[1], addr), k = operand_value(s, in, ops[2], addr);
        if (k.is_constant()) v = Lin::times(a, k.c);
      } else if (nvis == 2) {
        const Lin b = operand_value(s, in, ops[1], addr);
        if (b.is_constant()) v = Lin::times(cur, b.c);
        else if (cur.is_constant()) v = Lin::times(b, cur.c);
      }
      break;
    case ZYDIS_MNEMONIC_XCHG:
      if (nvis == 2 && is_gpr_write(ops[1])) {
        const int e = gpr_index(ops[1].reg.value);
        const Lin other = s.reg[static_cast<size_t>(e)];
        unknown_writes(Unknowable::Operation);
        if (width_of(dst->reg.value) >= 32) {
          s.reg[static_cast<size_t>(e)] = cur;
          s.reg[static_cast<size_t>(d)] = other;
        }
        return;
      }
      break;
    default: break;
  }
  if (!v.known && v.why == Unknowable::Operation && v.ntaint == 0) {
    // Its operands' loads (a memory operand's value is a load of its own).
    Lin t = computed();
    if (m >= 0 && (ops[m].actions & ZYDIS_OPERAND_ACTION_MASK_READ) != 0 && ops[m].size >= 32)
      t.add_taint_of(operand_value(s, in, ops[m], addr));
    v = t;
  }
  unknown_writes(Unknowable::Operation);  // implicit writes (rdx of mul, ...) first
  set(v);
}

const char* reg_name(unsigned reg) {
  static const char* const kNames[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                         "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
  return reg < 16 ? kNames[reg] : "?";
}

namespace {

std::string describe_depth(const Lin& v, const RegionSymbols& syms, int depth);

std::string sym_text(SymId s, const RegionSymbols& syms, int depth) {
  if (s < kRegSyms) return reg_name(s);
  if (s < kLoadSymBase) {
    const StackCell& c = syms.cells()[s - kCellSymBase];
    char buf[48];
    std::snprintf(buf, sizeof buf, "[%s%+lld]", reg_name(c.base), static_cast<long long>(c.offset));
    return buf;
  }
  if (syms.load(s).call) return "a value a call returned";
  if (depth > 2 || !syms.load(s).address.known) return "a value loaded from memory";
  return "[" + describe_depth(syms.load(s).address, syms, depth + 1) + "]";
}

std::string describe_depth(const Lin& v, const RegionSymbols& syms, int depth) {
  if (!v.known) return "?";
  std::string out;
  for (unsigned i = 0; i < v.n; ++i) {
    const auto [s, k] = v.t[i];
    if (!out.empty()) out += k < 0 ? " - " : " + ";
    else if (k < 0) out += "-";
    const int64_t a = k < 0 ? -k : k;
    if (a != 1) out += std::to_string(a) + " x ";
    out += sym_text(s, syms, depth);
  }
  if (v.c != 0 || out.empty()) {
    if (!out.empty()) out += v.c < 0 ? " - " : " + ";
    out += std::to_string(out.empty() ? v.c : (v.c < 0 ? -v.c : v.c));
  }
  return out;
}

}  // namespace

std::string describe(const Lin& v, const RegionSymbols& syms) { return describe_depth(v, syms, 0); }

}  // namespace hpcl::analysis
