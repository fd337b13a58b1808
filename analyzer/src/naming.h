// Naming rules that turn raw profile data into what a programmer recognizes: demangling, the
// source-level name of a static variable, and the allocation site that names a heap variable
// (the innermost frame of the allocation path that is the program's own code rather than the
// allocator or the C++ runtime).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "location.h"

namespace hpcl::analysis {

// abi::__cxa_demangle for "_Z..." names; anything else (C names, failures) is returned unchanged.
std::string demangle(std::string_view symbol);

// Demangled symbol without GCC's local-static and clone suffixes: "counter.3" -> "counter",
// "_ZZ4mainE5count.0" -> "main::count", "table.lto_priv.0" -> "table".
std::string static_display_name(std::string_view raw_symbol);

// malloc, calloc, operator new(unsigned long), std::allocator<int>::allocate(...), ...
bool is_allocation_function(std::string_view demangled);

// A frame of libc, libstdc++, libgcc_s, the dynamic loader or our runtime, a libstdc++ header
// inlined into user code, or an allocation function wherever it lives.
bool is_allocator_or_runtime(const Location& loc);

// Index into `path` (innermost first, inline-expanded, without the API pseudo-frame) of the
// frame that names the heap variable: the innermost one that is not allocator/runtime, else 0.
// Returns path.size() when the path is empty.
size_t heap_site_frame(const std::vector<Location>& path);

}  // namespace hpcl::analysis
