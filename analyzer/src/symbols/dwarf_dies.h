// Small readers of DWARF entries shared by the analyses that name data from a module's DWARF
// (data_types.cpp: types of static and pointed-to data; stack_locals.cpp: variables of a
// stack frame): a DIE's name and type, a type's size and printed name, an array dimension's
// extent. Header-only so that each user keeps one translation unit.
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <cstdint>
#include <string>

namespace hpcl::analysis::dwarf {

inline const char* die_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

// The type of a variable, member or type, with typedefs and qualifiers peeled off.
inline bool type_of(Dwarf_Die* die, Dwarf_Die* type) {
  Dwarf_Attribute attr;
  Dwarf_Die raw;
  if (dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &attr), &raw) == nullptr)
    return false;
  return dwarf_peel_type(&raw, type) == 0;
}

// Bytes of a type; 0 when unknown (a dynamic array, an incomplete type).
inline uint64_t size_of(Dwarf_Die* type) {
  Dwarf_Word size = 0;
  return dwarf_aggregate_size(type, &size) == 0 ? size : 0;
}

inline bool is_pointer(int tag) {
  return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
         tag == DW_TAG_rvalue_reference_type;
}

inline bool is_aggregate(int tag) {
  return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

inline bool fortran_cu(Dwarf_Die* die) {
  Dwarf_Die cu;
  if (dwarf_diecu(die, &cu, nullptr, nullptr) == nullptr) return false;
  const int lang = dwarf_srclang(&cu);
  return lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 || lang == DW_LANG_Fortran95 ||
         lang == DW_LANG_Fortran03 || lang == DW_LANG_Fortran08;
}

// A (peeled) type's name as reports print it: "double", "struct rec", "type(cell)" for a Fortran
// derived type, "pointer"; "?" for what has no name (arrays are named by their users, who know
// the dimensions).
inline std::string type_name(Dwarf_Die* type) {
  const int tag = dwarf_tag(type);
  const char* name = die_name(type);
  if (tag == DW_TAG_structure_type && name != nullptr && fortran_cu(type))
    return std::string("type(") + name + ")";
  const char* kind = tag == DW_TAG_structure_type ? "struct "
                     : tag == DW_TAG_class_type   ? "class "
                     : tag == DW_TAG_union_type   ? "union "
                                                  : "";
  if (name != nullptr) return std::string(kind) + name;
  if (is_aggregate(tag)) return std::string(kind) + "<anonymous>";
  if (is_pointer(tag)) return "pointer";
  return "?";
}

// The number of elements of an array dimension (DW_TAG_subrange_type) when it is a constant:
// DW_AT_count, else upper - lower + 1 with the language's default lower bound (Fortran 1, C
// 0). False when a bound is an expression or another DIE (a C VLA, a Fortran automatic or
// allocatable array) or the upper bound is missing (C `x[]`).
// An array bound's constant. A fixed-size form (data1..data8) holds it as is: libdw's
// dwarf_formsdata sign-extends those, which read `int a[256]`'s upper bound, 255 in one byte,
// as -1. A negative bound comes as DW_FORM_sdata (or implicit_const), which is signed.
inline bool bound_value(Dwarf_Attribute* attr, Dwarf_Sword* out) {
  const unsigned form = dwarf_whatform(attr);
  if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) return dwarf_formsdata(attr, out) == 0;
  Dwarf_Word u = 0;
  if (dwarf_formudata(attr, &u) != 0) return false;
  *out = static_cast<Dwarf_Sword>(u);
  return true;
}

inline bool subrange_extent(Dwarf_Die* subrange, bool fortran, uint64_t* count) {
  Dwarf_Attribute attr;
  if (dwarf_attr(subrange, DW_AT_count, &attr) != nullptr) {
    Dwarf_Word n = 0;
    if (dwarf_formudata(&attr, &n) != 0) return false;
    *count = n;
    return true;
  }
  Dwarf_Sword lo = fortran ? 1 : 0, hi = 0;
  Dwarf_Attribute la;
  if (dwarf_attr(subrange, DW_AT_lower_bound, &la) != nullptr && !bound_value(&la, &lo)) return false;
  if (dwarf_attr(subrange, DW_AT_upper_bound, &attr) == nullptr || !bound_value(&attr, &hi)) return false;
  *count = hi >= lo ? static_cast<uint64_t>(hi - lo + 1) : 0;
  return true;
}

}  // namespace hpcl::analysis::dwarf
