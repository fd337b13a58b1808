// Function boundaries of a module from its unwind tables, for code that has no symbol and no
// DWARF (a stripped binary): every function the compiler emitted has an FDE in .eh_frame, and
// .eh_frame_hdr lists their start addresses sorted, for the unwinder's binary search. A function
// is [start of its FDE, start + the FDE's address range), link-time addresses.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <vector>

namespace hpcl::analysis {

class FunctionStarts {
 public:
  // Reads the table of `elf`; empty (find fails) when the file has no usable .eh_frame_hdr.
  explicit FunctionStarts(Elf* elf);

  // The function holding link-time address `addr`.
  bool find(uint64_t addr, uint64_t* start, uint64_t* end) const;
  size_t size() const { return starts_.size(); }

 private:
  std::vector<uint64_t> starts_, ends_;  // sorted by start
};

}  // namespace hpcl::analysis
