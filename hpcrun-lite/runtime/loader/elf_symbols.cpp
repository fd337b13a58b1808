// See elf_symbols.h.
#include "loader/elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/raw_sys.h"

namespace hpcrun {

namespace {

// One ELF file read with pread: its header, its section headers and the sections the reader
// needs, each into memory of its own, instead of a mapping of the whole file. A mapping cost
// more than the reading: its page faults, and the munmap after it, which in a process with
// threads (an MPI library's progress threads) flushes the TLB of every CPU they ran on: 107 us a
// module on the project's 2-vCPU VM, read with mmap, for the 123 modules a NumPy and mpi4py
// program loads (40 us of it in munmap).
// Raw system calls: the reader runs in the sampling handler (modules.h), where libc's wrappers
// would set the program's errno and `close` would reach this library's own interposer.
struct ElfFile {
  int fd = -1;
  uint64_t size = 0;
  Elf64_Ehdr eh{};
  const Elf64_Shdr* sh = nullptr;  // in the scratch buffer
  // The file's first bytes, read with its header: the notes (the build ID) usually lie there.
  uint64_t head_len = 0;
  explicit ElfFile(const char* path) {
    long r = raw_syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (raw_failed(r)) return;
    fd = int(r);
    struct stat st;
    if (raw_failed(raw_syscall(SYS_fstat, fd, &st)) || st.st_size <= 0) return;
    size = uint64_t(st.st_size);
  }
  ~ElfFile() {
    if (fd >= 0) raw_syscall(SYS_close, fd);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  bool in_range(uint64_t off, uint64_t len) const { return off <= size && len <= size - off; }
  bool read(uint64_t off, void* dst, size_t len) const {
    if (!in_range(off, len)) return false;
    auto* p = static_cast<uint8_t*>(dst);
    while (len > 0) {
      long r = raw_syscall(SYS_pread64, fd, p, len, off);
      if (r <= 0) return false;
      p += r;
      off += uint64_t(r);
      len -= size_t(r);
    }
    return true;
  }
};

// The head of the file being read (ElfFile::head_len bytes). One file at a time (elf_symbols.h).
alignas(8) uint8_t g_head[4096];

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
    // Nothing of it outlives one file, so a child of fork() may start with it zeroed; then fork
    // leaves the parent's pages writable instead of copy-on-write, and the next file read into
    // them does not fault on each (92 faults of a LAMMPS singleton start-up, whose Open MPI
    // forks its orted, perf record -d -e page-faults, 2 Dec). Linux 4.14; harmless without.
    raw_syscall(SYS_madvise, p, want, MADV_WIPEONFORK);
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
  if (f.fd < 0 || f.size < sizeof f.eh) return false;
  f.head_len = f.size < sizeof g_head ? f.size : sizeof g_head;
  if (!f.read(0, g_head, f.head_len)) return false;
  memcpy(&f.eh, g_head, sizeof f.eh);
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

}  // namespace

bool build_id_from_notes(const uint8_t* notes, uint64_t len, char out[41]) {
  uint64_t off = 0;
  while (off + sizeof(Elf64_Nhdr) <= len) {
    auto* nh = reinterpret_cast<const Elf64_Nhdr*>(notes + off);
    uint64_t name_sz = (uint64_t(nh->n_namesz) + 3) & ~uint64_t(3);
    uint64_t desc_sz = (uint64_t(nh->n_descsz) + 3) & ~uint64_t(3);
    const uint8_t* name = reinterpret_cast<const uint8_t*>(nh + 1);
    const uint8_t* desc = name + name_sz;
    if (name_sz + desc_sz > len - off - sizeof(Elf64_Nhdr)) return false;
    if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
        nh->n_descsz <= 20) {
      static const char hex[] = "0123456789abcdef";
      for (unsigned k = 0; k < nh->n_descsz; ++k) {
        out[2 * k] = hex[desc[k] >> 4];
        out[2 * k + 1] = hex[desc[k] & 15];
      }
      out[2 * nh->n_descsz] = 0;
      return true;
    }
    off += sizeof(Elf64_Nhdr) + name_sz + desc_sz;
  }
  return false;
}

namespace {

// The build ID from the file's note sections, when the loaded image did not give it.
void read_build_id(const ElfFile& f, char out[41]) {
  for (unsigned i = 0; i < f.eh.e_shnum; ++i) {
    const Elf64_Shdr& sh = f.sh[i];
    if (sh.sh_type != SHT_NOTE) continue;
    alignas(8) uint8_t note[512];
    const uint8_t* at = note;
    if (sh.sh_offset <= f.head_len && sh.sh_size <= f.head_len - sh.sh_offset)
      at = g_head + sh.sh_offset;  // already read with the header
    else if (sh.sh_size > sizeof note || !f.read(sh.sh_offset, note, sh.sh_size))
      continue;
    if (build_id_from_notes(at, sh.sh_size, out)) return;
  }
}

// A symbol table's section and that of its strings.
struct TablePair {
  Elf64_Shdr tab{}, strs{};
};

// Finds the symbol table of one section type; false when the file has none (or a broken one).
bool find_symtab(const ElfFile& f, uint32_t type, TablePair* out) {
  for (unsigned i = 0; i < f.eh.e_shnum; ++i) {
    if (f.sh[i].sh_type != type || f.sh[i].sh_entsize != sizeof(Elf64_Sym)) continue;
    if (f.sh[i].sh_link >= f.eh.e_shnum) return false;
    out->tab = f.sh[i];
    out->strs = f.sh[f.sh[i].sh_link];
    return f.in_range(out->tab.sh_offset, out->tab.sh_size) &&
           f.in_range(out->strs.sh_offset, out->strs.sh_size);
  }
  return false;
}

// Reads the data symbols of a table found by find_symtab: the table alone, in pieces of the
// scratch buffer, twice (to count, then to keep); their names stay in the file.
bool load_symtab(const ElfFile& f, const TablePair& p, SymbolTable* out) {
  const Elf64_Shdr& tab = p.tab;
  const uint64_t n = tab.sh_size / sizeof(Elf64_Sym);
  out->syms = nullptr;  // a table that failed half-way leaves nothing behind for the next one
  out->count = 0;
  constexpr uint64_t kPieceSyms = (256 * 1024) / sizeof(Elf64_Sym);
  auto* piece = reinterpret_cast<Elf64_Sym*>(g_scratch.get(kPieceSyms * sizeof(Elf64_Sym)));
  if (!piece) return false;
  auto wanted = [&](const Elf64_Sym& s) {
    int t = ELF64_ST_TYPE(s.st_info);
    return (t == STT_OBJECT || t == STT_TLS) && s.st_size > 0 && s.st_shndx != SHN_UNDEF &&
           s.st_name < p.strs.sh_size;
  };
  // Each piece of the table in turn, read into the scratch buffer: false when one cannot be.
  auto each = [&](auto&& fn) {
    for (uint64_t first = 0; first < n; first += kPieceSyms) {
      const uint64_t k = n - first < kPieceSyms ? n - first : kPieceSyms;
      if (!f.read(tab.sh_offset + first * sizeof(Elf64_Sym), piece, k * sizeof(Elf64_Sym))) return false;
      for (uint64_t i = 0; i < k; ++i)
        if (wanted(piece[i])) fn(piece[i]);
    }
    return true;
  };
  uint32_t count = 0;
  // A table of one piece is read once: its pieces are still in the buffer for the second pass.
  if (!each([&](const Elf64_Sym&) { ++count; })) return false;
  out->syms = static_cast<DataSymbol*>(g_arena.take(count * sizeof(DataSymbol)));
  if (!out->syms) return false;
  auto keep = [&](const Elf64_Sym& s) {
    if (out->count < count)
      out->syms[out->count++] = DataSymbol{s.st_value, s.st_size, s.st_name, ELF64_ST_TYPE(s.st_info) == STT_TLS};
  };
  if (n <= kPieceSyms) {
    for (uint64_t i = 0; i < n; ++i)
      if (wanted(piece[i])) keep(piece[i]);
  } else if (!each(keep)) {
    return false;
  }
  out->names_at = p.strs.sh_offset;
  out->names_size = p.strs.sh_size;
  return true;
}

// "/usr/lib/debug/.build-id/ab/cdef....debug" for build ID "abcdef...", without snprintf (the
// handler may be the caller).
void debug_file_path(const char* build_id, char* out, size_t cap) {
  static const char kDir[] = "/usr/lib/debug/.build-id/";
  static const char kExt[] = ".debug";
  const size_t id_len = strlen(build_id);
  if (id_len < 3 || sizeof kDir + id_len + sizeof kExt > cap) {
    out[0] = 0;
    return;
  }
  size_t k = 0;
  memcpy(out, kDir, sizeof kDir - 1);
  k += sizeof kDir - 1;
  out[k++] = build_id[0];
  out[k++] = build_id[1];
  out[k++] = '/';
  memcpy(out + k, build_id + 2, id_len - 2);
  k += id_len - 2;
  memcpy(out + k, kExt, sizeof kExt);  // with its NUL
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
  out->names_in_debug = false;
  ElfFile f(path);
  if (!read_headers(f)) return false;
  if (!out->build_id[0]) read_build_id(f, out->build_id);
  // Both tables' places first: the debug file's headers take the scratch buffer over.
  TablePair full, dynamic;
  const bool has_full = find_symtab(f, SHT_SYMTAB, &full);
  const bool has_dynamic = find_symtab(f, SHT_DYNSYM, &dynamic);
  bool have = has_full && load_symtab(f, full, out);
  if (!have && out->build_id[0]) {
    // A stripped file: the full table from its separate debug file, else its dynamic symbols.
    char debug[128];
    debug_file_path(out->build_id, debug, sizeof debug);
    if (debug[0]) {
      ElfFile d(debug);
      TablePair p;
      have = read_headers(d) && find_symtab(d, SHT_SYMTAB, &p) && load_symtab(d, p, out);
      out->names_in_debug = have;
    }
  }
  if (!have && has_dynamic) load_symtab(f, dynamic, out);
  normalize(out);
  return true;
}

bool read_symbol_name(const char* path, const SymbolTable& t, const DataSymbol& s, char* out, size_t cap) {
  if (cap == 0) return false;
  out[0] = 0;
  char debug[128];
  if (t.names_in_debug) {
    debug_file_path(t.build_id, debug, sizeof debug);
    path = debug;
  }
  if (s.name >= t.names_size) return false;
  ElfFile f(path);
  if (f.fd < 0) return false;
  uint64_t len = t.names_size - s.name;
  if (len > cap - 1) len = cap - 1;
  if (!f.read(t.names_at + s.name, out, len)) return false;
  out[len] = 0;  // a name the string table does not end is cut there (strnlen's bound)
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
