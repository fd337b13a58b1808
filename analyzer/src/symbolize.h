// Offline symbolization with elfutils libdw: (module, link-time offset) -> function, file and line,
// with inlined calls expanded innermost first, falling back to ELF symbols (.symtab or .dynsym)
// when a module has no DWARF. Every module gets its own Dwfl session, so modules can be
// symbolized on different threads without sharing libdw state.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hpcl/profile.h"

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

  // Innermost first; never empty. Unknown parts are "" / 0. Call only when ok().
  std::vector<SourceLoc> lookup(uint64_t offset) const;

 private:
  struct Session;
  std::unique_ptr<Session> session_;
  bool missing_ = false;
  std::string error_;
};

// Every distinct frame of the tree and of the allocation sites, sorted by (module, offset).
std::vector<Frame> frames_to_symbolize(const Profile& db);

struct SymbolizeResult {
  std::vector<Symbolized> symbols;    // same order as the frames given
  std::vector<std::string> warnings;  // one per unusable module, in module order
};

// Looks up each frame once; `jobs` threads work on different modules. Frames of modules that
// cannot be opened (and of no module) get a single empty location.
SymbolizeResult symbolize_frames(const std::vector<Module>& modules,
                                 const std::vector<Frame>& sorted_frames, unsigned jobs);

}  // namespace hpcl::analysis
