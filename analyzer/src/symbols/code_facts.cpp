// See code_facts.h.
#include "code_facts.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <cstdio>

#include "call_sites.h"
#include "code_cfg.h"
#include "location.h"
#include "reg_values.h"
#include "stack_locals.h"
#include "symbolize.h"

namespace hpcl::analysis {
namespace {

// A function larger than this is not decoded (a report must stay cheap; generated code of that
// size is rarely one loop nest anyone reads).
constexpr uint64_t kMaxFunctionBytes = 512 * 1024;

// Replaces the register names of a stride expression ("8 x rsi") by the parameters' names.
std::string name_registers(std::string text, const std::vector<std::pair<std::string, std::string>>& names) {
  for (const auto& [reg, name] : names) {
    for (size_t at = 0; (at = text.find(reg, at)) != std::string::npos;) {
      const bool left = at == 0 || text[at - 1] == ' ' || text[at - 1] == '[';
      const size_t end = at + reg.size();
      const bool right = end == text.size() || text[end] == ' ' || text[end] == ']';
      if (!left || !right) {
        at = end;
        continue;
      }
      text.replace(at, reg.size(), name);
      at += name.size();
    }
  }
  return text;
}

constexpr int kRsp = 4;  // in the encoding order of AddressOrigin::reg

int64_t floor_mod(int64_t a, int64_t m) {
  const int64_t r = a % m;
  return r < 0 ? r + m : r;
}

}  // namespace

struct CodeFacts::ModuleState {
  std::unique_ptr<ModuleSymbols> syms;
  std::unique_ptr<ModuleTypes> types;
  std::unique_ptr<StackLocals> locals;  // the frames' variables, made on first use
  std::string error;  // why the module cannot be read
  std::map<uint64_t, std::unique_ptr<FunctionCode>> functions;  // by start
  // Global offset table slots -> the address of the symbol the loader puts there (a shared
  // object reaches its own globals through them); built on first use.
  bool got_read = false;
  std::map<uint64_t, uint64_t> got;
};

namespace {

// The GOT slots of `elf` that hold the address of a symbol defined in it (R_X86_64_GLOB_DAT and
// R_X86_64_64 relocations of .rela.dyn against a defined symbol): slot -> symbol value.
void read_got(Elf* elf, std::map<uint64_t, uint64_t>& out) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_RELA || shdr.sh_entsize == 0) continue;
    Elf_Scn* symscn = elf_getscn(elf, shdr.sh_link);
    Elf_Data* rel = elf_getdata(scn, nullptr);
    Elf_Data* syms = symscn != nullptr ? elf_getdata(symscn, nullptr) : nullptr;
    if (rel == nullptr || syms == nullptr) continue;
    for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; ++i) {
      GElf_Rela r;
      GElf_Sym sym;
      if (gelf_getrela(rel, static_cast<int>(i), &r) == nullptr) continue;
      const uint32_t type = GELF_R_TYPE(r.r_info);
      if (type != R_X86_64_GLOB_DAT && type != R_X86_64_64) continue;
      if (gelf_getsym(syms, static_cast<int>(GELF_R_SYM(r.r_info)), &sym) == nullptr || sym.st_shndx == SHN_UNDEF)
        continue;
      out[r.r_offset] = sym.st_value + static_cast<uint64_t>(r.r_addend);
    }
  }
}

}  // namespace

CodeFacts::CodeFacts(const std::vector<Module>& modules) : modules_(modules) {}
CodeFacts::~CodeFacts() = default;

CodeFacts::ModuleState* CodeFacts::module(uint32_t m) {
  auto it = states_.find(m);
  if (it != states_.end()) return it->second.get();
  auto st = std::make_unique<ModuleState>();
  if (m >= modules_.size() || modules_[m].path.empty() || modules_[m].path[0] == '[') {
    st->error = "its code is in no module file";
  } else {
    st->syms = std::make_unique<ModuleSymbols>(modules_[m].path, modules_[m].build_id);
    if (!st->syms->ok()) {
      st->error = std::string(basename_of(modules_[m].path)) + " (" + st->syms->error() + ")";
      st->syms.reset();
    } else {
      st->types = std::make_unique<ModuleTypes>(st->syms->dwfl_module(), st->syms->bias());
    }
  }
  return states_.emplace(m, std::move(st)).first->second.get();
}

std::vector<std::string> CodeFacts::unreadable() const {
  std::vector<std::string> out;
  for (const auto& [m, st] : states_)
    if (st->syms == nullptr && m < modules_.size() && !modules_[m].path.empty() && modules_[m].path[0] != '[')
      out.push_back(st->error);
  return out;
}

