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

namespace {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

// Whether `s` has the keyword "operator" at `i` (not part of a longer identifier).
bool operator_at(std::string_view s, size_t i) {
  return s.substr(i).starts_with("operator") && (i == 0 || !is_identifier_char(s[i - 1])) &&
         (i + 8 >= s.size() || !is_identifier_char(s[i + 8]));
}

// Index of the bracket closing the one at `open`, or s.size().
size_t matching_close(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == '>' || c == ')' || c == ']' || c == '}') && --depth == 0) return i;
  }
  return s.size();
}

constexpr std::string_view kAnonymous = "(anonymous namespace)";

}  // namespace

std::string_view qualified_name(std::string_view s) {
  size_t start = 0;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (s.substr(i).starts_with(kAnonymous)) {
      i += kAnonymous.size();
    } else if (operator_at(s, i)) {
      // "operator()", "operator<<", "operator new[]", "operator std::string": up to the
      // parameter list, whose '(' then ends the name below.
      i += 8;
      if (s.substr(i).starts_with("()")) i += 2;
      while (i < s.size() && s[i] != '(') ++i;
    } else if (c == ' ') {
      start = ++i;  // what came before was a return type ("void", "LAMMPS_NS::Pair*")
    } else if (c == '(') {
      size_t close = matching_close(s, i);
      // "f(int)::Local::g()": a parameter list followed by "::" belongs to an enclosing scope.
      if (close < s.size() && s.substr(close + 1).starts_with("::")) {
        i = close + 1;
      } else {
        return s.substr(start, i - start);
      }
    } else if (c == '<' || c == '[' || c == '{') {
      i = std::min(matching_close(s, i) + 1, s.size());
    } else {
      ++i;
    }
  }
  return s.substr(start);
}

std::string qualified_base_name(std::string_view demangled) {
  std::string_view q = qualified_name(demangled);
  std::string out;
  size_t i = 0;
  while (i < q.size()) {
    if (operator_at(q, i)) {  // "operator<" is a name, not template arguments
      size_t end = q.find('(', i + 8);
      if (end == std::string_view::npos) end = q.size();
      if (q.substr(i + 8).starts_with("()")) end = i + 10;
      out.append(q.substr(i, end - i));
      i = end;
    } else if (q[i] == '<') {
      i = std::min(matching_close(q, i) + 1, q.size());
    } else {
      out.push_back(q[i++]);
    }
  }
  return out;
}

size_t last_scope(std::string_view f) {
  int depth = 0;
  size_t found = std::string_view::npos;
  for (size_t i = 0; i + 1 < f.size(); ++i) {
    char c = f[i];
    if (c == '<' || c == '(') ++depth;
    else if ((c == '>' || c == ')') && depth > 0) --depth;
    else if (c == ':' && f[i + 1] == ':' && depth == 0) found = i;
  }
  return found;
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
