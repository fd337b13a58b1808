// A source-level location as the report shows it: one entry of a symbolized frame after inline
// expansion, with the module it came from. Shared by the report model, the formatters and the
// heap-naming rules, so every output labels a frame the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "interned_string.h"

namespace hpcl::analysis {

// The names are interned (interned_string.h): a Location is small and copied freely, and the
// fields read as the strings they were made from.
struct Location {
  InternedString function;  // demangled; "" when unknown
  InternedString file;      // as recorded in the debug info (usually absolute); "" when unknown
  uint32_t line = 0;
  InternedString module;    // path of the module; "" for no module (or the allocation API pseudo-frame)
  uint64_t offset = 0;   // link-time address of the code frame this location was expanded from
  bool has_address = false;  // false for the allocation API pseudo-frame
  // Recovered, not on the stack: the caller's call went to this function, which tail-called
  // the next frame inward (or the allocator) and so left no frame of its own.
  bool tail_call = false;
  // A function known only by its code bounds (no symbol, no DWARF): named "module!0xSTART",
  // and labelled with the frame's offset into it so two call sites in it stay apart.
  bool unnamed_function = false;
  uint64_t function_start = 0;
  bool omp_region = false;   // an OpenMP outlined region, named after its parent (naming.h)
  bool wrapper = false;      // allocation paths: a frame of the program's allocation wrappers
};

std::string_view basename_of(std::string_view path);

// "function (file.c:12)", "function (file.c)", "function (libm.so.6)", for a function known only
// by its bounds "app!0x3f100+0x15d", or for an unsymbolized frame "libm.so.6+0x1f2c"; files and
// modules are shown by their basename. The runtime's marker frame above the samples that
// interrupted its own work is "[profiler's own work]".
std::string location_label(const Location& loc);

// The runtime's marker frame (sampler.cpp): samples that interrupted the profiler's own work
// hang under it.
bool is_profiler_own_work(const Location& loc);
// A module only the profiler brings into the program: its runtime (libhpcrun-lite), and the
// libraries it loads for itself (libunwind, Zydis). Their data and code are the profiler's, not
// the program's, and their missing debug information is nothing the user has to install.
bool is_profiler_module(std::string_view module_path);

}  // namespace hpcl::analysis
