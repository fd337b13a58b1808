// The ELF symbols of one module sorted by address, for finding the symbol at an address in
// O(log n). libdwfl's dwfl_module_addrinfo scans the whole symbol table on every call: merging
// two profiles of OpenFOAM (no debug information, 60-odd libraries of up to 100,000 symbols
// each) spent 60% of its time there (perf, bench/openfoam_merge.sh).
#pragma once

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <vector>

namespace hpcl::analysis {

class SymbolIndex {
 public:
  // Reads `mod`'s symbol table (symtab, else dynsym) once; the names stay owned by libdwfl.
  explicit SymbolIndex(Dwfl_Module* mod);

  struct Hit {
    const char* name = nullptr;  // null: no symbol at the address
    Dwarf_Addr start = 0;        // Dwfl address of the symbol
    uint64_t size = 0;
  };
  // The symbol at Dwfl address `addr`, as dwfl_module_addrinfo chooses it: the nearest one at or
  // below the address whose size covers it (at one address: a global before a weak before a
  // local one, then the smaller); else the nearest sizeless one in the address's section that no sized symbol
  // ends after (__GNU_EH_FRAME_HDR does not name the .eh_frame after it).
  Hit at(Dwarf_Addr addr) const;
  size_t size() const { return sized_.size() + sizeless_.size(); }

 private:
  struct Entry {
    Dwarf_Addr addr;
    uint64_t size;
    const char* name;
    int rank;  // binding: 0 global, 1 weak, 2 local
    uint32_t section;
  };
  struct Section {
    Dwarf_Addr addr, end;
    uint32_t index;
  };
  uint32_t section_of(Dwarf_Addr addr) const;  // 0 when in none
  std::vector<Entry> sized_, sizeless_;  // each sorted by (addr, rank)
  std::vector<Section> sections_;        // allocated sections, sorted by address
  // For each sized_[i]: the largest end (addr + size) of sized_[0..i], so a search can stop once
  // no earlier symbol can still cover the address.
  std::vector<Dwarf_Addr> max_end_;
};

}  // namespace hpcl::analysis
