// Demangling, static-variable names and the heap allocation-site rule (see naming.h).
#include "naming.h"

#include <cxxabi.h>

#include <array>
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
  return demangle(strip_gcc_suffixes(raw_symbol));
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

bool is_allocator_or_runtime(const Location& loc) {
  std::string_view mod = basename_of(loc.module);
  if (starts_with_any(mod, {"libc.so", "libc-", "libstdc++", "libgcc_s", "ld-linux",
                            "libhpcrun-lite"}))
    return true;
  if (loc.file.find("/usr/include/c++/") != std::string::npos) return true;
  return !loc.function.empty() && is_allocation_function(loc.function);
}

size_t heap_site_frame(const std::vector<Location>& path) {
  for (size_t i = 0; i < path.size(); ++i)
    if (!is_allocator_or_runtime(path[i])) return i;
  return path.empty() ? path.size() : 0;
}

std::string_view basename_of(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string location_label(const Location& loc) {
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
