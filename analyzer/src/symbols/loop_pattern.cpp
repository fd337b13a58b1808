// See loop_pattern.h. One pass per loop level: the loop's body (or, for the function level, the
// whole function) is walked once in reverse postorder from its header, each block starting from
// the meet of its forward predecessors (back edges left out), every register and stack slot
// starting as its own symbol at the header. An inner loop is entered with the state its
// preheaders give (kept as its entry state) and its header then forgets whatever the inner loop
// writes. The state at a latch, compared with the header's symbols, gives each register's step per
// iteration: unchanged (invariant), plus a constant or an invariant (an induction variable),
// loaded through itself (chased), or anything else (varying). The access's address, linear in the
// header's symbols, then has a stride (the sum of its induction variables' steps, times their
// coefficients), and the entry states of the enclosing levels carry it up to the function's entry.
#include "loop_pattern.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <map>
#include <memory>

#include "reg_values.h"
#include "hpcl/x86/operands.h"

namespace hpcl::analysis {

const char* pattern_kind_name(PatternKind kind) {
  switch (kind) {
    case PatternKind::Sequential: return "sequential";
    case PatternKind::Strided: return "strided";
    case PatternKind::Indirect: return "indirect";
    case PatternKind::Dependent: return "dependent";
    case PatternKind::Unknown: break;
  }
  return "unknown";
}

namespace {

constexpr int64_t kLine = 64;

struct Pass {
  int loop = -1;
  RegionSymbols syms;
  std::vector<RegState> in, out;
  std::vector<char> done;
  std::map<int, RegState> child_entry;  // inner loop -> the state its preheaders give
};

enum class StepKind { Invariant, Induction, Chased, Varying };
enum class Motion { Invariant, Induction, Chased, Indirect, Varying };
struct Step {
  StepKind kind = StepKind::Varying;
  Lin delta;  // Induction: added per iteration (invariant symbols and a constant)
  Lin end;    // the value at the (first) latch
};

// Stores into the stack (base rsp or rbp, no index) of a loop, by base register and offset.
struct LoopWrites {
  uint64_t regs = 0;
  std::vector<std::pair<uint8_t, int64_t>> stack;
};

class Analysis {
 public:
  explicit Analysis(const FunctionCode& f) : f_(f) {}

  Pass& pass(int loop);
  RegState state_before(Pass& p, int insn);
  Step step_of(Pass& p, SymId s, int depth = 0);
  // How symbol t moves from one iteration to the next, loads followed to their addresses; *why
  // gets the value behind a Varying answer.
  Motion motion(Pass& p, SymId t, Lin* why, int depth = 0);
  // A value of level `loop` expressed at the function's entry, when every symbol it uses is
  // invariant in each enclosing loop on the way; unknown otherwise.
  Lin resolve_up(Lin x, int loop);
  int parent(int loop) const { return loop < 0 ? -1 : f_.loops()[static_cast<size_t>(loop)].parent; }
  // Loop c lies strictly inside `outer` (-1: the function).
  bool inside(int c, int outer) const {
    for (int x = parent(c); ; x = parent(x)) {
      if (x == outer) return true;
      if (x < 0) return false;
    }
  }

 private:
  const LoopWrites& writes(int loop);
  void kill_inner(RegState& s, int loop, const Pass& p);
  RegState edge_state(const Pass& p, int q, int b) const;

