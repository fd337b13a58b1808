// See got_patch.h. The object's dynamic section gives its symbol and string tables and its two
// relocation tables (DT_JMPREL for the PLT, DT_RELA for the rest); x86-64 uses RELA only.
#include "loader/got_patch.h"

#include <elf.h>
#include <sys/mman.h>

#include <cstdint>

namespace hpcrun {
namespace {

struct Tables {
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  uint64_t strsz = 0;
  const ElfW(Rela)* rela[2] = {nullptr, nullptr};
  uint64_t rela_bytes[2] = {0, 0};
};

// glibc rewrites these entries of a loaded object's dynamic section to run-time addresses; the
// vDSO's (and a few loaders') stay link-time offsets.
uint64_t runtime_address(uint64_t ptr, uint64_t bias) { return ptr < bias ? ptr + bias : ptr; }

bool read_tables(const dl_phdr_info* info, Tables* t) {
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dyn) return false;
  uint64_t bias = info->dlpi_addr;
  int64_t plt_kind = DT_RELA;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    uint64_t v = dyn->d_un.d_val;
    switch (dyn->d_tag) {
      case DT_SYMTAB: t->symtab = reinterpret_cast<const ElfW(Sym)*>(runtime_address(v, bias)); break;
      case DT_STRTAB: t->strtab = reinterpret_cast<const char*>(runtime_address(v, bias)); break;
      case DT_STRSZ: t->strsz = v; break;
      case DT_JMPREL: t->rela[0] = reinterpret_cast<const ElfW(Rela)*>(runtime_address(v, bias)); break;
      case DT_PLTRELSZ: t->rela_bytes[0] = v; break;
      case DT_PLTREL: plt_kind = int64_t(v); break;
      case DT_RELA: t->rela[1] = reinterpret_cast<const ElfW(Rela)*>(runtime_address(v, bias)); break;
      case DT_RELASZ: t->rela_bytes[1] = v; break;
      default: break;
    }
  }
  if (plt_kind != DT_RELA) t->rela[0] = nullptr;
  return t->symtab && t->strtab;
}

// The object's RELRO range, page-aligned; empty when it has none.
void relro_range(const dl_phdr_info* info, uint64_t* lo, uint64_t* hi) {
  *lo = *hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_GNU_RELRO) continue;
    *lo = (info->dlpi_addr + ph.p_vaddr) & ~uint64_t(4095);
    *hi = (info->dlpi_addr + ph.p_vaddr + ph.p_memsz) & ~uint64_t(4095);  // the loader's rounding
  }
}

}  // namespace

int got_patch_object(const dl_phdr_info* info, GotLookup lookup) {
  Tables t;
  if (!read_tables(info, &t)) return 0;
  uint64_t relro_lo, relro_hi;
  relro_range(info, &relro_lo, &relro_hi);
  bool relro_open = false;
  int patched = 0;
  for (int k = 0; k < 2; ++k) {
    if (!t.rela[k]) continue;
    size_t n = t.rela_bytes[k] / sizeof(ElfW(Rela));
    for (size_t i = 0; i < n; ++i) {
      const ElfW(Rela)& r = t.rela[k][i];
      uint32_t type = ELF64_R_TYPE(r.r_info), sym = ELF64_R_SYM(r.r_info);
      if (sym == 0) continue;
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
          !(type == R_X86_64_64 && r.r_addend == 0))
        continue;
      const ElfW(Sym)& s = t.symtab[sym];
      // Only references to a function defined elsewhere: the object's own definitions stay.
      if (s.st_shndx != SHN_UNDEF || s.st_name >= t.strsz) continue;
      void* wrapper = lookup(t.strtab + s.st_name);
      if (!wrapper) continue;
      uint64_t slot = info->dlpi_addr + r.r_offset;
      if (slot >= relro_lo && slot < relro_hi && !relro_open) {
        if (mprotect(reinterpret_cast<void*>(relro_lo), relro_hi - relro_lo, PROT_READ | PROT_WRITE) != 0)
          return patched;
        relro_open = true;
      }
      __atomic_store_n(reinterpret_cast<void**>(slot), wrapper, __ATOMIC_RELEASE);
      ++patched;
    }
  }
  if (relro_open) mprotect(reinterpret_cast<void*>(relro_lo), relro_hi - relro_lo, PROT_READ);
  return patched;
}

}  // namespace hpcrun
