// See symbol_index.h.
#include "symbol_index.h"

#include <algorithm>
#include <gelf.h>

namespace hpcl::analysis {

SymbolIndex::SymbolIndex(Dwfl_Module* mod) {
  const int n = mod != nullptr ? dwfl_module_getsymtab(mod) : -1;
  for (int i = 1; i < n; ++i) {
    GElf_Sym sym;
    GElf_Addr addr = 0;
    GElf_Word shndx = 0;
    const char* name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, nullptr, nullptr);
    if (name == nullptr || *name == '\0' || shndx == SHN_UNDEF) continue;
    const int type = GELF_ST_TYPE(sym.st_info);
    if (type == STT_SECTION || type == STT_FILE || type == STT_TLS) continue;
    const int bind = GELF_ST_BIND(sym.st_info);
    const int rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
    (sym.st_size > 0 ? sized_ : sizeless_).push_back({addr, sym.st_size, name, rank, shndx});
  }
  Dwarf_Addr bias = 0;
  if (Elf* elf = mod != nullptr ? dwfl_module_getelf(mod, &bias) : nullptr) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr shdr;
      if (gelf_getshdr(scn, &shdr) == nullptr || (shdr.sh_flags & SHF_ALLOC) == 0 || shdr.sh_size == 0) continue;
      sections_.push_back({shdr.sh_addr + bias, shdr.sh_addr + bias + shdr.sh_size,
                           static_cast<uint32_t>(elf_ndxscn(scn))});
    }
    std::sort(sections_.begin(), sections_.end(), [](const Section& x, const Section& y) { return x.addr < y.addr; });
  }
  auto order = [](const Entry& x, const Entry& y) {
    return x.addr != y.addr ? x.addr < y.addr : x.rank < y.rank;
  };
  std::stable_sort(sized_.begin(), sized_.end(), order);
  std::stable_sort(sizeless_.begin(), sizeless_.end(), order);
  max_end_.resize(sized_.size());
  Dwarf_Addr end = 0;
  for (size_t i = 0; i < sized_.size(); ++i) max_end_[i] = end = std::max(end, sized_[i].addr + sized_[i].size);
}

uint32_t SymbolIndex::section_of(Dwarf_Addr addr) const {
  auto it = std::upper_bound(sections_.begin(), sections_.end(), addr,
                             [](Dwarf_Addr a, const Section& s) { return a < s.addr; });
  if (it == sections_.begin()) return 0;
  --it;
  return addr < it->end ? it->index : 0;
}

SymbolIndex::Hit SymbolIndex::at(Dwarf_Addr addr) const {
  auto after = [](Dwarf_Addr a, const Entry& e) { return a < e.addr; };
  // Sized: the nearest start at or below the address whose range covers it. Among symbols at one
  // address the best-ranked comes first; walking down stops where nothing earlier reaches.
  const Entry* found = nullptr;
  const size_t below = static_cast<size_t>(std::upper_bound(sized_.begin(), sized_.end(), addr, after) - sized_.begin());
  for (size_t i = below; i-- > 0;) {
    if (max_end_[i] <= addr) break;
    const Entry& e = sized_[i];
    if (addr < e.addr + e.size) {
      // Aliases at one address: the better binding, then the smaller size (sys_siglist's two
      // versions), then the first in the table, which the walk down sees last.
      const bool better_or_same = found == nullptr || e.addr > found->addr ||
                                  e.rank < found->rank || (e.rank == found->rank && e.size <= found->size);
      if (better_or_same) found = &e;
      if (i == 0 || sized_[i - 1].addr != e.addr) break;  // nearer ones were seen first
    }
  }
  if (found != nullptr) return {found->name, found->addr, found->size};
  // Sizeless: the nearest at or below in the address's section, at or after the end of every
  // sized symbol below the address (none of which covers it, or it would have been found).
  const uint32_t section = section_of(addr);
  const Dwarf_Addr floor = below > 0 ? max_end_[below - 1] : 0;
  const Entry* best = nullptr;
  for (auto s = std::upper_bound(sizeless_.begin(), sizeless_.end(), addr, after); s != sizeless_.begin();) {
    --s;
    if (s->addr < floor) break;
    if (s->section != section) continue;
    if (best != nullptr && s->addr < best->addr) break;
    best = &*s;  // at one address, the walk down ends on the best-ranked
  }
  if (best == nullptr) return {};
  return {best->name, best->addr, 0};
}

}  // namespace hpcl::analysis
