// See data_types.h.
#include "data_types.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <cstdlib>

#include "dwarf_dies.h"
#include "dwarf_scopes.h"

namespace hpcl::analysis {

using dwarf::die_name;
using dwarf::each_variable_at;
using dwarf::fortran_cu;
using dwarf::is_aggregate;
using dwarf::is_pointer;
using dwarf::scopes_at;
using dwarf::size_of;
using dwarf::subrange_extent;
using dwarf::type_name;
using dwarf::type_of;

namespace {

// DWARF's register numbers for rax rcx rdx rbx rsp rbp rsi rdi r8..r15 (the encoding order).
constexpr int kDwarfReg[16] = {0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15};

// Members of an aggregate, nested aggregates flattened ("pos.x") two levels deep, bases inlined.
void add_members(Dwarf_Die* type, uint64_t base, const std::string& prefix, int depth,
                 std::vector<DataMember>& out) {
  Dwarf_Die child;
  if (dwarf_child(type, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag != DW_TAG_member && tag != DW_TAG_inheritance) continue;
    Dwarf_Attribute attr;
    Dwarf_Word off = 0;
    if (dwarf_attr(&child, DW_AT_data_member_location, &attr) != nullptr) {
      if (dwarf_formudata(&attr, &off) != 0) continue;  // an expression: virtual bases
    } else if (dwarf_tag(type) != DW_TAG_union_type) {
      continue;  // a static member or a bit-field without a byte offset
    }
    Dwarf_Die mtype;
    if (!type_of(&child, &mtype)) continue;
    const uint64_t size = size_of(&mtype);
    const char* n = die_name(&child);
    if (tag == DW_TAG_inheritance) {
      if (depth < 3) add_members(&mtype, base + off, prefix, depth + 1, out);
      continue;
    }
    const std::string name = prefix + (n != nullptr ? n : "<anonymous>");
    if (is_aggregate(dwarf_tag(&mtype)) && depth < 2 && size > 0) {
      const size_t before = out.size();
      add_members(&mtype, base + off, name + ".", depth + 1, out);
      if (out.size() > before) continue;
    }
    out.push_back(DataMember{name, base + off, size});
  } while (dwarf_siblingof(&child, &child) == 0);
}

DataType describe_type(Dwarf_Die* type) {
  DataType t;
  t.name = type_name(type);
  t.size = size_of(type);
  if (is_aggregate(dwarf_tag(type))) add_members(type, 0, "", 0, t.members);
  std::stable_sort(t.members.begin(), t.members.end(),
                   [](const DataMember& a, const DataMember& b) { return a.offset < b.offset; });
  return t;
}

// An array type: its element (peeled) and its dimensions with their pitches. Dimensions whose
// extent is not a constant (Fortran allocatables, VLAs) make it fail.
bool describe_array(Dwarf_Die* array, DataType* out) {
  Dwarf_Die elem;
  if (!type_of(array, &elem)) return false;
  *out = describe_type(&elem);
  if (out->size == 0) return false;
  Dwarf_Die child;
  if (dwarf_child(array, &child) != 0) return false;
  const bool fortran = fortran_cu(array);
  do {
    if (dwarf_tag(&child) != DW_TAG_subrange_type) continue;
    uint64_t count = 0;
    if (!subrange_extent(&child, fortran, &count)) return false;
    out->dims.push_back(count);
  } while (dwarf_siblingof(&child, &child) == 0);
  if (out->dims.empty()) return false;
  Dwarf_Attribute ord;
  Dwarf_Word order = fortran ? DW_ORD_col_major : DW_ORD_row_major;
  if (dwarf_attr(array, DW_AT_ordering, &ord) != nullptr) dwarf_formudata(&ord, &order);
  const size_t n = out->dims.size();
  out->column_major = order == DW_ORD_col_major;
  out->pitches.assign(n, out->size);
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < n; ++j)
      if ((order == DW_ORD_col_major && j < k) || (order != DW_ORD_col_major && j > k))
        out->pitches[k] *= out->dims[j];
  return true;
}

// The type of a variable, as its data: an array's element with dimensions, else the type.
std::optional<DataType> data_of(Dwarf_Die* type) {
  DataType t;
  if (dwarf_tag(type) == DW_TAG_array_type) {
    if (!describe_array(type, &t)) return std::nullopt;
    return t;
  }
  t = describe_type(type);
  if (t.size == 0) return std::nullopt;
  return t;
}

// The pointee of a pointer-typed variable or member `die`.
std::optional<DataType> pointee_of(Dwarf_Die* die) {
  Dwarf_Die type, pointee;
  if (!type_of(die, &type) || !is_pointer(dwarf_tag(&type)) || !type_of(&type, &pointee)) return std::nullopt;
  if (dwarf_tag(&pointee) == DW_TAG_array_type) {
    // double (*a)[N]: one element is a row.
    DataType row;
    if (!describe_array(&pointee, &row)) return std::nullopt;
    DataType t;
    t.name = row.name + "[" + std::to_string(row.dims[0]) + "]";
    t.size = size_of(&pointee);
    return t.size > 0 ? std::optional<DataType>(t) : std::nullopt;
  }
  DataType t = describe_type(&pointee);
  if (t.size == 0) return std::nullopt;
  return t;
}

// The single DW_OP_addr of a location expression, or false.
bool static_address(Dwarf_Die* die, Dwarf_Addr* addr) {
  Dwarf_Attribute attr;
  if (dwarf_attr(die, DW_AT_location, &attr) == nullptr) return false;
  Dwarf_Op* expr = nullptr;
  size_t len = 0;
  if (dwarf_getlocation(&attr, &expr, &len) != 0 || len < 1 || expr[0].atom != DW_OP_addr) return false;
  Dwarf_Addr a = expr[0].number;
  if (len == 2 && expr[1].atom == DW_OP_plus_uconst) a += expr[1].number;
  else if (len != 1) return false;
  *addr = a;
  return true;
}

// True when `die`'s location at `pc` (CU-relative) is register `dwreg` itself.
bool located_in(Dwarf_Die* die, Dwarf_Addr pc, int dwreg) {
  Dwarf_Attribute attr;
  if (dwarf_attr(die, DW_AT_location, &attr) == nullptr) return false;
  Dwarf_Op* expr = nullptr;
  size_t len = 0;
  if (dwarf_getlocation_addr(&attr, pc, &expr, &len, 1) != 1 || expr == nullptr) return false;
  if (len == 1 && expr[0].atom == DW_OP_reg0 + dwreg) return true;
  if (len == 1 && expr[0].atom == DW_OP_regx && expr[0].number == static_cast<Dwarf_Word>(dwreg)) return true;
  return len == 2 && expr[0].atom == DW_OP_breg0 + dwreg && expr[0].number == 0 && expr[1].atom == DW_OP_stack_value;
}

}  // namespace

