// See function_starts.h. The .eh_frame_hdr layout (LSB, "Exception Frame Header"): u8 version 1,
// u8 eh_frame_ptr_enc, u8 fde_count_enc, u8 table_enc, then the encoded eh_frame_ptr and
// fde_count, then fde_count pairs (initial location, FDE address). Every x86-64 toolchain writes
// the table as DW_EH_PE_datarel | DW_EH_PE_sdata4 (0x3b): signed 32-bit offsets from the start
// of .eh_frame_hdr; other encodings are not read. The FDE gives the range: u32 length, u32 CIE
// pointer, then initial location and address range, 4 bytes each with GCC's pcrel|sdata4.
#include "function_starts.h"

#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace hpcl::analysis {
namespace {

constexpr uint8_t kDatarelSdata4 = 0x3b;
constexpr uint8_t kOmit = 0xff;

struct Section {
  uint64_t addr = 0;
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  bool has(uint64_t a, size_t n) const { return a >= addr && a - addr <= size && n <= size - (a - addr); }
  int32_t s32(uint64_t a) const {
    int32_t v;
    std::memcpy(&v, bytes + (a - addr), sizeof v);
    return v;
  }
  uint32_t u32(uint64_t a) const { return static_cast<uint32_t>(s32(a)); }
};

Section find_section(Elf* elf, std::string_view name) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return {};
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_PROGBITS) continue;
    const char* n = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (n == nullptr || name != n) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) return {};
    return Section{shdr.sh_addr, static_cast<const uint8_t*>(data->d_buf),
                   std::min<size_t>(data->d_size, shdr.sh_size)};
  }
  return {};
}

// Bytes of the encoded pointer for the header's eh_frame_ptr / fde_count (absptr, udata4, sdata4
// and their pcrel/datarel forms); 0 when unsupported.
size_t encoded_size(uint8_t enc) {
  switch (enc & 0x0f) {
    case 0x00: return 8;  // absptr
    case 0x03: case 0x0b: return 4;
    case 0x04: case 0x0c: return 8;
    default: return 0;
  }
}

}  // namespace

FunctionStarts::FunctionStarts(Elf* elf) {
  if (elf == nullptr) return;
  Section hdr = find_section(elf, ".eh_frame_hdr");
  Section frames = find_section(elf, ".eh_frame");
  if (!hdr.has(hdr.addr, 4) || hdr.bytes[0] != 1 || hdr.bytes[3] != kDatarelSdata4 ||
      hdr.bytes[1] == kOmit || hdr.bytes[2] != 0x03)  // fde_count as udata4
    return;
  size_t ptr_size = encoded_size(hdr.bytes[1]);
  if (ptr_size == 0) return;
  uint64_t at = hdr.addr + 4 + ptr_size;
  if (!hdr.has(at, 4)) return;
  uint32_t count = hdr.u32(at);
  at += 4;
  if (!hdr.has(at, uint64_t(count) * 8)) return;
  starts_.reserve(count);
  std::vector<uint64_t> ranges;
  ranges.reserve(count);
  for (uint32_t i = 0; i < count; ++i, at += 8) {
    uint64_t start = hdr.addr + static_cast<int64_t>(hdr.s32(at));
    uint64_t fde = hdr.addr + static_cast<int64_t>(hdr.s32(at + 4));
    uint64_t range = 0;
    if (frames.has(fde, 16) && frames.u32(fde) != 0xffffffffu) range = frames.u32(fde + 12);
    starts_.push_back(start);
    ranges.push_back(range);
  }
  if (!std::is_sorted(starts_.begin(), starts_.end())) {
    starts_.clear();
    return;
  }
  // A range read with the wrong encoding would overlap the next function: the next start bounds it.
  ends_.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t next = i + 1 < count ? starts_[i + 1] : UINT64_MAX;
    uint64_t end = ranges[i] > 0 ? starts_[i] + ranges[i] : next;
    ends_[i] = std::min(end, next);
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
