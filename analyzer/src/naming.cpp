// Demangling, C++ name parsing, static-variable names and which frames belong to the allocator
// or the C++ runtime (see naming.h). Fortran and OpenMP names are in naming_fortran.cpp, the
// allocation-wrapper and label rules in naming_sites.cpp.
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

bool starts_with_any(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (s.starts_with(p)) return true;
  return false;
}

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

bool is_allocation_function(std::string_view f) {
  static constexpr std::array<std::string_view, 22> kExact = {
      "malloc", "calloc", "realloc", "reallocarray", "free", "cfree", "memalign",
      "posix_memalign", "aligned_alloc", "valloc", "pvalloc", "mmap", "mmap64", "munmap",
      "strdup", "strndup", "__libc_malloc", "__libc_calloc", "__libc_realloc",
      "__libc_memalign", "__libc_free", "__posix_memalign"};
  // Demangled C++ names carry their parameter list; compare the name part.
  std::string_view name = f.substr(0, f.find('('));
  for (std::string_view e : kExact)
    if (name == e) return true;
  return starts_with_any(f, {"operator new", "operator delete", "std::allocator<",
                             "std::__new_allocator<", "__gnu_cxx::new_allocator<",
                             "std::allocator_traits<", "__gnu_cxx::__alloc_traits<",
                             "std::__allocated_ptr<", "std::__allocate_guarded<"});
}

bool is_cxx_library_function(std::string_view f) {
  std::string_view q = qualified_name(f);
  return starts_with_any(q, {"std::", "__gnu_cxx::", "__cxxabiv1::", "__gnu_debug::"});
}

bool is_allocator_or_runtime(const Location& loc) {
  std::string_view mod = basename_of(loc.module);
  if (starts_with_any(mod, {"libc.so", "libc-", "libstdc++", "libgcc_s", "ld-linux",
                            "libhpcrun-lite"}))
    return true;
  if (loc.file.find("/usr/include/c++/") != std::string::npos) return true;
  return !loc.function.empty() &&
         (is_allocation_function(loc.function) || is_cxx_library_function(loc.function));
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

std::string location_label(const Location& loc) {
  // The runtime's marker frame above the samples that interrupted its own work (sampler.cpp).
  if (loc.function == std::string_view("hpcrun_lite_profiler_own_work") &&
      basename_of(loc.module).starts_with("libhpcrun-lite"))
    return "[profiler's own work]";
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
