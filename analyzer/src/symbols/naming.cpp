// Demangling, C++ name parsing and static-variable names (see naming.h). Fortran and OpenMP
// names are in naming_fortran.cpp.
#include "naming.h"

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace hpcl::analysis {
namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Drops trailing ".N" (local statics, numbered by GCC) and ".lto_priv" / ".constprop"-style
// clone components; a leading '.' is kept so section-like names stay recognizable.
std::string_view strip_gcc_suffixes(std::string_view s) {
  for (;;) {
    size_t dot = s.rfind('.');
    if (dot == std::string_view::npos || dot == 0) return s;
    std::string_view tail = s.substr(dot + 1);
    if (all_digits(tail) || tail == "lto_priv" || tail == "constprop" || tail == "isra" ||
        tail == "part" || tail == "cold")
      s = s.substr(0, dot);
    else
      return s;
  }
}

}  // namespace

std::string demangle(std::string_view symbol) {
  if (!symbol.starts_with("_Z")) return std::string(symbol);
  std::string mangled(symbol);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !out) return mangled;
  return out.get();
}

std::string static_display_name(std::string_view raw_symbol) {
  // Section entries are named "[libfoo.so]" by the runtime and are not symbols.
  if (raw_symbol.starts_with("[")) return std::string(raw_symbol);
  std::string_view stripped = strip_gcc_suffixes(raw_symbol);
  if (!stripped.starts_with("_Z")) return display_function_name(stripped).name;
  return demangle(stripped);
}

std::string_view basename_of(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_profiler_own_work(const Location& loc) {
  return loc.function == std::string_view("hpcrun_lite_profiler_own_work") &&
         basename_of(loc.module).starts_with("libhpcrun-lite");
}

bool is_profiler_module(std::string_view module_path) {
  const std::string_view base = basename_of(module_path);
  for (std::string_view p : {"libhpcrun-lite", "libunwind", "libZydis"})
    if (base.starts_with(p)) return true;
  return false;
}

std::string location_label(const Location& loc) {
  // The runtime's marker frame above the samples that interrupted its own work (sampler.cpp).
  if (is_profiler_own_work(loc)) return "[profiler's own work]";
  if (loc.function.empty()) {
    char off[32];
    std::snprintf(off, sizeof off, "0x%llx", static_cast<unsigned long long>(loc.offset));
    if (loc.module.empty()) return off;
    return std::string(basename_of(loc.module)) + "+" + off;
  }
  std::string out = loc.function;
  if (loc.unnamed_function) {
    if (loc.has_address && loc.offset >= loc.function_start) {
      char off[32];
      std::snprintf(off, sizeof off, "+0x%llx",
                    static_cast<unsigned long long>(loc.offset - loc.function_start));
      out += off;
    }
    return out;
  }
  if (!loc.file.empty()) {
    out += " (";
    out += basename_of(loc.file);
    if (loc.line != 0) out.append(":").append(std::to_string(loc.line));
    out += ")";
  } else if (!loc.module.empty()) {
    out += " (";
    out += basename_of(loc.module);
    out += ")";
  }
  return out;
}

}  // namespace hpcl::analysis
