// The line of a bytecode offset, from a CPython 3.11 code object's location table (co_linetable).
// The table is a run of entries, one per range of code units; an entry's first byte has its top
// bit set and holds a 4-bit form and the range's length in code units less one. Forms 13 and 14
// move the line by a signed varint, 11 and 12 by one and two lines, 15 marks a range without a
// line, and the others keep the line. Varints are 6-bit groups, low first, bit 6 continuing.
// Pure arithmetic on a copy of the table: the reader copies it out of the code object first.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hpcrun {

// The line of code unit `unit` (0-based), starting from `firstlineno`; 0 when the table gives
// it no line or does not reach it.
uint32_t py311_line_of(const uint8_t* table, size_t size, int32_t firstlineno, int64_t unit);

}  // namespace hpcrun
