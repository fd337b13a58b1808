// The slots of a stack frame (format 1.10, node kind StackSlot): where in its owner's frame a
// sampled stack address lies, as a byte range below the frame's canonical frame address (CFA).
// The runtime cannot name the variable (that needs DWARF), so it keeps the place, coarsely
// enough that a frame of large arrays stays a few hundred nodes: exact to 8 bytes in the first
// 256 bytes below the CFA, where scalars and small locals live, then 16 slots per power of two,
// so a slot is at most 1/16 of its distance from the CFA. A 128 KiB array is 176 slots; a slot
// that straddles two variables goes to the one it overlaps most, which misplaces at most half a
// slot of samples (the analyzer's naming).
#pragma once

#include <cstdint>

namespace hpcl {

struct StackSlotRange {
  int64_t lo = 0;      // from the CFA; negative
  uint32_t width = 0;  // 0: no slot (the address is not below the CFA)
};

// The slot of the byte at `delta` = address - CFA.
constexpr StackSlotRange stack_slot(int64_t delta) {
  if (delta >= 0) return {};
  const uint64_t m = uint64_t(-delta);  // 1 for the byte just below the CFA
  uint64_t width = 8;
  if (m > 256) {
    const int k = 63 - __builtin_clzll(m - 1);  // m in (2^k, 2^(k+1)]
    width = uint64_t{1} << (k - 4);
  }
  const uint64_t up = (m + width - 1) / width * width;
  if (width > UINT32_MAX) return {};
  return {-int64_t(up), uint32_t(width)};
}

}  // namespace hpcl