std::vector<const DataMember*> DataType::members_at(uint64_t offset, uint64_t bytes) const {
  std::vector<const DataMember*> out;
  for (const DataMember& m : members)
    if (m.offset < offset + bytes && offset < m.offset + std::max<uint64_t>(m.size, 1)) out.push_back(&m);
  return out;
}

struct ModuleTypes::Index {
  std::map<Dwarf_Addr, Dwarf_Off> statics;  // DWARF address -> the variable's (or COMMON's) DIE
};

ModuleTypes::ModuleTypes(Dwfl_Module* mod, uint64_t bias) : mod_(mod), bias_(bias) {
  Dwarf_Addr b = 0;
  dwarf_ = mod_ != nullptr ? dwfl_module_getdwarf(mod_, &b) : nullptr;
  dwarf_bias_ = b;
}

ModuleTypes::~ModuleTypes() = default;


namespace {

// The pointee of the first variable in scope at `pc` whose location there `where` accepts.
template <typename Where>
std::optional<TypedPointer> pointee_located(Dwfl_Module* mod, uint64_t bias, uint64_t pc, Where where) {
  std::optional<TypedPointer> out;
  each_variable_at(mod, bias, pc, [&](Dwarf_Die* die, Dwarf_Addr at) {
    if (!where(die, at)) return false;
    std::optional<DataType> t = pointee_of(die);
    if (!t) return false;
    const char* n = die_name(die);
    out = TypedPointer{*t, n != nullptr ? n : "?"};
    return true;
  });
  return out;
}

}  // namespace

