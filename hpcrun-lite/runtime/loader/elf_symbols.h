// Reads the data symbols of one ELF file: STT_OBJECT and STT_TLS symbols with a size, from
// .symtab, else .dynsym; for a stripped file, from its separate debug file found by build-id
// under /usr/lib/debug/.build-id. One file at a time (the module registry serialises its callers):
// the reader keeps one scratch buffer for the file being read. Async-signal-safe (modules.h reads
// a module's symbols when a sample first needs them): raw system calls, memory from mmap so the
// program's allocator never sees it, errno left alone.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hpcrun {

struct DataSymbol {
  uint64_t value;     // st_value: link-time address, or offset in the TLS block for TLS symbols
  uint64_t size;
  uint32_t name;      // st_name: offset in the file's string table (read_symbol_name)
  uint32_t is_tls;
};

// Trivially constructible on purpose: module tables are zero-initialised globals that must be
// ready before any constructor runs (a dynamic initialiser would run after the runtime's own
// start-up and wipe what it read).
// The names stay in the file: a profile names the few dozen symbols its samples hit, and a C++
// library's string table is megabytes (libOpenFOAM.so: 1.5 MB of .dynstr for 6,330 data symbols
// among 22,000), which the handler that first needed the table copied whole (0.9% of an
// OpenFOAM run's CPU, perf record, 2 Dec).
struct SymbolTable {
  DataSymbol* syms;   // sorted by value, overlapping duplicates removed
  uint32_t count;
  uint64_t names_at;     // the string table's offset in the file the symbols came from
  uint64_t names_size;
  bool names_in_debug;   // that file is the separate debug file (found by build_id)
  char build_id[41];  // hex
};

// Reads `path`; false when the file cannot be read or is not ELF64 (the table is then empty).
// A build ID already in `out` (from the loaded image's notes) finds the debug file; else the
// file's own notes give it.
bool read_data_symbols(const char* path, SymbolTable* out);

// The GNU build ID (hex) among ELF notes [notes, notes + len); false when there is none.
bool build_id_from_notes(const uint8_t* notes, uint64_t len, char out[41]);

// The name of `s`, a symbol of `t` read by read_data_symbols(path), into out[0, cap) (cut to
// cap - 1 bytes); false when the file cannot be read. Async-signal-safe.
bool read_symbol_name(const char* path, const SymbolTable& t, const DataSymbol& s, char* out, size_t cap);

// Index of the symbol containing `value` among syms[lo, hi) (same TLS-ness), or -1.
int64_t find_symbol(const SymbolTable& t, uint64_t value, bool tls);

}  // namespace hpcrun
