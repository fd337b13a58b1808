// Source-level names of Fortran symbols and OpenMP outlined regions (see naming.h): gfortran
// spells a module entity `__module_MOD_name`, flang `_QMmoduleEname` / `_QMmodulePname`, a COMMON
// block `name_`; GCC outlines an OpenMP construct of `f` into `f._omp_fn.N`. COMMON blocks are
// certain when the module's DWARF declares them.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <string>

#include "naming.h"

namespace hpcl::analysis {
namespace {

bool is_lower_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Drops GCC's ".N" numbering of nested/cloned functions: "total.1" -> "total".
std::string_view strip_numeric_suffix(std::string_view s) {
  for (;;) {
    size_t dot = s.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == s.size()) return s;
    for (size_t i = dot + 1; i < s.size(); ++i)
      if (s[i] < '0' || s[i] > '9') return s;
    s = s.substr(0, dot);
  }
}

// "__fields_MOD_x" -> "fields::x"; "_QMfieldsEx" / "_QMfieldsPf" -> "fields::x" / "fields::f";
// "_QPf" -> "f". Anything else unchanged.
std::string fortran_name(std::string_view s) {
  if (s.starts_with("__")) {
    size_t mod = s.find("_MOD_", 2);
    if (mod != std::string_view::npos && mod > 2 && mod + 5 < s.size())
      return std::string(s.substr(2, mod - 2)) + "::" + std::string(s.substr(mod + 5));
  }
  if (s.starts_with("_QM")) {
    // flang: lower-case names separated by upper-case tags (E: entity, P: procedure).
    size_t tag = 3;
    while (tag < s.size() && is_lower_name_char(s[tag])) ++tag;
    if (tag > 3 && tag + 1 < s.size() && (s[tag] == 'E' || s[tag] == 'P'))
      return std::string(s.substr(3, tag - 3)) + "::" + std::string(s.substr(tag + 1));
  }
  if (s.starts_with("_QP") && s.size() > 3) return std::string(s.substr(3));
  return std::string(s);
}

}  // namespace

FunctionName display_function_name(std::string_view f) {
  // C++ clones demangle as "Foo::bar() [clone ._omp_fn.0]".
  constexpr std::string_view kCxxClone = " [clone ._omp_fn.";
  constexpr std::string_view kOmp = "._omp_fn.";
  size_t clone = f.find(kCxxClone);
  size_t omp = f.find(kOmp);
  if (clone != std::string_view::npos || omp != std::string_view::npos) {
    std::string_view parent = f.substr(0, clone != std::string_view::npos ? clone : omp);
    size_t num = clone != std::string_view::npos ? clone + kCxxClone.size() : omp + kOmp.size();
    size_t end = num;
    while (end < f.size() && f[end] >= '0' && f[end] <= '9') ++end;
    if (end > num) {
      return FunctionName{fortran_name(strip_numeric_suffix(parent)) + " [omp region " +
                              std::string(f.substr(num, end - num)) + "]",
                          true};
    }
  }
  return FunctionName{fortran_name(f), false};
}

std::string fortran_common_block_name(std::string_view s) {
  if (s == "__BLNK__") return "//";
  if (s.size() < 2 || !s.ends_with('_') || s.ends_with("__") || s[0] < 'a' || s[0] > 'z')
    return "";
  for (char c : s)
    if (!is_lower_name_char(c)) return "";
  return "/" + std::string(s.substr(0, s.size() - 1)) + "/";
}

namespace {

// COMMON blocks are declared in the program unit (or module) that uses them: walks the scopes a
// Fortran compile unit nests them in.
void collect_common_blocks(Dwarf_Die* parent, std::set<std::string>& names) {
  Dwarf_Die die;
  if (dwarf_child(parent, &die) != 0) return;
  do {
    const int tag = dwarf_tag(&die);
    if (tag == DW_TAG_common_block) {
      Dwarf_Attribute attr;
      if (const char* linkage = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_linkage_name, &attr)))
        names.insert(linkage);
      else if (const char* name = dwarf_diename(&die))
        names.insert(std::string(name) + "_");
    } else if (tag == DW_TAG_subprogram || tag == DW_TAG_module || tag == DW_TAG_lexical_block ||
               tag == DW_TAG_namespace) {
      collect_common_blocks(&die, names);
    }
  } while (dwarf_siblingof(&die, &die) == 0);
}

}  // namespace

std::optional<std::set<std::string>> dwarf_common_blocks(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  Dwarf* dwarf = dwarf_begin(fd, DWARF_C_READ);
  if (dwarf == nullptr) {
    ::close(fd);
    return std::nullopt;
  }
  std::set<std::string> names;
  Dwarf_Off offset = 0, next = 0;
  size_t header = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dwarf, offset + header, &cu) != nullptr) collect_common_blocks(&cu, names);
    offset = next;
  }
  dwarf_end(dwarf);
  ::close(fd);
  return names;
}

bool is_fortran_source(std::string_view file) {
  size_t dot = file.rfind('.');
  if (dot == std::string_view::npos || file.find('/', dot) != std::string_view::npos) return false;
  std::string ext;
  for (char c : file.substr(dot + 1))
    ext.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (const char* e : {"f", "for", "ftn", "f77", "f90", "f95", "f03", "f08"})
    if (ext == e) return true;
  return false;
}

}  // namespace hpcl::analysis
