// Function bounds from a loaded module's .eh_frame_hdr search table, for the sampler's decoder
// (see eh_frame_bounds.h). Runs inside the signal handler: reads only the mapped unwind tables of
// a module find_object names, allocates nothing, takes no lock, makes no system call.
#include "decode/eh_frame_bounds.h"

#include <cstring>

#include "loader/find_object.h"

namespace hpcrun {
namespace {

// .eh_frame_hdr / .eh_frame reading (DWARF pointer encodings, as used by the LSB for .eh_frame).

constexpr uint8_t DW_EH_PE_omit = 0xff;
constexpr uint8_t DW_EH_PE_absptr = 0x00;
constexpr uint8_t DW_EH_PE_uleb128 = 0x01;
constexpr uint8_t DW_EH_PE_udata2 = 0x02;
constexpr uint8_t DW_EH_PE_udata4 = 0x03;
constexpr uint8_t DW_EH_PE_udata8 = 0x04;
constexpr uint8_t DW_EH_PE_sleb128 = 0x09;
constexpr uint8_t DW_EH_PE_sdata2 = 0x0a;
constexpr uint8_t DW_EH_PE_sdata4 = 0x0b;
constexpr uint8_t DW_EH_PE_sdata8 = 0x0c;
constexpr uint8_t DW_EH_PE_pcrel = 0x10;
constexpr uint8_t DW_EH_PE_datarel = 0x30;
constexpr uint8_t DW_EH_PE_indirect = 0x80;

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint64_t read_uleb(const uint8_t*& p) {
  uint64_t v = 0;
  unsigned shift = 0;
  for (int i = 0; i < 10; ++i) {
    const uint8_t b = *p++;
    if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
    shift += 7;
    if ((b & 0x80) == 0) break;
  }
  return v;
}

int64_t read_sleb(const uint8_t*& p) {
  int64_t v = 0;
  unsigned shift = 0;
  uint8_t b = 0;
  for (int i = 0; i < 10; ++i) {
    b = *p++;
    if (shift < 64) v |= static_cast<int64_t>(uint64_t{b & 0x7fu} << shift);
    shift += 7;
    if ((b & 0x80) == 0) break;
  }
  if (shift < 64 && (b & 0x40) != 0) v |= -(int64_t{1} << shift);
  return v;
}

// Reads the value part of an encoded pointer (low nibble: format); advances p.
bool read_format(const uint8_t*& p, uint8_t enc, uint64_t* out) {
  switch (enc & 0x0f) {
    case DW_EH_PE_absptr:
    case DW_EH_PE_udata8: *out = load<uint64_t>(p); p += 8; return true;
    case DW_EH_PE_sdata8: *out = static_cast<uint64_t>(load<int64_t>(p)); p += 8; return true;
    case DW_EH_PE_udata4: *out = load<uint32_t>(p); p += 4; return true;
    case DW_EH_PE_sdata4: *out = static_cast<uint64_t>(int64_t{load<int32_t>(p)}); p += 4; return true;
    case DW_EH_PE_udata2: *out = load<uint16_t>(p); p += 2; return true;
    case DW_EH_PE_sdata2: *out = static_cast<uint64_t>(int64_t{load<int16_t>(p)}); p += 2; return true;
    case DW_EH_PE_uleb128: *out = read_uleb(p); return true;
    case DW_EH_PE_sleb128: *out = static_cast<uint64_t>(read_sleb(p)); return true;
    default: return false;
  }
}

// Full encoded pointer: absolute, pc-relative or data-relative (datarel base given); no indirect.
bool read_encoded(const uint8_t*& p, uint8_t enc, uint64_t datarel_base, uint64_t* out) {
  if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect) != 0) return false;
  const uint64_t field = reinterpret_cast<uint64_t>(p);
  uint64_t v;
  if (!read_format(p, enc, &v)) return false;
  switch (enc & 0x70) {
    case 0x00: break;
    case DW_EH_PE_pcrel: v += field; break;
    case DW_EH_PE_datarel: v += datarel_base; break;
    default: return false;
  }
  *out = v;
  return true;
}

