// The registry of loaded modules (the executable and every shared library, including those
// loaded later with dlopen) with their static data symbols.
//
// It answers two questions:
//  - in the signal handler: which static variable holds a data address, looked up in every
//    module, not only the module of the sampled instruction; TLS variables of modules loaded at
//    start-up are found through this thread's FS base (static TLS has a fixed offset from it);
//  - at write time: which module and link-time offset a code address has.
// Entries are appended (never removed, so a dlclose'd module keeps its frames nameable) and
// published with a release store of the count; readers use only published entries.
#pragma once

#include <cstddef>
#include <cstdint>

#include "elf_symbols.h"

namespace hpcrun {

inline constexpr uint32_t kMaxModules = 2048;
inline constexpr uint32_t kMaxSegments = 8;

struct ModuleEntry {
  char path[512];
  uint64_t bias;                 // load bias (l_addr)
  uint64_t lo, hi;               // union of PT_LOAD ranges (runtime addresses)
  uint64_t seg_lo[kMaxSegments], seg_hi[kMaxSegments];
  uint32_t nsegs;
  bool has_static_tls;           // PT_TLS at a fixed offset from the thread pointer
  uint64_t tls_offset;           // thread pointer - TLS block start
  uint64_t tls_size;
  SymbolTable symbols;
};

struct StaticHit {
  uint32_t module;
  int64_t symbol;  // index into the module's symbols, or -1: the module's data without a symbol
};

// Scans dl_iterate_phdr for modules not yet registered. Not signal-safe; callers hold the
// runtime guard. Returns the number of new modules.
uint32_t modules_scan();

uint32_t modules_count();
const ModuleEntry* module_get(uint32_t i);

// Signal-safe: the static variable holding `addr`, with `tp` the thread pointer (FS base) of the
// current thread for TLS.
bool modules_find_static(uint64_t addr, uint64_t tp, StaticHit* out);

// The module containing a code address, or kNoModuleIndex.
inline constexpr uint32_t kNoModuleIndex = 0xffffffffu;
uint32_t modules_find_code(uint64_t addr);

}  // namespace hpcrun
