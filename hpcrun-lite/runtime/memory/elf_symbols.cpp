// See elf_symbols.h.
#include "memory/elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include "base/raw_sys.h"
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace hpcrun {

namespace {

struct MappedFile {
  const uint8_t* data = nullptr;
  size_t size = 0;
  explicit MappedFile(const char* path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = raw_mmap(size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p) {
        data = static_cast<const uint8_t*>(p);
        size = size_t(st.st_size);
      }
    }
    close(fd);
  }
  ~MappedFile() {
    if (data) raw_munmap(const_cast<uint8_t*>(data), size);
  }
  bool in_range(uint64_t off, uint64_t len) const { return off <= size && len <= size - off; }
};

void* map_bytes(size_t n) {
  if (n == 0) n = 1;
  return raw_mmap(n);
}

bool valid_elf64(const MappedFile& f) {
  if (!f.data || f.size < sizeof(Elf64_Ehdr)) return false;
  auto* eh = reinterpret_cast<const Elf64_Ehdr*>(f.data);
  return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
         eh->e_shentsize == sizeof(Elf64_Shdr) &&
         f.in_range(eh->e_shoff, uint64_t(eh->e_shnum) * sizeof(Elf64_Shdr));
}

void read_build_id(const MappedFile& f, char out[41]) {
  auto* eh = reinterpret_cast<const Elf64_Ehdr*>(f.data);
  auto* sh = reinterpret_cast<const Elf64_Shdr*>(f.data + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_NOTE || !f.in_range(sh[i].sh_offset, sh[i].sh_size)) continue;
    uint64_t off = 0;
    while (off + sizeof(Elf64_Nhdr) <= sh[i].sh_size) {
      auto* nh = reinterpret_cast<const Elf64_Nhdr*>(f.data + sh[i].sh_offset + off);
      uint64_t name_sz = (nh->n_namesz + 3) & ~3u, desc_sz = (nh->n_descsz + 3) & ~3u;
      const uint8_t* name = reinterpret_cast<const uint8_t*>(nh + 1);
      const uint8_t* desc = name + name_sz;
      if (off + sizeof(Elf64_Nhdr) + name_sz + desc_sz > sh[i].sh_size) break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
          nh->n_descsz <= 20) {
        static const char hex[] = "0123456789abcdef";
        for (unsigned k = 0; k < nh->n_descsz; ++k) {
          out[2 * k] = hex[desc[k] >> 4];
          out[2 * k + 1] = hex[desc[k] & 15];
        }
        out[2 * nh->n_descsz] = 0;
        return;
      }
      off += sizeof(Elf64_Nhdr) + name_sz + desc_sz;
    }
  }
}

// Reads the symbols of one section type; returns false if the file has no such section.
bool read_symtab(const MappedFile& f, uint32_t type, SymbolTable* out) {
  auto* eh = reinterpret_cast<const Elf64_Ehdr*>(f.data);
  auto* sh = reinterpret_cast<const Elf64_Shdr*>(f.data + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != type || sh[i].sh_entsize != sizeof(Elf64_Sym)) continue;
    if (sh[i].sh_link >= eh->e_shnum) return false;
    const Elf64_Shdr& strs = sh[sh[i].sh_link];
    if (!f.in_range(sh[i].sh_offset, sh[i].sh_size) || !f.in_range(strs.sh_offset, strs.sh_size))
      return false;
    auto* syms = reinterpret_cast<const Elf64_Sym*>(f.data + sh[i].sh_offset);
    size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    const char* strtab = reinterpret_cast<const char*>(f.data + strs.sh_offset);
    size_t count = 0, names = 0;
    auto wanted = [&](const Elf64_Sym& s) {
      int t = ELF64_ST_TYPE(s.st_info);
      return (t == STT_OBJECT || t == STT_TLS) && s.st_size > 0 && s.st_shndx != SHN_UNDEF &&
             s.st_name < strs.sh_size;
    };
    for (size_t k = 0; k < n; ++k) {
      if (!wanted(syms[k])) continue;
      ++count;
      names += strnlen(strtab + syms[k].st_name, strs.sh_size - syms[k].st_name) + 1;
    }
    out->syms = static_cast<DataSymbol*>(map_bytes(count * sizeof(DataSymbol)));
    out->names = static_cast<char*>(map_bytes(names));
    if (!out->syms || !out->names) return false;
    size_t used = 0;
    for (size_t k = 0; k < n; ++k) {
      if (!wanted(syms[k])) continue;
      const char* nm = strtab + syms[k].st_name;
      size_t len = strnlen(nm, strs.sh_size - syms[k].st_name);
      memcpy(out->names + used, nm, len);
      out->names[used + len] = 0;
      out->syms[out->count++] = DataSymbol{syms[k].st_value, syms[k].st_size, uint32_t(used),
                                           ELF64_ST_TYPE(syms[k].st_info) == STT_TLS};
      used += len + 1;
    }
    out->names_size = used;
    return true;
  }
  return false;
}

// Sorts by (is_tls, value) and drops symbols that start inside the previous one (aliases), so
// a binary search finds at most one candidate.
void normalize(SymbolTable* t) {
  std::sort(t->syms, t->syms + t->count, [](const DataSymbol& a, const DataSymbol& b) {
    if (a.is_tls != b.is_tls) return a.is_tls < b.is_tls;
    if (a.value != b.value) return a.value < b.value;
    return a.size > b.size;
  });
  uint32_t w = 0;
  for (uint32_t r = 0; r < t->count; ++r) {
    if (w > 0 && t->syms[w - 1].is_tls == t->syms[r].is_tls &&
        t->syms[r].value < t->syms[w - 1].value + t->syms[w - 1].size)
      continue;
    t->syms[w++] = t->syms[r];
  }
  t->count = w;
}

}  // namespace

bool read_data_symbols(const char* path, SymbolTable* out) {
  MappedFile f(path);
  if (!valid_elf64(f)) return false;
  read_build_id(f, out->build_id);
  bool have = read_symtab(f, SHT_SYMTAB, out);
  if (!have && out->build_id[0]) {
    char debug[128];
    snprintf(debug, sizeof debug, "/usr/lib/debug/.build-id/%.2s/%s.debug", out->build_id,
             out->build_id + 2);
    MappedFile d(debug);
    if (valid_elf64(d)) have = read_symtab(d, SHT_SYMTAB, out);
  }
  if (!have) read_symtab(f, SHT_DYNSYM, out);
  normalize(out);
  return true;
}

int64_t find_symbol(const SymbolTable& t, uint64_t value, bool tls) {
  // Last symbol with (is_tls, value) <= (tls, value).
  uint32_t lo = 0, hi = t.count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    const DataSymbol& s = t.syms[mid];
    bool le = s.is_tls < uint32_t(tls) || (s.is_tls == uint32_t(tls) && s.value <= value);
    if (le) lo = mid + 1; else hi = mid;
  }
  if (lo == 0) return -1;
  const DataSymbol& s = t.syms[lo - 1];
  if (s.is_tls != uint32_t(tls) || value - s.value >= s.size) return -1;
  return int64_t(lo - 1);
}

}  // namespace hpcrun