// pc_range of the FDE at `fde` (address range it covers), using its CIE's 'R' encoding.
bool fde_pc_range(const uint8_t* fde, uint64_t* range) {
  if (load<uint32_t>(fde) == 0xffffffffu || load<uint32_t>(fde) == 0) return false;
  const uint8_t* cie_field = fde + 4;
  const uint32_t cie_off = load<uint32_t>(cie_field);
  if (cie_off == 0) return false;  // this is a CIE, not an FDE
  const uint8_t* cie = cie_field - cie_off;
  if (load<uint32_t>(cie) == 0xffffffffu || load<uint32_t>(cie + 4) != 0) return false;
  const uint8_t* p = cie + 8;
  const uint8_t version = *p++;
  if (version != 1 && version != 3) return false;
  const char* aug = reinterpret_cast<const char*>(p);
  size_t aug_len = 0;
  while (aug_len < 16 && aug[aug_len] != '\0') ++aug_len;
  if (aug_len == 16) return false;
  p += aug_len + 1;
  (void)read_uleb(p);  // code alignment factor
  (void)read_sleb(p);  // data alignment factor
  if (version == 1) {
    ++p;  // return address register
  } else {
    (void)read_uleb(p);
  }
  uint8_t fde_enc = DW_EH_PE_absptr;
  if (aug_len > 0) {
    if (aug[0] != 'z') return false;
    (void)read_uleb(p);  // augmentation data length
    for (size_t i = 1; i < aug_len; ++i) {
      switch (aug[i]) {
        case 'R': fde_enc = *p++; break;
        case 'L': ++p; break;
        case 'P': {
          const uint8_t penc = *p++;
          uint64_t ignored;
          if (!read_format(p, penc, &ignored)) return false;
          break;
        }
        case 'S':
        case 'B':
        case 'G': break;
        default: return false;  // unknown augmentation: cannot find the FDE fields safely
      }
    }
  }
  const uint8_t* q = fde + 8;
  uint64_t ignored;
  if ((fde_enc & 0x0f) == DW_EH_PE_uleb128 || (fde_enc & 0x0f) == DW_EH_PE_sleb128) return false;
  if (!read_format(q, fde_enc, &ignored)) return false;   // pc_begin
  if (!read_format(q, fde_enc & 0x0f, range)) return false;  // pc_range: format only, unsigned
  return true;
}

// function_bounds: the FDE covering pc; `end` is the FDE end (or the next FDE start when the FDE
// cannot be parsed), so [start, end) is mapped code.
bool bounds_impl(uint64_t pc, uint64_t* start, uint64_t* end) {
  CodeObject r;
  if (!find_object(reinterpret_cast<const void*>(pc), &r)) return false;
  if (r.eh_frame_hdr == nullptr) return false;
  const uint8_t* hdr = static_cast<const uint8_t*>(r.eh_frame_hdr);
  const uint64_t base = reinterpret_cast<uint64_t>(hdr);
  if (hdr[0] != 1) return false;
  const uint8_t eh_frame_ptr_enc = hdr[1], fde_count_enc = hdr[2], table_enc = hdr[3];
  if (table_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4)) return false;
  const uint8_t* p = hdr + 4;
  uint64_t v;
  if (!read_encoded(p, eh_frame_ptr_enc, base, &v)) return false;
  uint64_t count;
  if (!read_encoded(p, fde_count_enc, base, &count) || count == 0) return false;
  const uint8_t* table = p;  // count pairs of (int32 initial_location, int32 fde), datarel
  auto loc = [&](uint64_t i) { return base + static_cast<uint64_t>(int64_t{load<int32_t>(table + 8 * i)}); };
  if (pc < loc(0)) return false;
  uint64_t lo = 0, hi = count;  // invariant: loc(lo) <= pc, and loc(hi) > pc or hi == count
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (loc(mid) <= pc) lo = mid; else hi = mid;
  }
  const uint64_t s = loc(lo);
  const bool last = lo + 1 == count;
  uint64_t e = last ? r.map_end : loc(lo + 1);
  const uint8_t* fde =
      reinterpret_cast<const uint8_t*>(base + static_cast<uint64_t>(int64_t{load<int32_t>(table + 8 * lo + 4)}));
  uint64_t range;
  if (fde_pc_range(fde, &range)) {
    if (pc - s >= range) return false;  // pc lies after the function (padding, code without FDE)
    if (s + range < e) e = s + range;
  } else if (last) {
    // Without the FDE's length the mapping end could lie past holes between segments; do not
    // guess for the last FDE (after it come the non-code sections).
    return false;
  }
  *start = s;
  *end = e;
  return true;
}

}  // namespace

bool function_bounds(uint64_t pc, uint64_t* start, uint64_t* end) { return bounds_impl(pc, start, end); }

}  // namespace hpcrun