  const FunctionCode& f_;
  std::map<int, std::unique_ptr<Pass>> passes_;
  std::map<int, LoopWrites> writes_;
};

const LoopWrites& Analysis::writes(int loop) {
  auto it = writes_.find(loop);
  if (it != writes_.end()) return it->second;
  LoopWrites w;
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  for (int b : f_.loops()[static_cast<size_t>(loop)].blocks) {
    const CodeBlock& blk = f_.blocks()[static_cast<size_t>(b)];
    for (uint32_t i = blk.first; i <= blk.last; ++i) {
      if (!f_.decode(static_cast<int>(i), &in, ops)) continue;
      w.regs |= x86::writes_of(in, ops) & 0xffff;
      if (in.mnemonic == ZYDIS_MNEMONIC_CALL) w.regs |= 0x0fc7;  // caller-saved
      const int m = x86::access_operand(in, ops);
      if (m >= 0 && (ops[m].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0 && x86::stack_only(ops[m]))
        w.stack.emplace_back(static_cast<uint8_t>(x86::gpr64(ops[m].mem.base) - ZYDIS_REGISTER_RAX),
                             ops[m].mem.disp.has_displacement ? ops[m].mem.disp.value : 0);
      if (in.mnemonic == ZYDIS_MNEMONIC_PUSH || in.mnemonic == ZYDIS_MNEMONIC_CALL) w.stack.emplace_back(4, INT64_MIN);
    }
  }
  return writes_.emplace(loop, std::move(w)).first->second;
}

// What an inner loop writes is unknown at its header, seen from the enclosing level.
void Analysis::kill_inner(RegState& s, int loop, const Pass& p) {
  const LoopWrites& w = writes(loop);
  const uint64_t at = f_.insns()[f_.blocks()[static_cast<size_t>(f_.loops()[static_cast<size_t>(loop)].header)].first].addr;
  for (unsigned r = 0; r < 16; ++r)
    if ((w.regs >> r) & 1) s.reg[r] = Lin::unknown(Unknowable::InnerLoop, at);
  for (const auto& [base, off] : w.stack) {
    if (off == INT64_MIN) {  // pushes and calls: the slots below rsp
      s.cells_unknown = true;
      continue;
    }
    // The slot [base + off] as the state names it: base's value at this point, plus off.
    const Lin addr = s.reg[base] + Lin::constant(off);
    for (size_t c = 0; c < p.syms.cells().size(); ++c) {
      const StackCell& cell = p.syms.cells()[c];
      if (addr.is_exact() && addr.n == 1 && addr.t[0] == std::pair<SymId, int64_t>{cell.base, 1} && addr.c == cell.offset) {
        bool found = false;
        for (auto& [k, v] : s.cells)
          if (k == c) v = Lin::unknown(Unknowable::InnerLoop, at), found = true;
        if (!found) s.cells.emplace_back(static_cast<uint16_t>(c), Lin::unknown(Unknowable::InnerLoop, at));
      }
    }
  }
}

// The state along edge q -> b: q's, plus what a `cmp r1, r2` before a je/jne says on the edge
// where they are equal. A loop that runs until `cmp %rdx,%rax; jne` leaves rax equal to rdx, and
// compilers derive the next row from it; the enclosing level, which forgot rax in the inner loop,
// gets it back on the exit edge.
RegState Analysis::edge_state(const Pass& p, int q, int b) const {
  RegState s = p.out[static_cast<size_t>(q)];
  const CodeBlock& blk = f_.blocks()[static_cast<size_t>(q)];
  if (blk.last == blk.first) return s;
  const CodeInsn& jcc = f_.insns()[blk.last];
  if (jcc.flow != CodeInsn::Flow::CondJump) return s;
  ZydisDecodedInstruction j, c;
  ZydisDecodedOperand jops[ZYDIS_MAX_OPERAND_COUNT], cops[ZYDIS_MAX_OPERAND_COUNT];
  if (!f_.decode(static_cast<int>(blk.last), &j, jops) || !f_.decode(static_cast<int>(blk.last) - 1, &c, cops)) return s;
  if (c.mnemonic != ZYDIS_MNEMONIC_CMP || c.operand_count_visible != 2) return s;
  const int taken = f_.insn_at(jcc.target);
  const int fall = static_cast<int>(blk.last) + 1 < static_cast<int>(f_.insns().size()) ? static_cast<int>(blk.last) + 1 : -1;
  if (taken >= 0 && fall >= 0 && f_.block_of(taken) == f_.block_of(fall)) return s;
  const bool to_taken = taken >= 0 && f_.block_of(taken) == b;
  const bool equal_edge = (j.mnemonic == ZYDIS_MNEMONIC_JZ && to_taken) || (j.mnemonic == ZYDIS_MNEMONIC_JNZ && !to_taken);
  if (!equal_edge) return s;
  auto reg_of = [](const ZydisDecodedOperand& op) {
    if (op.type != ZYDIS_OPERAND_TYPE_REGISTER) return -1;
    if (ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, op.reg.value) < 32) return -1;
    const ZydisRegister g = x86::gpr64(op.reg.value);
    return g == ZYDIS_REGISTER_NONE ? -1 : g - ZYDIS_REGISTER_RAX;
  };
  const int r1 = reg_of(cops[0]), r2 = reg_of(cops[1]);
  if (r1 < 0) return s;
  Lin& x = s.reg[static_cast<size_t>(r1)];
  if (r2 >= 0) {
    Lin& y = s.reg[static_cast<size_t>(r2)];
    if (!x.known && y.known) x = y;
    else if (x.known && !y.known) y = x;
  } else if (cops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && !x.known) {
    x = Lin::constant(cops[1].imm.value.s);
  }
  return s;
}

Pass& Analysis::pass(int loop) {
  auto it = passes_.find(loop);
  if (it != passes_.end()) return *it->second;
  auto p = std::make_unique<Pass>();
  p->loop = loop;
  const size_t nb = f_.blocks().size();
  p->in.resize(nb);
  p->out.resize(nb);
  p->done.assign(nb, 0);
  const CodeLoop* self = loop >= 0 ? &f_.loops()[static_cast<size_t>(loop)] : nullptr;
  auto in_region = [&](int b) { return self == nullptr || self->contains(b); };
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  for (int b : f_.order()) {
    if (!in_region(b)) continue;
    const CodeBlock& blk = f_.blocks()[static_cast<size_t>(b)];
    const uint64_t at = f_.insns()[blk.first].addr;
    RegState s;
    if ((self != nullptr && b == self->header) || (self == nullptr && b == 0)) {
      s = p->syms.entry_state();
    } else {
      bool any = false;
      for (int q : blk.pred) {
        if (!in_region(q) || !p->done[static_cast<size_t>(q)] || f_.dominates(b, q) || !f_.joins(q, b)) continue;
        const RegState e = edge_state(*p, q, b);
        s = any ? RegionSymbols::meet(s, e, at) : e;
        any = true;
      }
      if (!any) {  // reached only through a jump table (or an irreducible edge): nothing known
        for (Lin& r : s.reg) r = Lin::unknown(Unknowable::Paths, at);
        s.cells_unknown = true;
      }
    }
    // The header of an inner loop: remember how it is entered, then forget what it changes.
    // (Loops of a rotated nest share a header: each is entered with the state before any kill.)
    std::vector<int> children;
    for (size_t c = 0; c < f_.loops().size(); ++c)
      if (f_.loops()[c].header == b && inside(static_cast<int>(c), loop)) children.push_back(static_cast<int>(c));
    for (int c : children) p->child_entry[c] = s;
    for (int c : children) kill_inner(s, c, *p);
    p->in[static_cast<size_t>(b)] = s;
    for (uint32_t i = blk.first; i <= blk.last; ++i)
      if (f_.decode(static_cast<int>(i), &in, ops)) p->syms.apply(s, in, ops, f_.insns()[i].addr);
    p->out[static_cast<size_t>(b)] = std::move(s);
    p->done[static_cast<size_t>(b)] = 1;
  }
  return *passes_.emplace(loop, std::move(p)).first->second;
}

RegState Analysis::state_before(Pass& p, int insn) {
  const int b = f_.block_of(insn);
  RegState s = p.in[static_cast<size_t>(b)];
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  for (uint32_t i = f_.blocks()[static_cast<size_t>(b)].first; i < static_cast<uint32_t>(insn); ++i)
    if (f_.decode(static_cast<int>(i), &in, ops)) p.syms.apply(s, in, ops, f_.insns()[i].addr);
  return s;
}

Step Analysis::step_of(Pass& p, SymId s, int depth) {
  Step st;
  if (p.loop < 0) {  // the function's entry values do not iterate
    st.kind = StepKind::Invariant;
    return st;
  }
  if (p.syms.is_load(s)) {
    // A value loaded in the loop: invariant when loaded from an invariant address (a field the
    // compiler reloads); a load from a moving address is data (indirect), not a step.
    const LoadSym& l = p.syms.load(s);
    st.end = Lin::symbol(s);
    if (l.call || !l.address.is_exact() || depth > 3) return st;
    for (unsigned i = 0; i < l.address.n; ++i)
      if (step_of(p, l.address.t[i].first, depth + 1).kind != StepKind::Invariant) return st;
    st.kind = StepKind::Invariant;
    return st;
  }
  const CodeLoop& loop = f_.loops()[static_cast<size_t>(p.loop)];
  bool first = true;
  for (int u : loop.latches) {
    if (!p.done[static_cast<size_t>(u)]) continue;
    const Lin e = p.syms.value_of(p.out[static_cast<size_t>(u)], s);
    if (first) st.end = e;
    else if (!(st.end == e)) {
      st.end = Lin::unknown(Unknowable::Paths, f_.insns()[f_.blocks()[static_cast<size_t>(loop.header)].first].addr);
      return st;
    }
    first = false;
  }
  if (first) return st;
  const Lin& e = st.end;
  if (e == Lin::symbol(s)) {
    st.kind = StepKind::Invariant;
    return st;
  }
  if (!e.is_exact() || depth > 3) return st;
  if (e.coef(s) == 1) {
    const Lin d = e - Lin::symbol(s);
    for (unsigned i = 0; i < d.n; ++i)
      if (step_of(p, d.t[i].first, depth + 1).kind != StepKind::Invariant) return st;
    st.kind = StepKind::Induction;
    st.delta = d;
    return st;
  }
  // A register set each iteration to another's old value plus a constant (`mov %rcx,%rax` where
  // rcx steps by d) steps by d too when its entry value is that sum minus d: rotated loop nests
  // compute the next row's start this way.
  if (e.n == 1 && e.t[0].second == 1 && e.t[0].first != s && e.t[0].first < kLoadSymBase) {
    const SymId t = e.t[0].first;
    const Step other = step_of(p, t, depth + 1);
    if (other.kind == StepKind::Induction && other.delta.is_constant()) {
      Pass& up = pass(parent(p.loop));
      auto entry = up.child_entry.find(p.loop);
      if (entry != up.child_entry.end()) {
        RegionSymbols& ups = up.syms;
        const Lin gap = ups.lift(p.syms, t, entry->second) + Lin::constant(e.c) - ups.lift(p.syms, s, entry->second);
        if (gap.is_constant() && gap.c == other.delta.c) {
          st.kind = StepKind::Induction;
          st.delta = other.delta;
          return st;
        }
      }
    }
  }
  // p = p->next: the register is reloaded through an address that uses its own old value.
  for (unsigned i = 0; i < e.n; ++i) {
    const SymId t = e.t[i].first;
    if (!p.syms.is_load(t) || p.syms.load(t).call) continue;
    if (p.syms.load(t).address.coef(s) != 0) {
      st.kind = StepKind::Chased;
      return st;
    }
  }
  return st;
}

Motion Analysis::motion(Pass& p, SymId t, Lin* why, int depth) {
  if (!p.syms.is_load(t)) {
    const Step st = step_of(p, t);
    if (why != nullptr) *why = st.end;
    switch (st.kind) {
      case StepKind::Invariant: return Motion::Invariant;
      case StepKind::Induction: return Motion::Induction;
      case StepKind::Chased: return Motion::Chased;
      case StepKind::Varying: break;
    }
    return Motion::Varying;
  }
  const LoadSym& l = p.syms.load(t);
  if (!l.call && !l.address.is_exact() && depth <= 3) {
    // A load through a computed address: moves like the loads it was computed from.
    for (unsigned k = 0; k < l.address.ntaint; ++k) {
      const Motion mo = motion(p, l.address.taint[k], nullptr, depth + 1);
      if (mo == Motion::Chased) return Motion::Chased;
      if (mo == Motion::Induction || mo == Motion::Indirect) return Motion::Indirect;
    }
  }
  if (l.call || !l.address.is_exact() || depth > 3) {
    if (why != nullptr) *why = l.call ? Lin::unknown(Unknowable::Call, l.insn) : l.address;
    return p.loop < 0 ? Motion::Invariant : Motion::Varying;
  }
  Motion worst = Motion::Invariant;
  for (unsigned i = 0; i < l.address.n; ++i) {
    const Motion m = motion(p, l.address.t[i].first, why, depth + 1);
    if (m == Motion::Chased) return Motion::Chased;
    if (m == Motion::Induction || m == Motion::Indirect) worst = Motion::Indirect;
    else if (m == Motion::Varying && worst == Motion::Invariant) worst = Motion::Varying;
  }
  return worst;
}

Lin Analysis::resolve_up(Lin x, int loop) {
  while (x.known && loop >= 0) {
    const int up = parent(loop);
    Pass& pp = pass(up);
    auto it = pp.child_entry.find(loop);
    if (it == pp.child_entry.end()) return Lin::unknown(Unknowable::Paths, 0);
    Pass& here = pass(loop);
    Lin y = Lin::constant(x.c);
    for (unsigned i = 0; i < x.n; ++i) {
      const auto [t, k] = x.t[i];
      if (here.syms.is_load(t)) return Lin::unknown(Unknowable::Operation, here.syms.load(t).insn);
      const Lin v = pp.syms.lift(here.syms, t, it->second);
      for (unsigned j = 0; j < v.n && v.known; ++j)
        if (step_of(pp, v.t[j].first).kind != StepKind::Invariant)
          return Lin::unknown(Unknowable::InnerLoop, 0);
      y = y + v.scaled(k);
    }
    x = y;
    loop = up;
  }
  return x;
}

// The text of why a value is unknown, naming the register and the operation; *at gets the
// instruction to blame (0: none), which the caller names by its source line.
std::string why_text(const Lin& v, const char* what, const FunctionCode& f, uint64_t* at) {
  *at = 0;
  if (v.is_exact()) return std::string(what) + " changes by an amount that is not constant from one iteration to the next";
  *at = v.why_at;
  switch (v.why) {
    case Unknowable::Call: return std::string("a call in the loop overwrites ") + what;
    case Unknowable::Paths: return std::string(what) + " changes differently on the loop's paths";
    case Unknowable::InnerLoop: return std::string(what) + " changes in an inner loop";
    case Unknowable::Narrow: return std::string(what) + " is written in part (8 or 16 bits)";
    case Unknowable::Terms: return std::string(what) + " combines too many values";
    case Unknowable::Operation:
    case Unknowable::None: break;
  }
  std::string op = "an operation";
  const int i = v.why_at != 0 ? f.insn_at(v.why_at) : -1;
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  if (i >= 0 && f.decode(i, &in, ops)) op = std::string("`") + ZydisMnemonicGetString(in.mnemonic) + "`";
  return std::string(what) + " is computed by " + op + ", an operation whose steps the analysis does not follow";
}

std::string reg_text(SymId s, const RegionSymbols& syms) {
  if (s < kRegSyms) return std::string("%") + reg_name(s);
  if (s < kLoadSymBase) {
    const StackCell& c = syms.cells()[s - kCellSymBase];
    return "the stack slot " + std::to_string(c.offset) + "(%" + reg_name(c.base) + ")";
  }
  return "a loaded value";
}

// Bytes each 64-byte line the group's accesses touch that they use, as a share; and whether the
// accesses cover the whole stride (sequential).
struct Coverage {
  bool covers = false;
  double line_use = 0;
};

Coverage coverage(const std::vector<std::pair<int64_t, uint32_t>>& ranges, int64_t stride) {
  Coverage c;
  const int64_t S = std::llabs(stride);
  if (S == 0) {
    c.covers = true;
    c.line_use = 1;
    return c;
  }
  // Byte ranges within one period [0, S), split where they wrap.
  std::vector<std::pair<int64_t, int64_t>> iv;
  for (auto [off, size] : ranges) {
    if (size == 0) continue;
    int64_t o = off % S;
    if (o < 0) o += S;
    int64_t len = std::min<int64_t>(size, S);
    if (o + len <= S) iv.emplace_back(o, o + len);
    else iv.emplace_back(o, S), iv.emplace_back(0, o + len - S);
  }
  std::sort(iv.begin(), iv.end());
  int64_t used = 0, cur_lo = -1, cur_hi = -1;
  std::vector<int64_t> lines;
  for (auto [lo, hi] : iv) {
    for (int64_t l = lo / kLine; l <= (hi - 1) / kLine; ++l) lines.push_back(l);
    if (lo > cur_hi) {
      used += cur_hi - cur_lo;
      cur_lo = lo;
      cur_hi = hi;
    } else {
      cur_hi = std::max(cur_hi, hi);
    }
  }
  used += cur_hi - cur_lo;
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  c.covers = used >= S;
  const double denom = S <= kLine ? static_cast<double>(S) : static_cast<double>(kLine * static_cast<int64_t>(lines.size()));
  c.line_use = denom > 0 ? std::min(1.0, static_cast<double>(used) / denom) : 0;
  if (c.covers) c.line_use = 1;
  return c;
}

// The accesses of the loop's own blocks (not its inner loops', which run more often) through the
// same moving address as A, at constant offsets from it: (offset, bytes).
std::vector<std::pair<int64_t, uint32_t>> group_ranges(const FunctionCode& f, Pass& p, int loop, const Lin& A) {
  std::vector<std::pair<int64_t, uint32_t>> ranges;
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  for (int b : f.loops()[static_cast<size_t>(loop)].blocks) {
    if (f.innermost_loop(b) != loop) continue;
    const CodeBlock& blk = f.blocks()[static_cast<size_t>(b)];
    RegState s = p.in[static_cast<size_t>(b)];
    for (uint32_t j = blk.first; j <= blk.last; ++j) {
      if (!f.decode(static_cast<int>(j), &in, ops)) continue;
      const int m = x86::access_operand(in, ops);
      if (m >= 0 && ops[m].mem.type == ZYDIS_MEMOP_TYPE_MEM) {
        const Lin d = p.syms.address_of(s, in, ops[m], f.insns()[j].addr) - A;
        if (d.is_constant()) ranges.emplace_back(d.c, ops[m].size / 8);
      }
      p.syms.apply(s, in, ops, f.insns()[j].addr);
    }
  }
  return ranges;
}

int64_t gcd_of(const Lin& v) {
  int64_t g = std::gcd(std::llabs(v.c), v.unk);
  for (unsigned i = 0; i < v.n; ++i) g = std::gcd(g, std::llabs(v.t[i].second));
  return g;
}

// Where address A (of loop level `loop`) comes from at the function's entry: its symbols are
// replaced, level by level, by the values the enclosing level enters the loop with; a pointer
// loaded (or returned by a call) on the way is the origin, else the one register left with
// coefficient 1, else a constant (a static address).
AddressOrigin origin_of(Analysis& a, const Lin& A, int loop) {
  AddressOrigin o;
  Lin cur = A;
  int level = loop;
  bool failed = false;
  // Records the origin of a loaded or returned pointer `t` of pass `lp` at `level`.
  auto take_load = [&](Pass& lp, SymId t) {
    const LoadSym& l = lp.syms.load(t);
    o.load_insn = l.insn;
    if (l.call) {
      o.kind = AddressOrigin::Kind::Returned;
      return true;
    }
    const Lin from = level >= 0 ? a.resolve_up(l.address, level) : l.address;
    o.kind = AddressOrigin::Kind::Loaded;
    if (from.is_constant()) {
      o.from = AddressOrigin::Kind::Absolute;
      o.from_address = from.c;
      return true;
    }
    if (from.is_exact() && from.n == 1 && from.t[0].second == 1 && from.t[0].first < kRegSyms) {
      o.from = AddressOrigin::Kind::Register;
      o.from_reg = static_cast<uint8_t>(from.t[0].first);
      o.from_offset = from.c;
      return true;
    }
    return false;
  };
  while (!failed) {
    Pass& lp = a.pass(level);
    const int up = a.parent(level);
    // How this level moves the address per iteration. A register that does not step regularly
    // still names the pointer by its first value, but the offsets from it are unknown; a chased
    // pointer (p = p->next) always points at the start of a node, so they stay exact.
    if (level >= 0) {
      Lin level_step = Lin::constant(0);
      bool irregular = false;
      for (unsigned k = 0; k < cur.n; ++k) {
        const auto [t, coef] = cur.t[k];
        if (lp.syms.is_load(t)) continue;
        const Step stp = a.step_of(lp, t);
        if (stp.kind == StepKind::Varying) irregular = true;
        if (stp.kind == StepKind::Induction) level_step = level_step + stp.delta.scaled(coef);
      }
      const Lin v = level_step.is_constant() ? level_step : a.resolve_up(level_step, level);
      o.steps.push_back(v.is_constant() && !irregular ? v.c : 0);
      o.steps_exact.push_back(v.is_constant() && !irregular);
      // A symbolic step is still a multiple of its coefficients' divisor ("8 x n": of 8).
      o.step_divisor = v.known && !irregular ? std::gcd(o.step_divisor, gcd_of(v)) : 1;
    }
    // The address in the enclosing level's symbols (the values it enters this loop with); the
    // pointer loaded or returned on the way is the origin.
    const RegState* entry = nullptr;
    if (level >= 0) {
      auto it = a.pass(up).child_entry.find(level);
      if (it == a.pass(up).child_entry.end()) break;
      entry = &it->second;
    }
    Lin next = Lin::constant(cur.c);
    for (unsigned k = 0; k < cur.n && !failed; ++k) {
      const auto [t, coef] = cur.t[k];
      if (lp.syms.is_load(t)) {
        if (coef == 1 && o.kind == AddressOrigin::Kind::None && take_load(lp, t)) continue;
        // Another loaded value: an integer (an index, a count) scaled by coef.
        if (coef == 1) failed = true;
        o.step_divisor = std::gcd(o.step_divisor, std::llabs(coef));
        continue;
      }
      next = next + (entry != nullptr ? a.pass(up).syms.lift(lp.syms, t, *entry) : Lin::symbol(t)).scaled(coef);
    }
    if (!next.known) failed = true;
    if (failed || level < 0) {
      cur = next;
      break;
    }
    cur = next;
    level = up;
  }
  if (failed) {
    o.kind = AddressOrigin::Kind::None;
    return o;
  }
  o.step_divisor = std::gcd(o.step_divisor, cur.unk);
  // At the function's entry: the pointer is the origin found on the way, else the one register
  // with coefficient 1, else none (a constant address); other registers are integers scaled by
  // their coefficients, which only make the offset a multiple of less.
  int pointer = -1;
  for (unsigned k = 0; k < cur.n; ++k) {
    const auto [t, coef] = cur.t[k];
    if (coef == 1 && t < kRegSyms && o.kind == AddressOrigin::Kind::None && pointer < 0) {
      pointer = t;
      continue;
    }
    if (coef == 1) {
      o.kind = AddressOrigin::Kind::None;
      return o;
    }
    o.step_divisor = std::gcd(o.step_divisor, std::llabs(coef));
  }
  if (o.kind == AddressOrigin::Kind::None && pointer >= 0) {
    o.kind = AddressOrigin::Kind::Register;
    o.reg = static_cast<uint8_t>(pointer);
  } else if (o.kind == AddressOrigin::Kind::None) {
    o.kind = AddressOrigin::Kind::Absolute;  // a static address, plus integers times their coefficients
  }
  o.offset = cur.c;
  return o;
}

// Two origins name the same pointer, with no offset from it.
bool same_pointer(const AddressOrigin& b, const AddressOrigin& o) {
  return b.kind == o.kind && b.load_insn == o.load_insn && b.reg == o.reg && b.offset == 0 &&
         b.from == o.from && b.from_reg == o.from_reg && b.from_offset == o.from_offset &&
         b.from_address == o.from_address;
}

}  // namespace

AccessPattern analyze_access(const FunctionCode& f, uint64_t insn) {
  AccessPattern out;
  const int i = f.insn_at(insn);
  if (i < 0) {
    out.why = "the sampled address is not an instruction of its function's code";
    return out;
  }
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  if (!f.decode(i, &in, ops)) {
    out.why = "the instruction does not decode";
    return out;
  }
  const int m = x86::access_operand(in, ops);
  if (m < 0) {
    out.why = "the instruction has no memory operand";
    return out;
  }
  const ZydisDecodedOperand& mem = ops[m];
  out.size = mem.size / 8;
  out.write = (mem.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
  out.disp = mem.mem.disp.has_displacement ? mem.mem.disp.value : 0;
  const ZydisRegister base64 = x86::gpr64(mem.mem.base);
  out.base_reg = base64 == ZYDIS_REGISTER_NONE ? -1 : base64 - ZYDIS_REGISTER_RAX;
  if (mem.mem.type == ZYDIS_MEMOP_TYPE_VSIB) {
    out.kind = PatternKind::Indirect;
    out.why = "a gather: each lane's address comes from a vector of indices";
    return out;
  }
  if (in.meta.category == ZYDIS_CATEGORY_STRINGOP && (in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE))) {
    out.kind = PatternKind::Sequential;
    out.has_stride = true;
    out.stride = out.size;
    out.has_line_use = true;
    out.line_use = 1;
    out.why = "a repeated string instruction (memcpy, memset)";
    return out;
  }
  const int block = f.block_of(i);
  const int loop = f.innermost_loop(block);
  if (loop < 0) {
    const bool computed = std::any_of(f.insns().begin(), f.insns().end(),
                                      [](const CodeInsn& c) { return c.flow == CodeInsn::Flow::IndirectJump; });
    out.why = computed ? "no loop around it is seen: a computed jump (a switch) in its function hides paths"
                       : "it is in no loop of its function";
    return out;
  }
  const CodeLoop& L = f.loops()[static_cast<size_t>(loop)];
  out.loop_head = f.insns()[f.blocks()[static_cast<size_t>(L.header)].first].addr;
  for (int b : L.blocks) {
    const CodeInsn& last = f.insns()[f.blocks()[static_cast<size_t>(b)].last];
    if (last.flow == CodeInsn::Flow::IndirectJump) {
      out.why = "a computed jump in the loop (a switch) hides some of its paths";
      return out;
    }
  }
  Analysis a(f);
  Pass& p = a.pass(loop);
  const RegState s = a.state_before(p, i);
  const Lin A = p.syms.address_of(s, in, mem, insn);
  if (!A.is_exact()) {
    // Computed from loads (an index masked with `and`, a pointer tagged): how those move says
    // how the address does.
    bool moving = false, chased = false;
    for (unsigned k = 0; k < A.ntaint; ++k) {
      const Motion mo = a.motion(p, A.taint[k], nullptr);
      chased |= mo == Motion::Chased;
      moving |= mo == Motion::Induction || mo == Motion::Indirect;
    }
    if (chased || moving) {
      out.kind = chased ? PatternKind::Dependent : PatternKind::Indirect;
      out.why = chased ? "the address is computed from a pointer loaded through itself (pointer chasing)"
                       : "the address is computed from values loaded from memory that the loop walks (an index "
                         "or pointer array)";
      return out;
    }
    out.why = why_text(A, "its address", f, &out.why_at);
    return out;
  }
  // How each symbol of the address moves.
  Lin stride = Lin::constant(0);
  bool dependent = false, indirect = false;
  std::string unknown;
  for (unsigned k = 0; k < A.n; ++k) {
    const auto [t, coef] = A.t[k];
    Lin why;
    switch (a.motion(p, t, &why)) {
      case Motion::Invariant: break;
      case Motion::Induction: stride = stride + a.step_of(p, t).delta.scaled(coef); break;
      case Motion::Chased: dependent = true; break;
      case Motion::Indirect: indirect = true; break;
      case Motion::Varying:
        if (unknown.empty()) unknown = why_text(why, reg_text(t, p.syms).c_str(), f, &out.why_at);
        break;
    }
  }
  // The loop's other accesses through the same address, at fixed offsets from this one.
  out.group = group_ranges(f, p, loop, A);
  if (dependent) {
    out.kind = PatternKind::Dependent;
    out.why = "the address is loaded through itself in the loop (pointer chasing)";
  } else if (indirect) {
    out.kind = PatternKind::Indirect;
    out.why = "the address is loaded from memory that the loop walks (an index or pointer array)";
  }
  if (out.kind == PatternKind::Unknown && unknown.empty()) {
    // The stride, as a number when the loop's invariants resolve to constants.
    const Lin st = stride.is_constant() ? stride : a.resolve_up(stride, loop);
    if (!st.is_exact()) {
      out.why = "its stride is a value the analysis cannot follow";
    } else if (!st.is_constant()) {
      out.why = "its stride is a run-time value: " + describe(st, a.pass(-1).syms) + " bytes";
      for (unsigned k = 0; k < st.n; ++k)
        if (st.t[k].first < kRegSyms) out.stride_params.push_back(static_cast<uint8_t>(st.t[k].first));
    } else {
      out.has_stride = true;
      out.stride = st.c;
      const Coverage c = coverage(out.group, out.stride);
      out.kind = c.covers ? PatternKind::Sequential : PatternKind::Strided;
      out.has_line_use = true;
      out.line_use = c.line_use;
    }
  } else if (!unknown.empty() && out.kind == PatternKind::Unknown) {
    out.why = unknown;
  }
  out.origin = origin_of(a, A, loop);
  // The registers that hold the origin's pointer itself at the access: a variable DWARF finds in
  // one of them is the pointer the offsets count from.
  if (out.origin.kind != AddressOrigin::Kind::None && out.origin.kind != AddressOrigin::Kind::Absolute) {
    for (unsigned r = 0; r < 16; ++r) {
      if (r == 4 || !s.reg[r].known) continue;
      const AddressOrigin b = origin_of(a, s.reg[r], loop);
      if (same_pointer(b, out.origin)) out.origin_regs |= 1u << r;
    }
    // And the stack slots (code built without optimisation keeps its variables there), by their
    // offset from the function's entry rsp.
    for (size_t c = 0; c < p.syms.cells().size(); ++c) {
      const Lin v = p.syms.value_of(s, static_cast<SymId>(kCellSymBase + c));
      if (!v.known || !same_pointer(origin_of(a, v, loop), out.origin)) continue;
      const StackCell& cell = p.syms.cells()[c];
      const Lin at = a.resolve_up(Lin::symbol(cell.base) + Lin::constant(cell.offset), loop);
      if (at.known && at.n == 1 && at.t[0] == std::pair<SymId, int64_t>{4, 1}) out.origin_slots.push_back(at.c);
    }
  }
  if (out.origin.steps.size() >= 2 && out.origin.steps_exact[1]) {
    out.has_outer_stride = true;
    out.outer_stride = out.origin.steps[1];
  }
  return out;
}

}  // namespace hpcl::analysis
