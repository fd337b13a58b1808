// See stack_locals.h. A layout is what at() needs for one stretch of pcs: the fixed variables'
// extents relative to the CFA, the variable-length variables in scope, and the frame's shape by
// its call-frame rule. It is built from the scopes around a pc and holds for the pcs where the
// scopes, every location list entry used and the call-frame row are those of that pc: each of
// them narrows the stretch, so the next pc in the same stretch costs a map lookup.
#include "stack_locals.h"

#include <dwarf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <vector>

#include "dwarf_dies.h"
#include "dwarf_scopes.h"

namespace hpcl::analysis {

using dwarf::die_name;
using dwarf::fortran_cu;
using dwarf::is_scope;
using dwarf::size_of;
using dwarf::subrange_extent;
using dwarf::type_name;
using dwarf::type_of;

namespace {

constexpr int kRbp = 6;  // DWARF register numbers
constexpr int kRsp = 7;

// Link-time pcs [lo, hi) over which everything read for one pc stays the same.
struct Stretch {
  uint64_t pc = 0;
  uint64_t lo = 0, hi = std::numeric_limits<uint64_t>::max();
  // A piece [s, e) of something that changes at its bounds (a scope's range, a location list
  // entry, a call-frame row): around the pc it narrows the stretch, elsewhere it cuts it off.
  void clip(uint64_t s, uint64_t e) {
    if (e <= s) return;
    if (s <= pc && pc < e) {
      lo = std::max(lo, s);
      hi = std::min(hi, e);
    } else if (e <= pc) {
      lo = std::max(lo, e);
    } else {
      hi = std::min(hi, s);
    }
  }
};

// The call-frame row at a pc: CFA = register + offset, and the lowest CFA offset a register is
// saved at (-8, the return address, at least).
struct FrameRule {
  int cfa_reg = -1;
  int64_t cfa_off = 0;
  int64_t lowest_saved = -8;
  // rbp or rsp relative to the CFA, when the CFA is defined from it.
  bool reg_offset(int reg, int64_t* off) const {
    if (reg != cfa_reg) return false;
    *off = -cfa_off;
    return true;
  }
};

// The row of the module's CFI (.eh_frame, else .debug_frame) at link-time `pc`.
FrameRule frame_rule(Dwfl_Module* mod, uint64_t bias, uint64_t pc, Stretch& stretch) {
  FrameRule rule;
  Dwarf_Addr cfi_bias = 0;
  Dwarf_Frame* frame = nullptr;
  for (int source = 0; source < 2 && frame == nullptr; ++source) {
    Dwarf_CFI* cfi =
        source == 0 ? dwfl_module_eh_cfi(mod, &cfi_bias) : dwfl_module_dwarf_cfi(mod, &cfi_bias);
    if (cfi != nullptr && dwarf_cfi_addrframe(cfi, pc + bias - cfi_bias, &frame) != 0)
      frame = nullptr;
  }
  if (frame == nullptr) return rule;
  // Only the row's end bounds the stretch: after DW_CFA_restore_state libdw reports a row as
  // starting where its state was remembered, before the rows in between.
  Dwarf_Addr start = 0, end = 0;
  if (dwarf_frame_info(frame, &start, &end, nullptr) >= 0) stretch.clip(pc, end + cfi_bias - bias);
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  // libdw gives a register rule as one DW_OP_bregx: number = register, number2 = offset.
  if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 && ops[0].atom == DW_OP_bregx) {
    rule.cfa_reg = static_cast<int>(ops[0].number);
    rule.cfa_off = static_cast<int64_t>(ops[0].number2);
  }
  // A register saved at CFA + N reads as DW_OP_call_frame_cfa, DW_OP_plus_uconst N.
  for (int reg = 0; reg <= 16; ++reg) {
    Dwarf_Op mem[3];
    if (dwarf_frame_register(frame, reg, mem, &ops, &nops) == 0 && nops == 2 &&
        ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst)
      rule.lowest_saved = std::min(rule.lowest_saved, static_cast<int64_t>(ops[1].number));
  }
  std::free(frame);
  return rule;
}

// Where a location expression puts a variable at one pc.
enum class Where { Frame, Pointer, Elsewhere, NotMemory };

struct Place {
  Where where = Where::NotMemory;
  int64_t offset = 0;  // CFA-relative, for Frame
};

// A register-relative address as CFA-relative, when the register is the frame base (`fbreg`)
// or rbp/rsp and the call-frame rule says where they are.
struct Base {
  bool known = false;
  int64_t offset = 0;  // the frame base relative to the CFA
};

bool reg_base(const FrameRule& rule, int reg, int64_t* off) {
  return (reg == kRbp || reg == kRsp) && rule.reg_offset(reg, off);
}

Place place_of(const Dwarf_Op* expr, size_t len, const Base& fb, const FrameRule& rule) {
  Place p;
  if (len == 0 || len > 2) return p;
  const uint8_t op = expr[0].atom;
  bool known = false;
  int64_t at = 0;
  if (op == DW_OP_fbreg) {
    known = fb.known;
    at = fb.offset + static_cast<int64_t>(expr[0].number);
  } else if ((op >= DW_OP_breg0 && op <= DW_OP_breg31) || op == DW_OP_bregx) {
    const int reg = op == DW_OP_bregx ? static_cast<int>(expr[0].number) : op - DW_OP_breg0;
    const int64_t k = static_cast<int64_t>(op == DW_OP_bregx ? expr[0].number2 : expr[0].number);
    int64_t r = 0;
    known = reg_base(rule, reg, &r);
    at = r + k;
  } else {
    return p;  // a register, a value, a static address: not this frame's memory
  }
  if (len == 2) {
    // The address of the storage is kept in the frame: a pointer to dynamic storage.
    if (expr[1].atom != DW_OP_deref) return p;
    p.where = Where::Pointer;
    return p;
  }
  p.where = known ? Where::Frame : Where::Elsewhere;
  p.offset = at;
  return p;
}

// The frame base of the function at CU-relative `at`: GCC's DW_OP_call_frame_cfa, or rbp/rsp
// (+ offset) as other compilers write it.
Base frame_base(Dwarf_Die* function, Dwarf_Addr at, const FrameRule& rule) {
  Base b;
  Dwarf_Attribute attr;
  Dwarf_Op* expr = nullptr;
  size_t len = 0;
  if (dwarf_attr(function, DW_AT_frame_base, &attr) == nullptr ||
      dwarf_getlocation_addr(&attr, at, &expr, &len, 1) != 1 || len != 1)
    return b;
  const uint8_t op = expr[0].atom;
  int64_t r = 0;
  if (op == DW_OP_call_frame_cfa) {
    b.known = true;
  } else if (op == DW_OP_reg0 + kRbp || op == DW_OP_reg0 + kRsp) {
    b.known = reg_base(rule, op - DW_OP_reg0, &r);
    b.offset = r;
  } else if (op == DW_OP_breg0 + kRbp || op == DW_OP_breg0 + kRsp) {
    b.known = reg_base(rule, op - DW_OP_breg0, &r);
    b.offset = r + static_cast<int64_t>(expr[0].number);
  }
  return b;
}

// The pieces of a location list narrow the stretch (a single expression holds everywhere).
void clip_locations(Dwarf_Attribute* attr, uint64_t delta, Stretch& stretch) {
  Dwarf_Addr base = 0, start = 0, end = 0;
  Dwarf_Op* expr = nullptr;
  size_t len = 0;
  ptrdiff_t off = 0;
  while ((off = dwarf_getlocations(attr, off, &base, &start, &end, &expr, &len)) > 0) {
    if (start == 0 && end == std::numeric_limits<Dwarf_Addr>::max()) return;
    stretch.clip(start - delta, end - delta);
  }
}

void clip_ranges(Dwarf_Die* die, uint64_t delta, Stretch& stretch) {
  Dwarf_Addr base = 0, start = 0, end = 0;
  ptrdiff_t off = 0;
  while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
    stretch.clip(start - delta, end - delta);
}

// A name the source can spell: GCC's own variables ("A.11", the storage of a Fortran automatic
// array; "D.1234") have a dot, and some have no name.
bool source_name(const char* name) {
  return name != nullptr && *name != '\0' && std::strchr(name, '.') == nullptr;
}

// An array whose extent is known only at run time (a VLA, a Fortran automatic array). Fortran
// allocatable, pointer and assumed-shape arrays are not: a descriptor points to their data
// (DW_AT_data_location), which is not in this frame.
bool variable_length(Dwarf_Die* type) {
  Dwarf_Attribute attr;
  if (dwarf_tag(type) != DW_TAG_array_type ||
      dwarf_attr(type, DW_AT_data_location, &attr) != nullptr)
    return false;
  const bool fortran = fortran_cu(type);
  Dwarf_Die child;
  if (dwarf_child(type, &child) != 0) return false;
  do {
    uint64_t n = 0;
    if (dwarf_tag(&child) == DW_TAG_subrange_type && !subrange_extent(&child, fortran, &n))
      return true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

// "double[16384]", "real(kind=8)(4096)", "double[]", "real(kind=8)(:)", "struct particle".
std::string type_label(Dwarf_Die* type) {
  if (dwarf_tag(type) != DW_TAG_array_type) {
    std::string n = type_name(type);
    return n == "?" ? "" : n;
  }
  Dwarf_Die elem, child;
  if (!type_of(type, &elem)) return "";
  const bool fortran = fortran_cu(type);
  std::string dims;
  if (dwarf_child(type, &child) == 0) {
    do {
      if (dwarf_tag(&child) != DW_TAG_subrange_type) continue;
      uint64_t n = 0;
      const std::string extent = subrange_extent(&child, fortran, &n) ? std::to_string(n)
                                 : fortran                            ? ":"
                                                                      : "";
      dims += fortran ? (dims.empty() ? "(" : ",") + extent : "[" + extent + "]";
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  if (fortran && !dims.empty()) dims += ")";
  const std::string e = type_name(&elem);
  return e == "?" ? "" : e + dims;
}

}  // namespace

const char* stack_var_kind_name(StackVarKind kind) {
  static const char* const kNames[] = {"?", "local", "parameter", "automatic", "temporary", "frame"};
  const auto k = static_cast<size_t>(kind);
  return k < std::size(kNames) ? kNames[k] : "?";
}

struct StackLocals::Layout {
  uint64_t start = 0, end = 0;  // the stretch of link-time pcs it holds for
  bool has_function = false;
  std::string function;             // the concrete function running there
  std::vector<StackLocal> fixed;    // variables at a known place, innermost scope first
  std::vector<StackLocal> dynamic;  // variable-length variables in scope
  bool frame_pointer = false;       // the CFA is rbp-based: the frame can grow at run time
  int64_t fixed_bottom = 0;         // lowest CFA offset of a fixed variable or saved register
};

StackLocals::StackLocals(Dwfl_Module* mod, uint64_t bias) : mod_(mod), bias_(bias) {
  Dwarf_Addr b = 0;
  dwarf_ = mod_ != nullptr ? dwfl_module_getdwarf(mod_, &b) : nullptr;
}

StackLocals::~StackLocals() = default;

std::unique_ptr<StackLocals::Layout> StackLocals::build(uint64_t pc) {
  auto layout = std::make_unique<Layout>();
  layout->start = pc;
  layout->end = pc + 1;
  Dwarf_Addr at = 0, cubias = 0;
  std::vector<Dwarf_Die> scopes = dwarf::frame_scopes(mod_, bias_, pc, &at, &cubias);
  if (scopes.empty() || dwarf_tag(&scopes.back()) != DW_TAG_subprogram) return layout;
  layout->has_function = true;
  Stretch stretch;
  stretch.pc = pc;
  const uint64_t delta = bias_ - cubias;  // CU address - link-time address (modulo 2^64)
  // The scopes around the pc hold for their ranges, minus those of the scopes nested in them.
  for (Dwarf_Die& scope : scopes) {
    clip_ranges(&scope, delta, stretch);
    Dwarf_Die child;
    if (dwarf_child(&scope, &child) != 0) continue;
    do {
      if (is_scope(dwarf_tag(&child))) clip_ranges(&child, delta, stretch);
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  const FrameRule rule = frame_rule(mod_, bias_, pc, stretch);
  layout->frame_pointer = rule.cfa_reg == kRbp;
  layout->fixed_bottom = rule.lowest_saved;
  const Base fb = frame_base(&scopes.back(), at, rule);
  // Variables belong to the innermost function around their scope: an inlined one, or the
  // concrete function.
  std::vector<std::string> owner(scopes.size());
  for (size_t i = scopes.size(); i-- > 0;) {
    const int tag = dwarf_tag(&scopes[i]);
    owner[i] =
        tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || i + 1 == scopes.size()
            ? die_function(&scopes[i], names_)
            : owner[i + 1];
  }
  layout->function = owner.back();
  dwarf::each_variable_in(scopes, [&](Dwarf_Die* var, size_t scope) {
    Dwarf_Attribute attr;
    bool declaration = false;
    if (dwarf_formflag(dwarf_attr(var, DW_AT_declaration, &attr), &declaration) == 0 && declaration)
      return false;  // an extern declared in a block: not stored here
    Place place;
    if (dwarf_attr(var, DW_AT_location, &attr) != nullptr) {
      clip_locations(&attr, delta, stretch);
      Dwarf_Op* expr = nullptr;
      size_t len = 0;
      if (dwarf_getlocation_addr(&attr, at, &expr, &len, 1) == 1)
        place = place_of(expr, len, fb, rule);
      else
        place.where = Where::Elsewhere;  // no location here: its storage may still be live
    } else {
      place.where = Where::Elsewhere;
    }
    Dwarf_Die type;
    const bool typed = type_of(var, &type);
    const char* name = die_name(var);
    const bool parameter = dwarf_tag(var) == DW_TAG_formal_parameter;
    StackLocal v;
    v.kind = parameter ? StackVarKind::Parameter : StackVarKind::Local;
    v.name = source_name(name) ? name : "";
    v.function = owner[scope];
    if (const char* file = dwarf_decl_file(var)) v.file = file;
    int line = 0;
    if (dwarf_decl_line(var, &line) == 0 && line > 0) v.line = static_cast<uint32_t>(line);
    v.type = typed ? type_label(&type) : "";
    v.type_die = typed ? dwarf_dieoffset(&type) : 0;
    const bool dynamic =
        !parameter && ((typed && variable_length(&type)) || place.where == Where::Pointer);
    if (dynamic) {
      // Only what the source declared can name the dynamic area.
      if (!v.name.empty() && place.where != Where::NotMemory) layout->dynamic.push_back(v);
      return false;
    }
    if (place.where != Where::Frame) return false;
    layout->fixed_bottom = std::min(layout->fixed_bottom, place.offset);
    v.lo = place.offset;
    v.size = typed ? size_of(&type) : 0;
    if (v.size == 0) return false;  // a descriptor or an incomplete type: its extent is unknown
    if (v.name.empty()) v.kind = StackVarKind::Temporary;
    layout->fixed.push_back(std::move(v));
    return false;
  });
  layout->start = stretch.lo;
  layout->end = stretch.hi;
  return layout;
}

const StackLocals::Layout* StackLocals::layout_at(uint64_t pc) {
  auto it = layouts_.upper_bound(pc);
  if (it != layouts_.begin() && pc < std::prev(it)->second->end) return std::prev(it)->second.get();
  std::unique_ptr<Layout> built = build(pc);
  const Layout* out = built.get();
  const uint64_t start = built->start;
  layouts_[start] = std::move(built);
  return out;
}

std::optional<StackLocal> StackLocals::at(uint64_t pc, int64_t lo, uint32_t width) {
  if (dwarf_ == nullptr) return std::nullopt;
  const Layout* l = layout_at(pc);
  if (!l->has_function) return std::nullopt;
  const int64_t hi = lo + static_cast<int64_t>(width);
  const StackLocal* best = nullptr;
  int64_t best_overlap = 0;
  for (const StackLocal& v : l->fixed) {
    const int64_t overlap = std::min(hi, v.lo + static_cast<int64_t>(v.size)) - std::max(lo, v.lo);
    if (overlap > best_overlap) {
      best = &v;
      best_overlap = overlap;
    }
  }
  if (best != nullptr) return *best;
  StackLocal out;
  out.function = l->function;
  // The dynamic area lies below the fixed frame, and only a frame addressed from rbp has one.
  // The slot's middle decides for a slot across the boundary.
  if (l->frame_pointer && lo + static_cast<int64_t>(width / 2) < l->fixed_bottom) {
    // GCC's second name for the same storage ("A.11") was left out; two variables of the
    // source are ambiguous, and neither is named.
    if (l->dynamic.size() == 1) {
      out = l->dynamic.front();
      out.kind = StackVarKind::Automatic;
    } else {
      out.kind = StackVarKind::Temporary;
    }
  } else {
    out.kind = StackVarKind::Frame;
  }
  return out;
}

}  // namespace hpcl::analysis
