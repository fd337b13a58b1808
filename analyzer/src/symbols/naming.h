// Names as the source spells them, from the symbols of the binaries: demangling, the
// source-level names of functions and static variables (C++, Fortran modules and COMMON blocks,
// OpenMP outlined regions) and the parts of a qualified C++ name. Which frame names a heap
// variable is a rule of the report model (model/heap_naming.h).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hpcl/text/cxx_names.h"  // qualified_name, qualified_base_name, last_scope
#include "location.h"

namespace hpcl::analysis {

// abi::__cxa_demangle for "_Z..." names; anything else (C names, failures) is returned unchanged.
std::string demangle(std::string_view symbol);

// Demangled symbol without GCC's local-static and clone suffixes: "counter.3" -> "counter",
// "_ZZ4mainE5count.0" -> "main::count", "table.lto_priv.0" -> "table"; Fortran module variables
// as the source names them: "__fields_MOD_mod_table" -> "fields::mod_table" (gfortran),
// "_QMfieldsEmod_table" -> "fields::mod_table" (flang).
std::string static_display_name(std::string_view raw_symbol);

// A function name as the source names it, and whether it is an OpenMP outlined region:
// "__fields_MOD_total" -> "fields::total"; "total._omp_fn.0" -> "total [omp region 0]";
// "__fields_MOD_x._omp_fn.1" -> "fields::x [omp region 1]". Others are returned unchanged.
struct FunctionName {
  std::string name;
  bool omp_region = false;
};
FunctionName display_function_name(std::string_view function);

// The Fortran COMMON block a static symbol is, shown as "/name/" ("//" for blank COMMON), or ""
// when the symbol does not look like one: `name_` (lower-case letters, digits and single
// underscores, one trailing underscore) or `__BLNK__`. Only meaningful for symbols of a module
// known to be Fortran (see is_fortran_source).
std::string fortran_common_block_name(std::string_view raw_symbol);
// .f .for .ftn .f77 .f90 .f95 .f03 .f08 and their upper-case (preprocessed) forms.
bool is_fortran_source(std::string_view file);
// The symbols of the COMMON blocks the DWARF of the module file at `path` declares
// (DW_TAG_common_block: linkage name, else name + "_"), or nullopt when the file cannot be
// opened or has no DWARF. Then fortran_common_block_name's heuristic is all there is.
std::optional<std::set<std::string>> dwarf_common_blocks(const std::string& path);

}  // namespace hpcl::analysis
