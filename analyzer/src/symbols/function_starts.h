// Function bounds of a module from its call frame information, for code that has no symbol and
// no DWARF (a stripped binary): every function the compiler emitted has an FDE in .eh_frame, and
// the FDE's range is the function's (a split-off cold part has one of its own). libdw parses the
// entries (dwarf_next_cfi: lengths, CIEs and their augmentations, CIE pointers); here only each
// FDE's initial location and range are decoded, in the pointer encoding its CIE names, into one
// sorted table. libdw's per-address lookup (dwarf_cfi_addrframe, dwarf_frame_info) answers with
// the range of one row of the unwind table, which ends at the next push or pop, not the
// function's: on libgomp it cut 25,184 of 26,626 probed addresses' functions short.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <vector>

namespace hpcl::analysis {

class FunctionStarts {
 public:
  // Reads the FDEs of `elf`'s .eh_frame; empty (find fails) when it has none.
  explicit FunctionStarts(Elf* elf);

  // The function holding link-time address `addr`: [start, end).
  bool find(uint64_t addr, uint64_t* start, uint64_t* end) const;
  size_t size() const { return starts_.size(); }

 private:
  std::vector<uint64_t> starts_, ends_;  // sorted by start
};

}  // namespace hpcl::analysis