std::string CodeFacts::line_of(uint32_t m, uint64_t offset) {
  ModuleState* st = module(m);
  if (st->syms == nullptr) return {};
  const std::vector<SourceLoc> locs = st->syms->lookup(offset);
  if (locs.empty() || locs.front().file.empty() || locs.front().line == 0) return {};
  return std::string(basename_of(locs.front().file)) + ":" + std::to_string(locs.front().line);
}

std::optional<DataType> CodeFacts::static_type(uint32_t m, uint64_t offset, std::string* why) {
  ModuleState* st = module(m);
  if (st->types == nullptr) {
    *why = st->error;
    return std::nullopt;
  }
  if (!st->types->has_dwarf()) {
    *why = "no DWARF for " + std::string(basename_of(modules_[m].path));
    return std::nullopt;
  }
  return st->types->static_type(offset, why);
}

const InstructionFacts& CodeFacts::at(uint32_t m, uint64_t offset) {
  auto key = std::make_pair(m, offset);
  auto it = facts_.find(key);
  if (it != facts_.end()) return it->second;
  InstructionFacts& x = facts_[key];
  ModuleState* st = module(m);
  if (st->syms == nullptr) {
    x.pattern.why = x.why = "its module was not read: " + st->error;
    x.type_why = x.why;
    x.unreadable = true;
    return x;
  }
  // The function around the instruction, decoded once.
  uint64_t start = 0, end = 0;
  Dwfl_Module* mod = st->syms->dwfl_module();
  const uint64_t bias = st->syms->bias();
  if (!st->syms->function_bounds(offset, &start, &end)) {
    if (const ModuleSymbols::Symbol sym = st->syms->symbol_at(offset); sym.name != nullptr && sym.size > 0) {
      start = sym.start;
      end = start + sym.size;
    }
  }
  const FunctionCode* f = nullptr;
  if (end > start && end - start <= kMaxFunctionBytes) {
    auto fit = st->functions.find(start);
    if (fit == st->functions.end()) {
      std::vector<unsigned char> bytes(end - start);
      std::unique_ptr<FunctionCode> fc;
      if (code_bytes(mod, start + bias, bytes.size(), bytes.data(), nullptr, nullptr))
        fc = std::make_unique<FunctionCode>(bytes.data(), bytes.size(), start);
      fit = st->functions.emplace(start, std::move(fc)).first;
    }
    f = fit->second.get();
  }
  if (f == nullptr) {
    x.pattern.why = x.why = end > start ? "its function is too large to analyse"
                                        : "its function's bounds are unknown (no unwind table or symbol)";
    x.type_why = x.why;
    return x;
  }
  x.pattern = analyze_access(*f, offset);
  const AccessPattern& p = x.pattern;
  // The reason in the user's words.
  x.why = p.why;
  if (!p.stride_params.empty()) {
    std::vector<std::pair<std::string, std::string>> names;
    for (uint8_t r : p.stride_params) {
      const std::string n = st->types->parameter_name(start, r);
      names.emplace_back(reg_name(r), n.empty() ? std::string("%") + reg_name(r)
                                                : n + " (the parameter in %" + reg_name(r) + ")");
    }
    x.why = name_registers(x.why, names);
  }
  if (p.why_at != 0) {
    const std::string line = line_of(m, p.why_at);
    if (!line.empty()) x.why += " (" + line + ")";
  }
  // The type of the data, from the pointer the address starts from.
  const AddressOrigin& o = p.origin;
  ModuleTypes& types = *st->types;
  std::optional<TypedPointer> tp;
  int64_t off_from_pointer = o.offset;
  std::optional<int64_t> absolute;  // the access's static address, when it has one
  if (o.kind == AddressOrigin::Kind::Absolute) absolute = o.offset;
  switch (o.kind) {
    case AddressOrigin::Kind::Register: tp = types.pointee_of_parameter(start, o.reg); break;
    case AddressOrigin::Kind::Loaded:
      if (o.from == AddressOrigin::Kind::Register) {
        tp = types.pointee_of_member(start, o.from_reg, static_cast<uint64_t>(o.from_offset));
        break;
      }
      tp = types.pointee_of_static(static_cast<uint64_t>(o.from_address));
      if (!tp) {
        // A GOT slot: the address of a static of this module, as if the code had taken it itself.
        if (!st->got_read) {
          Dwarf_Addr elf_bias = 0;
          if (Elf* elf = dwfl_module_getelf(mod, &elf_bias)) read_got(elf, st->got);
          st->got_read = true;
        }
        auto slot = st->got.find(static_cast<uint64_t>(o.from_address));
        if (slot != st->got.end()) absolute = static_cast<int64_t>(slot->second) + o.offset;
      }
      break;
    case AddressOrigin::Kind::Returned: {
      const int ci = f->insn_at(o.load_insn);
      if (ci >= 0) {
        const CodeInsn& call = f->insns()[static_cast<size_t>(ci)];
        tp = types.pointee_in_register(call.addr + call.len, 0);
      }
      break;
    }
    case AddressOrigin::Kind::Absolute:
    case AddressOrigin::Kind::None: break;
  }
  // An address in the function's own frame (its entry rsp plus a constant, x86-64: the CFA minus
  // 8): the local whose storage is there, by its DWARF location at the access.
  if (!tp && o.kind == AddressOrigin::Kind::Register && o.reg == kRsp && types.has_dwarf()) {
    if (!st->locals) st->locals = std::make_unique<StackLocals>(st->syms->dwfl_module(), st->syms->bias());
    const int64_t from_cfa = o.offset - 8;
    const std::optional<StackLocal> local = st->locals->at(offset, from_cfa, std::max<uint32_t>(p.size, 1));
    if (local && local->size > 0 && local->type_die != 0 &&
        (local->kind == StackVarKind::Local || local->kind == StackVarKind::Parameter)) {
      std::optional<DataType> t = types.type_of_die(local->type_die);
      int64_t into = from_cfa - local->lo;
      // One structure larger than the loop's step (an object holding an array of records):
      // the elements are the array's inside it that the loop walks.
      uint64_t at = 0;
      if (t && t->dims.empty() && o.step_divisor > 0 && uint64_t(o.step_divisor) < t->size && into >= 0)
        if (std::optional<DataType> inner =
                types.array_within(local->type_die, uint64_t(into), uint64_t(o.step_divisor), &at)) {
          t = std::move(inner);
          into -= static_cast<int64_t>(at);
        }
      if (t) {
        tp = TypedPointer{std::move(*t), local->name};
        off_from_pointer = into;
      }
    }
  }
  if (absolute) {
    // The static symbol holding the address. Fortran's 1-based arrays start the address one
    // element before the array: a few whole steps further on is tried too.
    const int64_t step = o.step_divisor > 0 ? o.step_divisor : 0;
    for (int k = 0; k <= 8 && (k == 0 || (step > 0 && step * k <= 64)); ++k) {
      const uint64_t at = static_cast<uint64_t>(*absolute + step * k);
      const ModuleSymbols::Symbol sym = st->syms->symbol_at(at);
      const uint64_t symoff = at - sym.start;
      if (sym.name == nullptr || symoff >= sym.size) continue;
      x.in_static = true;
      x.static_start = at - symoff;
      x.static_offset = static_cast<uint64_t>(*absolute) - x.static_start;  // may wrap: floor_mod folds it
      std::string why;
      std::optional<DataType> t = static_type(m, x.static_start, &why);
      if (t) tp = TypedPointer{*t, ""};
      else x.type_why = why;
      off_from_pointer = *absolute - static_cast<int64_t>(x.static_start);
      break;
    }
  }
  // The pointer in the base register at the access itself, named by DWARF there (a pointer a
  // call returned lives in a callee-saved register by the time the loop runs).
  for (int r = 0; r < 16 && !tp; ++r)
    if ((p.origin_regs >> r) & 1) tp = types.pointee_in_register(offset, r);
  for (size_t k = 0; k < p.origin_slots.size() && !tp; ++k) tp = types.pointee_in_frame(offset, p.origin_slots[k]);
  bool from_origin = tp.has_value();
  if (!tp && p.base_reg >= 0 && o.kind != AddressOrigin::Kind::Absolute) {
    // perf's way: a variable holding the base register at this very instruction.
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    const int i = f->insn_at(offset);
    bool indexed = true;
    if (i >= 0 && f->decode(i, &in, ops))
      for (int k = 0; k < in.operand_count; ++k)
        if (ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[k].mem.type == ZYDIS_MEMOP_TYPE_MEM)
          indexed = ops[k].mem.index != ZYDIS_REGISTER_NONE;
    if (!indexed) tp = types.pointee_in_register(offset, p.base_reg);
    off_from_pointer = p.disp;
  }
  if (tp) {
    x.element = tp->pointee;
    x.holder = tp->holder;
    const int64_t E = static_cast<int64_t>(x.element->size);
    const bool folds = !from_origin || o.step_divisor == 0 || (E > 0 && o.step_divisor % E == 0);
    if (E > 0 && folds) {
      x.offset_known = true;
      x.offset_in_element = static_cast<uint64_t>(floor_mod(off_from_pointer, E));
    } else if (E > 0) {
      x.type_why = "the loop moves the pointer by steps that are not a multiple of the element (" +
                   std::to_string(E) + " bytes)";
    }
  } else if (x.type_why.empty()) {
    if (!types.has_dwarf()) x.type_why = "no DWARF for " + std::string(basename_of(modules_[m].path));
    else if (o.kind == AddressOrigin::Kind::None) x.type_why = "the analysis could not trace its address to a pointer";
    else x.type_why = "no DWARF variable or parameter holds the pointer it starts from";
  }
  return x;
}

}  // namespace hpcl::analysis
