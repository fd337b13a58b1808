// The memory allocators that replace malloc from a shared library of their own. Both sides need
// the one list: the runtime takes a mapping made from their code for the allocator's arena (never
// a variable of the program), and the analyzer takes their frames for allocator frames when it
// names a heap variable. Header only: a file name compared with a few prefixes.
#pragma once

#include <string_view>

namespace hpcl {

// `file_name` is a module's file name without its directory: libjemalloc.so.2,
// libtcmalloc_minimal.so.4, libmimalloc.so.2, libtbbmalloc.so.2, libtbbmalloc_proxy.so.2, ...
constexpr bool is_allocator_library(std::string_view file_name) {
  constexpr std::string_view kPrefixes[] = {"libjemalloc", "libtcmalloc", "libmimalloc",
                                            "libtbbmalloc", "libsnmalloc", "librpmalloc",
                                            "libhoard"};
  for (std::string_view p : kPrefixes)
    if (file_name.substr(0, p.size()) == p) return true;
  return false;
}

}  // namespace hpcl
