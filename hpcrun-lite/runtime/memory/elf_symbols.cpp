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

// One ELF file read with pread: its header, its section headers and the sections the reader
// needs, each into memory of its own, instead of a mapping of the whole file. A mapping cost
// more than the reading: its page faults, and the munmap after it, which in a process with
// threads (an MPI library's progress threads) flushes the TLB of every CPU they ran on: 107 us a
// module on the project's 2-vCPU VM, read with mmap, for the 123 modules a NumPy and mpi4py
// program loads (40 us of it in munmap).
struct ElfFile {
  int fd = -1;
  uint64_t size = 0;
  Elf64_Ehdr eh{};
  const Elf64_Shdr* sh = nullptr;  // in the scratch buffer
  explicit ElfFile(const char* path) {
    fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) return;
    size = uint64_t(st.st_size);
  }
  ~ElfFile() {
    if (fd >= 0) close(fd);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  bool in_range(uint64_t off, uint64_t len) const { return off <= size && len <= size - off; }
  bool read(uint64_t off, void* dst, size_t len) const {
    if (!in_range(off, len)) return false;
    auto* p = static_cast<uint8_t*>(dst);
    while (len > 0) {
      ssize_t r = pread(fd, p, len, off_t(off));
      if (r <= 0) return false;
      p += r;
      off += uint64_t(r);
      len -= size_t(r);
    }
    return true;
  }
};

// Memory the reader fills at once, its pages made by the mmap itself (MAP_POPULATE) instead of
// one page fault each as pread or the tables fill them: 223 faults of a NumPy import's start-up,
// several microseconds each on a paravirtualized VM.
void* populated(size_t n) { return raw_mmap(n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE); }

// Memory the reader keeps for the next file: the section headers and the symbol and string
// tables of the file being read. Callers serialise (modules.h), so one is enough; it grows to
// the largest file's need and is never returned.
struct Scratch {
  uint8_t* data = nullptr;
  size_t cap = 0;
  uint8_t* get(size_t n) {
    if (n <= cap) return data;
    size_t want = (n + (1u << 20) - 1) & ~size_t((1u << 20) - 1);
    void* p = populated(want);
    if (!p) return nullptr;
    if (data) raw_munmap(data, cap);
    data = static_cast<uint8_t*>(p);
    cap = want;
    return data;
  }
};
Scratch g_scratch;

// The tables kept for each module, carved from 1 MiB pieces (never freed: modules.h keeps every
// entry): one mmap for dozens of modules instead of two per module.
struct Arena {
  uint8_t* next = nullptr;
  size_t left = 0;
  void* take(size_t n) {
    n = (n + 7) & ~size_t(7);
    if (n == 0) n = 8;
    if (n > left) {
      constexpr size_t kPiece = 1u << 20;
      if (n >= kPiece / 4) return populated(n);  // a large table gets a mapping of its own
      void* p = populated(kPiece);
      if (!p) return nullptr;
      next = static_cast<uint8_t*>(p);
      left = kPiece;
    }
    void* out = next;
    next += n;
    left -= n;
    return out;
  }
};
Arena g_arena;

bool read_headers(ElfFile& f) {
  if (f.fd < 0 || !f.read(0, &f.eh, sizeof f.eh)) return false;
  const Elf64_Ehdr& eh = f.eh;
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr))
    return false;
  const size_t n = size_t(eh.e_shnum) * sizeof(Elf64_Shdr);
  uint8_t* buf = g_scratch.get(n);
  if (!buf || !f.read(eh.e_shoff, buf, n)) return false;
  f.sh = reinterpret_cast<const Elf64_Shdr*>(buf);
  return true;
}

void read_build_id(const ElfFile& f, char out[41]) {
  for (unsigned i = 0; i < f.eh.e_shnum; ++i) {
    const Elf64_Shdr& sh = f.sh[i];
    alignas(8) uint8_t note[512];
    if (sh.sh_type != SHT_NOTE || sh.sh_size > sizeof note || !f.read(sh.sh_offset, note, sh.sh_size)) continue;
    uint64_t off = 0;
    while (off + sizeof(Elf64_Nhdr) <= sh.sh_size) {
      auto* nh = reinterpret_cast<const Elf64_Nhdr*>(note + off);
      uint64_t name_sz = (nh->n_namesz + 3) & ~3u, desc_sz = (nh->n_descsz + 3) & ~3u;
      const uint8_t* name = reinterpret_cast<const uint8_t*>(nh + 1);
      const uint8_t* desc = name + name_sz;
      if (off + sizeof(Elf64_Nhdr) + name_sz + desc_sz > sh.sh_size) break;
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
bool read_symtab(const ElfFile& f, uint32_t type, SymbolTable* out) {
  for (unsigned i = 0; i < f.eh.e_shnum; ++i) {
    if (f.sh[i].sh_type != type || f.sh[i].sh_entsize != sizeof(Elf64_Sym)) continue;
    if (f.sh[i].sh_link >= f.eh.e_shnum) return false;
    const Elf64_Shdr tab = f.sh[i], strs = f.sh[f.sh[i].sh_link];
    if (!f.in_range(tab.sh_offset, tab.sh_size) || !f.in_range(strs.sh_offset, strs.sh_size)) return false;
    // Both tables after the section headers, which stay where they are.
    const size_t headers = size_t(f.eh.e_shnum) * sizeof(Elf64_Shdr);
    const size_t at_syms = (headers + 7) & ~size_t(7), at_strs = at_syms + tab.sh_size;
    // (A buffer that grows leaves f.sh behind: only the copies above are used from here.)
    uint8_t* buf = g_scratch.get(at_strs + strs.sh_size);
    if (!buf) return false;
    if (!f.read(tab.sh_offset, buf + at_syms, tab.sh_size) || !f.read(strs.sh_offset, buf + at_strs, strs.sh_size))
      return false;
    auto* syms = reinterpret_cast<const Elf64_Sym*>(buf + at_syms);
    size_t n = tab.sh_size / sizeof(Elf64_Sym);
    const char* strtab = reinterpret_cast<const char*>(buf + at_strs);
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
    out->syms = static_cast<DataSymbol*>(g_arena.take(count * sizeof(DataSymbol)));
    out->names = static_cast<char*>(g_arena.take(names));
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
  ElfFile f(path);
  if (!read_headers(f)) return false;
  read_build_id(f, out->build_id);
  bool have = read_symtab(f, SHT_SYMTAB, out);
  if (!have && out->build_id[0]) {
    // A stripped file: the full table from its separate debug file, else its dynamic symbols.
    char debug[128];
    snprintf(debug, sizeof debug, "/usr/lib/debug/.build-id/%.2s/%s.debug", out->build_id, out->build_id + 2);
    ElfFile d(debug);
    have = read_headers(d) && read_symtab(d, SHT_SYMTAB, out);
  }
  // The headers again: the scratch buffer held the debug file's, or grew.
  if (!have && read_headers(f)) read_symtab(f, SHT_DYNSYM, out);
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