std::optional<TypedPointer> ModuleTypes::pointee_in_register(uint64_t pc, int reg) {
  if (dwarf_ == nullptr || reg < 0 || reg >= 16) return std::nullopt;
  return pointee_located(mod_, bias_, pc, [&](Dwarf_Die* die, Dwarf_Addr at) { return located_in(die, at, kDwarfReg[reg]); });
}

std::optional<TypedPointer> ModuleTypes::pointee_in_frame(uint64_t pc, int64_t offset) {
  if (dwarf_ == nullptr) return std::nullopt;
  return pointee_located(mod_, bias_, pc, [&](Dwarf_Die* die, Dwarf_Addr at) {
    Dwarf_Attribute attr;
    Dwarf_Op* expr = nullptr;
    size_t len = 0;
    return dwarf_attr(die, DW_AT_location, &attr) != nullptr && dwarf_getlocation_addr(&attr, at, &expr, &len, 1) == 1 &&
           len == 1 && expr[0].atom == DW_OP_fbreg && static_cast<int64_t>(expr[0].number) + 8 == offset;
  });
}

std::optional<TypedPointer> ModuleTypes::pointee_of_member(uint64_t pc, int reg, uint64_t offset) {
  if (dwarf_ == nullptr || reg < 0 || reg >= 16) return std::nullopt;
  std::optional<TypedPointer> out;
  each_variable_at(mod_, bias_, pc, [&](Dwarf_Die* die, Dwarf_Addr at) {
    if (!located_in(die, at, kDwarfReg[reg])) return false;
    Dwarf_Die type, agg;
    if (!type_of(die, &type) || !is_pointer(dwarf_tag(&type)) || !type_of(&type, &agg)) return false;
    if (!is_aggregate(dwarf_tag(&agg))) return false;
    Dwarf_Die child;
    if (dwarf_child(&agg, &child) != 0) return false;
    do {
      if (dwarf_tag(&child) != DW_TAG_member) continue;
      Dwarf_Attribute attr;
      Dwarf_Word off = 0;
      if (dwarf_attr(&child, DW_AT_data_member_location, &attr) == nullptr || dwarf_formudata(&attr, &off) != 0 ||
          off != offset)
        continue;
      std::optional<DataType> t = pointee_of(&child);
      if (!t) return false;
      const char* v = die_name(die);
      const char* m = die_name(&child);
      // An unnamed parameter (an OpenMP region's data block) is left out: the member names it.
      out = TypedPointer{*t, (v != nullptr ? std::string(v) + "->" : std::string()) + (m != nullptr ? m : "?")};
      return true;
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
  });
  return out;
}

namespace {

// Whether a parameter of this type travels in a general register (the System V class INTEGER:
// pointers, integers, enums); false for floating point; nullopt for an aggregate (its class
// depends on its members, and the count is lost).
std::optional<bool> in_general_register(Dwarf_Die* param) {
  Dwarf_Die type;
  if (!type_of(param, &type)) return std::nullopt;
  const int tag = dwarf_tag(&type);
  if (is_pointer(tag) || tag == DW_TAG_enumeration_type) return true;
  if (tag != DW_TAG_base_type) return std::nullopt;
  Dwarf_Attribute attr;
  Dwarf_Word enc = 0;
  if (dwarf_formudata(dwarf_attr(&type, DW_AT_encoding, &attr), &enc) != 0) return std::nullopt;
  return enc != DW_ATE_float && enc != DW_ATE_complex_float;
}

}  // namespace

bool ModuleTypes::parameter_in(uint64_t pc, int reg, Dwarf_Die* out) {
  if (dwarf_ == nullptr || reg < 0 || reg >= 16) return false;
  Dwarf_Addr at = 0;
  std::vector<Dwarf_Die> scopes = scopes_at(mod_, bias_, pc, &at);
  if (scopes.empty() || dwarf_tag(&scopes.back()) != DW_TAG_subprogram) return false;
  Dwarf_Die& fn = scopes.back();
  Dwarf_Addr entry = 0;
  const bool has_entry = dwarf_entrypc(&fn, &entry) == 0;
  // By the location at the entry; else by the ABI's order (rdi rsi rdx rcx r8 r9), as code built
  // without optimisation keeps every parameter in the stack frame.
  static const int kAbiOrder[6] = {7, 6, 2, 1, 8, 9};
  int abi_index = -1;
  for (int k = 0; k < 6; ++k)
    if (kAbiOrder[k] == reg) abi_index = k;
  int general = 0;
  bool order_known = true;
  Dwarf_Die child;
  if (dwarf_child(&fn, &child) != 0) return false;
  do {
    if (dwarf_tag(&child) != DW_TAG_formal_parameter) continue;
    if (has_entry && located_in(&child, entry, kDwarfReg[reg])) {
      *out = child;
      return true;
    }
    const std::optional<bool> g = in_general_register(&child);
    if (!g) order_known = false;
    if (order_known && *g && general++ == abi_index) {
      *out = child;
      return true;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

std::string ModuleTypes::parameter_name(uint64_t pc, int reg) {
  Dwarf_Die param;
  if (!parameter_in(pc, reg, &param)) return {};
  const char* n = die_name(&param);
  return n != nullptr ? n : "";
}

std::optional<TypedPointer> ModuleTypes::pointee_of_parameter(uint64_t pc, int reg) {
  Dwarf_Die param;
  if (!parameter_in(pc, reg, &param)) return std::nullopt;
  std::optional<DataType> t = pointee_of(&param);
  if (!t) return std::nullopt;
  const char* n = die_name(&param);
  return TypedPointer{*t, n != nullptr ? n : "?"};
}

namespace {

// Builds the index of static variables and COMMON blocks by address.
void index_die(Dwarf_Die* die, std::map<Dwarf_Addr, Dwarf_Off>& out, int depth) {
  Dwarf_Die child;
  if (depth > 8 || dwarf_child(die, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    Dwarf_Addr a = 0;
    if ((tag == DW_TAG_variable || tag == DW_TAG_common_block) && static_address(&child, &a))
      out.emplace(a, dwarf_dieoffset(&child));
    if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
        tag == DW_TAG_module || tag == DW_TAG_inlined_subroutine)
      index_die(&child, out, depth + 1);
  } while (dwarf_siblingof(&child, &child) == 0);
}

}  // namespace

std::optional<DataType> ModuleTypes::static_type(uint64_t addr, std::string* why) {
  if (dwarf_ == nullptr) {
    *why = "no DWARF for the module";
    return std::nullopt;
  }
  if (index_ == nullptr) {
    index_ = std::make_unique<Index>();
    Dwarf_Off off = 0, next = 0;
    size_t hsize = 0;
    while (dwarf_nextcu(dwarf_, off, &next, &hsize, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die cu;
      if (dwarf_offdie(dwarf_, off + hsize, &cu) != nullptr) index_die(&cu, index_->statics, 0);
      off = next;
    }
  }
  const Dwarf_Addr key = addr + bias_ - dwarf_bias_;
  auto it = index_->statics.find(key);
  if (it == index_->statics.end()) {
    *why = "no DWARF variable at its address";
    return std::nullopt;
  }
  Dwarf_Die die;
  if (dwarf_offdie(dwarf_, it->second, &die) == nullptr) return std::nullopt;
  if (dwarf_tag(&die) == DW_TAG_common_block) {
    // A COMMON block: its variables are its members.
    DataType t;
    const char* n = die_name(&die);
    t.name = std::string("COMMON /") + (n != nullptr ? n : "") + "/";
    Dwarf_Die child;
    if (dwarf_child(&die, &child) == 0) {
      do {
        Dwarf_Addr a = 0;
        Dwarf_Die type;
        if (dwarf_tag(&child) != DW_TAG_variable || !static_address(&child, &a) || a < key || !type_of(&child, &type))
          continue;
        const char* vn = die_name(&child);
        t.members.push_back(DataMember{vn != nullptr ? vn : "?", a - key, size_of(&type)});
        t.size = std::max(t.size, a - key + size_of(&type));
      } while (dwarf_siblingof(&child, &child) == 0);
    }
    std::sort(t.members.begin(), t.members.end(), [](const DataMember& x, const DataMember& y) { return x.offset < y.offset; });
    return t;
  }
  Dwarf_Die type;
  if (!type_of(&die, &type)) {
    *why = "its DWARF variable has no type";
    return std::nullopt;
  }
  std::optional<DataType> t = data_of(&type);
  if (!t) *why = "its DWARF type has no constant size (a dynamic array)";
  return t;
}

std::optional<DataType> ModuleTypes::type_of_die(uint64_t die) {
  Dwarf_Die type;
  if (dwarf_ == nullptr || die == 0 || dwarf_offdie(dwarf_, die, &type) == nullptr) return std::nullopt;
  return data_of(&type);
}

std::optional<DataType> ModuleTypes::array_within(uint64_t die, uint64_t offset, uint64_t step, uint64_t* at) {
  Dwarf_Die type;
  if (dwarf_ == nullptr || die == 0 || step == 0 || dwarf_offdie(dwarf_, die, &type) == nullptr)
    return std::nullopt;
  uint64_t base = 0;
  // Down the members that hold `offset`, a few levels (std::array inside a class is two).
  for (int depth = 0; depth < 6; ++depth) {
    if (dwarf_tag(&type) == DW_TAG_array_type) {
      DataType t;
      if (!describe_array(&type, &t) || t.size == 0 || step % t.size != 0) return std::nullopt;
      *at = base;
      return t;
    }
    if (!is_aggregate(dwarf_tag(&type))) return std::nullopt;
    Dwarf_Die child, next;
    bool found = false;
    if (dwarf_child(&type, &child) != 0) return std::nullopt;
    do {
      const int tag = dwarf_tag(&child);
      Dwarf_Attribute attr;
      Dwarf_Word off = 0;
      if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
          dwarf_attr(&child, DW_AT_data_member_location, &attr) == nullptr || dwarf_formudata(&attr, &off) != 0 ||
          !type_of(&child, &next))
        continue;
      if (offset >= base + off && offset < base + off + size_of(&next)) {
        base += off;
        type = next;
        found = true;
      }
    } while (!found && dwarf_siblingof(&child, &child) == 0);
    if (!found) return std::nullopt;
  }
  return std::nullopt;
}

std::optional<TypedPointer> ModuleTypes::pointee_of_static(uint64_t addr) {
  std::string why;
  if (dwarf_ == nullptr) return std::nullopt;
  if (index_ == nullptr) (void)static_type(addr, &why);
  auto it = index_->statics.find(addr + bias_ - dwarf_bias_);
  if (it == index_->statics.end()) return std::nullopt;
  Dwarf_Die die;
  if (dwarf_offdie(dwarf_, it->second, &die) == nullptr) return std::nullopt;
  std::optional<DataType> t = pointee_of(&die);
  if (!t) return std::nullopt;
  const char* n = die_name(&die);
  return TypedPointer{*t, n != nullptr ? n : "?"};
}

}  // namespace hpcl::analysis
