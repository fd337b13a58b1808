// Offline symbolization with elfutils libdw: (module, link-time offset) -> function, file and line,
// with inlined calls expanded innermost first, falling back to ELF symbols (.symtab or .dynsym)
// when a module has no DWARF. Every module gets its own Dwfl session, so modules can be
// symbolized on different threads without sharing libdw state.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hpcl/profile.h"

struct Dwfl_Module;

namespace hpcl::analysis {

// One module file opened for lookups.
class ModuleSymbols {
 public:
  // `build_id` (hex, may be empty) is compared with the file's when both are known: symbols of a
  // different build would be wrong, so such a file is refused.
  ModuleSymbols(const std::string& path, const std::string& build_id);
  ~ModuleSymbols();
  ModuleSymbols(const ModuleSymbols&) = delete;
  ModuleSymbols& operator=(const ModuleSymbols&) = delete;

  bool ok() const;
  bool missing() const { return missing_; }  // the file does not exist
  const std::string& error() const { return error_; }

  // Innermost first; never empty. Unknown parts are "" / 0. A function without DWARF or symbol
  // is named by the bounds of its call-frame information (unnamed_function_name). Call only
  // when ok().
  std::vector<SourceLoc> lookup(uint64_t offset) const;
  // For a call-site frame (offset = return address - 1): the function its call instruction
  // calls when that is known and defined in this module (see call_sites.h); function "" else.
  SourceLoc callee(uint64_t offset) const;
  // The function holding `offset` by the module's unwind tables: [start, end) link-time.
  bool function_bounds(uint64_t offset, uint64_t* start, uint64_t* end) const;
  // The ELF symbol at link-time `offset` (symbol_index.h: dwfl_module_addrinfo's choice, found
  // by binary search); name null when there is none.
  struct Symbol {
    const char* name = nullptr;
    uint64_t start = 0;  // link-time
    uint64_t size = 0;
  };
  Symbol symbol_at(uint64_t offset) const;
  // DWARF was found, in the file or in a separate debug file (build-id, .gnu_debuglink).
  bool has_debug_info() const { return has_debug_info_; }
  // For the analyses of the module's code and types (code_facts.h): libdw's module, and the
  // bias of its addresses (Dwfl address = link-time address + bias). Call only when ok().
  ::Dwfl_Module* dwfl_module() const;
  uint64_t bias() const;

 private:
  struct Session;
  std::unique_ptr<Session> session_;
  bool missing_ = false;
  bool has_debug_info_ = false;
  std::string error_;
};

// Every distinct frame of the tree and of the allocation sites, sorted by (module, offset).
std::vector<Frame> frames_to_symbolize(const Profile& db);

struct SymbolizeResult {
  std::vector<Symbolized> symbols;    // same order as the frames given
  std::vector<std::string> warnings;  // one per unusable module, in module order
  std::vector<std::string> no_debug_info;  // paths of the opened modules without DWARF
};

// The name of a function known only by its code bounds: "app!0x3f100" (module basename, link-time
// start). unnamed_function_start parses it back; false for any other name.
std::string unnamed_function_name(std::string_view module, uint64_t start);
bool unnamed_function_start(std::string_view function, uint64_t* start);

// An extra root directory searched for separate debug files before /usr/lib/debug
// (ROOT/.build-id/xx/yyyy.debug, ROOT/<module path>); "" restores the default. Not thread-safe:
// call before symbolizing.
void set_debug_root(const std::string& root);

// Looks up each frame once; `jobs` threads work on different modules. Frames of modules that
// cannot be opened (and of no module) get a single empty location. Python frames (the script
// pseudo-module) are what `script_frames` says of them: function, file and line.
SymbolizeResult symbolize_frames(const std::vector<Module>& modules,
                                 const std::vector<Frame>& sorted_frames, unsigned jobs,
                                 const std::vector<ScriptFrame>& script_frames = {});

}  // namespace hpcl::analysis
