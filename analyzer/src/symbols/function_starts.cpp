// See function_starts.h. Pointer encodings are those of the LSB ("DWARF Extensions", DW_EH_PE_*):
// the low nibble is the value's format, the next bits what it is relative to; an FDE's initial
// location in .eh_frame is absolute or relative to its own address (GCC and clang write
// pcrel | sdata4), its range has the same format and is a plain length.
#include "function_starts.h"

#include <elfutils/libdw.h>
#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <string_view>

namespace hpcl::analysis {
namespace {

constexpr uint8_t kAbsPtr = 0x00, kPcRel = 0x10, kOmit = 0xff;

// Reads one value in the format of `encoding` from [p, end), moving p past it.
bool read_value(uint8_t encoding, const uint8_t*& p, const uint8_t* end, uint64_t* out) {
  auto fixed = [&](size_t n, bool is_signed) {
    if (static_cast<size_t>(end - p) < n) return false;
    uint64_t v = 0;
    std::memcpy(&v, p, n);  // x86-64 and the file are little-endian
    if (is_signed && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);
    *out = v;
    p += n;
    return true;
  };
  auto leb = [&](bool is_signed) {
    uint64_t v = 0;
    unsigned shift = 0;
    for (; p < end && shift < 64; shift += 7) {
      const uint8_t byte = *p++;
      v |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) {
        if (is_signed && shift + 7 < 64 && (byte & 0x40)) v |= ~uint64_t{0} << (shift + 7);
        *out = v;
        return true;
      }
    }
    return false;
  };
  switch (encoding & 0x0f) {
    case 0x00: return fixed(8, false);  // absptr: an ELF64 address
    case 0x01: return leb(false);
    case 0x02: return fixed(2, false);
    case 0x03: return fixed(4, false);
    case 0x04: return fixed(8, false);
    case 0x09: return leb(true);
    case 0x0a: return fixed(2, true);
    case 0x0b: return fixed(4, true);
    case 0x0c: return fixed(8, true);
    default: return false;
  }
}

// The encoding of the FDE addresses of a CIE ('R' in its augmentation), absptr without one;
// kOmit when the augmentation cannot be read.
uint8_t fde_encoding(const Dwarf_CIE& cie) {
  std::string_view aug = cie.augmentation;
  if (aug.empty()) return kAbsPtr;
  if (aug[0] != 'z') return kOmit;  // unsized augmentation data: not what compilers write now
  const uint8_t* p = cie.augmentation_data;
  const uint8_t* end = p + cie.augmentation_data_size;
  for (char c : aug.substr(1)) {
    if (p == nullptr || p > end) return kOmit;
    if (c == 'R') return p < end ? *p : kOmit;
    if (c == 'L') ++p;  // the LSDA's encoding
    else if (c == 'P') {  // the personality routine: its encoding, then the pointer
      if (p >= end) return kOmit;
      const uint8_t enc = *p++;
      uint64_t ignored;
      if (!read_value(enc, p, end, &ignored)) return kOmit;
    } else if (c != 'S' && c != 'B') {
      return kOmit;
    }
  }
  return kAbsPtr;
}

}  // namespace

FunctionStarts::FunctionStarts(Elf* elf) {
  if (elf == nullptr) return;
  const unsigned char* ident = reinterpret_cast<const unsigned char*>(elf_getident(elf, nullptr));
  size_t shstrndx = 0;
  if (ident == nullptr || ident[EI_CLASS] != ELFCLASS64 || elf_getshdrstrndx(elf, &shstrndx) != 0) return;
  Elf_Data* data = nullptr;
  uint64_t section_addr = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_PROGBITS) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (name == nullptr || std::string_view(name) != ".eh_frame") continue;
    data = elf_getdata(scn, nullptr);
    section_addr = shdr.sh_addr;
    break;
  }
  if (data == nullptr || data->d_buf == nullptr) return;
  const auto* base = static_cast<const uint8_t*>(data->d_buf);

  std::map<Dwarf_Off, uint8_t> encodings;  // of each CIE, by its section offset
  auto encoding_of = [&](Dwarf_Off cie) {
    if (auto it = encodings.find(cie); it != encodings.end()) return it->second;
    Dwarf_CFI_Entry entry;
    Dwarf_Off next = 0;
    uint8_t enc = kOmit;
    if (dwarf_next_cfi(ident, data, true, cie, &next, &entry) == 0 && dwarf_cfi_cie_p(&entry))
      enc = fde_encoding(entry.cie);
    return encodings[cie] = enc;
  };
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  Dwarf_Off offset = 0, next = 0;
  for (;; offset = next) {
    Dwarf_CFI_Entry entry;
    const int rc = dwarf_next_cfi(ident, data, true, offset, &next, &entry);
    if (rc == 1) break;
    if (rc != 0) {
      if (next == static_cast<Dwarf_Off>(-1) || next <= offset) break;  // cannot skip it
      continue;
    }
    if (dwarf_cfi_cie_p(&entry)) continue;
    const uint8_t enc = encoding_of(entry.fde.CIE_pointer);
    const uint8_t applied = enc & 0x70;
    if (enc == kOmit || (applied != kAbsPtr && applied != kPcRel)) continue;
    const uint8_t* p = entry.fde.start;
    const uint64_t field = section_addr + static_cast<uint64_t>(p - base);
    uint64_t start = 0, length = 0;
    if (!read_value(enc, p, entry.fde.end, &start) || !read_value(enc, p, entry.fde.end, &length)) continue;
    if (applied == kPcRel) start += field;
    if (length > 0) ranges.emplace_back(start, start + length);
  }
  std::sort(ranges.begin(), ranges.end());
  starts_.reserve(ranges.size());
  ends_.reserve(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (i > 0 && ranges[i].first == starts_.back()) continue;  // two FDEs for one address
    // Ranges do not overlap in a sane file; if they do, the next start bounds the previous one
    // so that find() stays a binary search.
    const uint64_t next_start = i + 1 < ranges.size() ? ranges[i + 1].first : UINT64_MAX;
    starts_.push_back(ranges[i].first);
    ends_.push_back(std::min(ranges[i].second, std::max(next_start, ranges[i].first + 1)));
  }
}

bool FunctionStarts::find(uint64_t addr, uint64_t* start, uint64_t* end) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), addr);
  if (it == starts_.begin()) return false;
  size_t i = static_cast<size_t>(it - starts_.begin()) - 1;
  if (addr >= ends_[i]) return false;
  *start = starts_[i];
  *end = ends_[i];
  return true;
}

}  // namespace hpcl::analysis
