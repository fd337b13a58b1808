// The location-table walk of py_linetable.h.
#include "python/py_linetable.h"

namespace hpcrun {
namespace {

// Reads an unsigned varint at table[*at], bounded by size.
uint32_t varint(const uint8_t* table, size_t size, size_t* at) {
  uint32_t value = 0;
  for (uint32_t shift = 0; *at < size && shift < 32; shift += 6) {
    uint8_t b = table[(*at)++];
    value |= uint32_t(b & 63) << shift;
    if (!(b & 64)) break;
  }
  return value;
}

int32_t signed_varint(const uint8_t* table, size_t size, size_t* at) {
  uint32_t u = varint(table, size, at);
  return (u & 1) ? -int32_t(u >> 1) : int32_t(u >> 1);
}

}  // namespace

uint32_t py311_line_of(const uint8_t* table, size_t size, int32_t firstlineno, int64_t unit) {
  if (unit < 0) return 0;
  int64_t line = firstlineno;
  int64_t start = 0;
  size_t at = 0;
  while (at < size) {
    uint8_t head = table[at];
    if (!(head & 0x80)) return 0;  // not the start of an entry: a table this walk cannot read
    int form = (head >> 3) & 15;
    int64_t end = start + (head & 7) + 1;
    size_t next = at + 1;
    bool no_line = form == 15;
    if (form == 13 || form == 14) line += signed_varint(table, size, &next);
    else if (form == 11) line += 1;
    else if (form == 12) line += 2;
    if (unit < end) return no_line || line <= 0 ? 0 : uint32_t(line);
    // The next entry starts at the next byte with the top bit set.
    for (at = next; at < size && !(table[at] & 0x80); ++at) {
    }
    start = end;
  }
  return 0;
}

}  // namespace hpcrun
