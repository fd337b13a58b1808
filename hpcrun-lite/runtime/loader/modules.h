// The registry of loaded modules (the executable and every shared library, including those
// loaded later with dlopen) with their static data symbols.
//
// It answers two questions:
//  - in the signal handler: which static variable holds a data address, looked up in every
//    module, not only the module of the sampled instruction. TLS variables are found per thread
//    from its thread pointer (FS base): those of modules loaded at start-up at a fixed offset
//    below it (static TLS), those of modules loaded later through the thread's DTV (dynamic
//    TLS, see dynamic_tls.h);
//  - at write time: which module and link-time offset a code address has.
// Entries are appended (never removed, so a dlclose'd module keeps its frames nameable) and
// published with a release store of the count; readers use only published entries. An entry
// whose module was unmapped (dlclose) is marked unloaded: it no longer answers data lookups, and
// a module mapped later at its address is registered as new.
#pragma once

#include <link.h>

#include <cstddef>
#include <cstdint>

#include "loader/elf_symbols.h"

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
  uint64_t tls_size;             // PT_TLS p_memsz
  uint64_t tls_align;            // PT_TLS p_align
  // Loaded after start-up with a PT_TLS: blocks found through each thread's DTV under this id.
  // Cleared (atomically) when a newer module takes over the same id after a dlclose.
  uint32_t dynamic_tls;
  uint64_t tls_modid;
  uint32_t unloaded;             // atomic: 1 once the module was found unmapped
  uint64_t dynamic;              // runtime address of PT_DYNAMIC, 0 without one
  uint32_t symbols_read;         // atomic: 1 once `symbols` holds the file's (module_symbols_ready)
  SymbolTable symbols;           // build_id from the loaded image, the rest when first needed
};

struct StaticHit {
  uint32_t module;
  int64_t symbol;  // index into the module's symbols, or -1: the module's data without a symbol
};

// Called by modules_scan for each object it registers, once the entry is published (the
// allocator API interposition of interpose/ patches the object's calls there). Set once, before the
// first scan.
using NewModuleHook = void (*)(const dl_phdr_info* info);
void modules_set_on_new(NewModuleHook hook);

// Scans dl_iterate_phdr for modules not yet registered. Not signal-safe; callers hold the
// runtime guard. Returns the number of new modules.
uint32_t modules_scan();

// Marks unloaded every registered module the loader no longer lists (after a dlclose), calling
// `on_range(lo, hi)` for each one's address range (to drop what was cached about its code).
// Not signal-safe; callers hold the same lock as for modules_scan. Returns how many.
uint32_t modules_forget_unloaded(void (*on_range)(uint64_t lo, uint64_t hi));

uint32_t modules_count();
const ModuleEntry* module_get(uint32_t i);

// Reads module i's data symbols if nobody has yet (see modules.cpp for why not at load time).
// Async-signal-safe. False only when the caller interrupted its own thread's read (or another
// thread's read took over 100 ms): the module's symbols are then not available to this caller.
bool module_symbols_ready(uint32_t i);

// The dynamic symbol `name` of module i, found through the loaded image's GNU hash table as the
// loader would (no file read): 1 and its link-time value in *value, 0 when the module does not
// define it, -1 when the module has no GNU hash table to ask.
int module_dynamic_symbol(uint32_t i, const char* name, uint64_t* value);

// In a forked child: a symbol read that another thread of the parent had under way is abandoned.
void modules_after_fork_child();

// Signal-safe: the static variable holding `addr`, with `tp` the thread pointer (FS base) of the
// current thread for TLS.
bool modules_find_static(uint64_t addr, uint64_t tp, StaticHit* out);

// Signal-safe: the TLS variable holding `addr` in the thread with thread pointer `tp` (any
// thread): static TLS by arithmetic only; with `dynamic`, also the TLS blocks of modules loaded
// later, read from that thread's DTV (a few system calls, see dynamic_tls.h).
bool modules_find_tls(uint64_t addr, uint64_t tp, bool dynamic, StaticHit* out);

// Signal-safe, no memory reads: whether a heap block of `size` bytes could be the TLS block of a
// module loaded after start-up (glibc allocates those with malloc, so the address map may have
// tracked one as a heap block).
bool modules_maybe_dynamic_tls_block(uint64_t size);

// The module containing a code address, or kNoModuleIndex.
inline constexpr uint32_t kNoModuleIndex = 0xffffffffu;
uint32_t modules_find_code(uint64_t addr);

}  // namespace hpcrun
