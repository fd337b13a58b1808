// See modules.h.
#include "loader/modules.h"

#include <link.h>
#include <sched.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "base/clock.h"
#include "base/thread_pointer.h"
#include "loader/dynamic_tls.h"
#include "base/log.h"
#include "base/real_fns.h"

namespace hpcrun {

namespace {

constinit ModuleEntry g_modules[kMaxModules];
constinit std::atomic<uint32_t> g_count{0};
bool g_initial_scan_done = false;
NewModuleHook g_on_new = nullptr;

// 1 + the index of the live entry with this bias and first segment, or 0.
uint32_t already_known(uint64_t bias, uint64_t first_seg) {
  uint32_t n = g_count.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i)
    if (g_modules[i].bias == bias && g_modules[i].nsegs > 0 && g_modules[i].seg_lo[0] == first_seg &&
        !__atomic_load_n(&g_modules[i].unloaded, __ATOMIC_RELAXED))
      return i + 1;
  return 0;
}

// Whether [at, at + len) lies inside one of the module's loaded segments.
bool mapped(const ModuleEntry& m, uint64_t at, uint64_t len) {
  for (uint32_t s = 0; s < m.nsegs; ++s)
    if (at >= m.seg_lo[s] && len <= m.seg_hi[s] - at) return true;
  return false;
}

uint64_t first_load(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) return info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
  return 0;
}

int on_object(dl_phdr_info* info, size_t, void*) {
  uint32_t n = g_count.load(std::memory_order_relaxed);
  if (n >= kMaxModules) return 1;
  uint64_t first_seg = first_load(info);
  if (already_known(info->dlpi_addr, first_seg)) return 0;

  ModuleEntry& m = g_modules[n];
  m = ModuleEntry{};
  const char* name = info->dlpi_name;
  if (!name || !name[0]) {
    // The executable (the first object). Other unnamed objects (vdso) get no file.
    if (n == 0) {
      ssize_t len = readlink("/proc/self/exe", m.path, sizeof m.path - 1);
      if (len > 0) m.path[len] = 0;
    }
  } else if (info->dlpi_addr != 0 && info->dlpi_addr == getauxval(AT_SYSINFO_EHDR)) {
    // The kernel's vDSO has no file: name it like /proc/self/maps does, so nobody looks for one.
    strncpy(m.path, "[vdso]", sizeof m.path - 1);
  } else {
    strncpy(m.path, name, sizeof m.path - 1);
  }
  m.bias = info->dlpi_addr;
  m.lo = UINT64_MAX;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_DYNAMIC) m.dynamic = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD) {
      uint64_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
      if (m.nsegs < kMaxSegments) {
        m.seg_lo[m.nsegs] = lo;
        m.seg_hi[m.nsegs] = hi;
        ++m.nsegs;
      }
      if (lo < m.lo) m.lo = lo;
      if (hi > m.hi) m.hi = hi;
    } else if (ph.p_type == PT_TLS && !g_initial_scan_done && info->dlpi_tls_data) {
      // Modules present at start-up use static TLS: the block sits at a fixed distance below
      // the thread pointer in every thread.
      m.has_static_tls = true;
      m.tls_offset = fs_base_of_current_thread() - reinterpret_cast<uint64_t>(info->dlpi_tls_data);
      m.tls_size = ph.p_memsz;
    } else if (ph.p_type == PT_TLS && info->dlpi_tls_modid != 0) {
      // Later dlopen'd modules (and one already dlopen'd whose block this thread has not
      // touched) get dynamic TLS, allocated per thread on first use at no fixed offset: it is
      // found through each thread's DTV under the module id.
      m.tls_size = ph.p_memsz;
      m.tls_align = ph.p_align;
      m.tls_modid = info->dlpi_tls_modid;
      m.dynamic_tls = 1;
    }
  }
  // A module id freed by dlclose is given to the next module with TLS: the older entry must no
  // longer claim the blocks found under it.
  if (m.dynamic_tls)
    for (uint32_t i = 0; i < n; ++i)
      if (g_modules[i].tls_modid == m.tls_modid)
        __atomic_store_n(&g_modules[i].dynamic_tls, 0u, __ATOMIC_RELAXED);
  if (m.nsegs == 0) m.lo = m.hi = 0;
  // The build ID from the loaded image's notes: no file is opened until a sample needs the
  // module's symbols (module_symbols_ready).
  for (int i = 0; i < info->dlpi_phnum && !m.symbols.build_id[0]; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uint64_t at = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_NOTE && mapped(m, at, ph.p_memsz))
      build_id_from_notes(reinterpret_cast<const uint8_t*>(at), ph.p_memsz, m.symbols.build_id);
  }
  g_count.store(n + 1, std::memory_order_release);
  if (g_on_new) g_on_new(info);
  return 0;
}

}  // namespace

void modules_set_on_new(NewModuleHook hook) { g_on_new = hook; }

uint32_t modules_scan() {
  uint32_t before = g_count.load(std::memory_order_relaxed);
  // The real one, resolved (runtime.cpp): ours answers the runtime's calls from the snapshot
  // (phdr_hooks.cpp). Unit tests link no hook and resolve nothing.
  (real.dl_iterate_phdr ? real.dl_iterate_phdr : ::dl_iterate_phdr)(on_object, nullptr);
  g_initial_scan_done = true;
  uint32_t after = g_count.load(std::memory_order_relaxed);
  for (uint32_t i = before; i < after; ++i)
    log_info("module %s", g_modules[i].path[0] ? g_modules[i].path : "[anon]");
  return after - before;
}

namespace {
// The thread reading a module's symbols (its thread pointer), or 0: the ELF reader keeps one
// scratch buffer (elf_symbols.h).
constinit std::atomic<uint64_t> g_reader{0};
// How long a caller waits for another thread's read: a large table takes about a millisecond.
constexpr uint64_t kReaderWaitNs = 100 * 1000 * 1000;
}  // namespace

// A module's data symbols are read when something first needs them (a sample, a page fault or a
// watch in the module's data, the Python probe), not when it is loaded: an MPI program loads a
// hundred components whose data is never sampled, and reading each one cost 11 system calls
// (open, fstat, preads, a debug-file lookup, close): 1,570 of a 1-rank LAMMPS start-up's 2,860
// added system calls (bench/kernel_entries.sh, 2-vCPU EPYC VM). The reader is async-signal-safe;
// one thread reads at a time. The caller that interrupted its own thread's read gets no symbols
// (the sample is counted in the module's data without a name); another thread's read is waited for.
bool module_symbols_ready(uint32_t i) {
  ModuleEntry& m = g_modules[i];
  if (__atomic_load_n(&m.symbols_read, __ATOMIC_ACQUIRE)) return true;
  const uint64_t self = fs_base_of_current_thread();
  if (g_reader.load(std::memory_order_relaxed) == self) return false;
  const uint64_t start = monotonic_ns();
  for (;;) {
    uint64_t none = 0;
    if (g_reader.compare_exchange_strong(none, self, std::memory_order_acquire)) break;
    if (monotonic_ns() - start > kReaderWaitNs) return false;
    sched_yield();
  }
  if (!__atomic_load_n(&m.symbols_read, __ATOMIC_ACQUIRE)) {
    if (m.path[0] && m.path[0] != '[') read_data_symbols(m.path, &m.symbols);
    __atomic_store_n(&m.symbols_read, 1u, __ATOMIC_RELEASE);
  }
  g_reader.store(0, std::memory_order_release);
  return true;
}

namespace {
uint32_t gnu_hash(const char* name) {
  uint32_t h = 5381;
  for (auto* c = reinterpret_cast<const unsigned char*>(name); *c; ++c) h = h * 33 + *c;
  return h;
}
}  // namespace

int module_dynamic_symbol(uint32_t i, const char* name, uint64_t* value) {
  if (i >= modules_count()) return -1;
  const ModuleEntry& m = g_modules[i];
  if (!m.dynamic || !mapped(m, m.dynamic, sizeof(ElfW(Dyn))) ||
      __atomic_load_n(&m.unloaded, __ATOMIC_ACQUIRE))
    return -1;
  // The loader rewrites these entries to run-time addresses in most modules, not in all (the
  // vDSO's stay link-time): a value outside the image is still relative to its bias.
  auto at = [&](uint64_t v) { return v >= m.lo && v < m.hi ? v : v + m.bias; };
  uint64_t symtab = 0, strtab = 0, hash = 0;
  for (auto* d = reinterpret_cast<const ElfW(Dyn)*>(m.dynamic); d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symtab = at(d->d_un.d_ptr);
    else if (d->d_tag == DT_STRTAB) strtab = at(d->d_un.d_ptr);
    else if (d->d_tag == DT_GNU_HASH) hash = at(d->d_un.d_ptr);
  }
  if (!symtab || !strtab || !hash || !mapped(m, hash, 16)) return -1;
  // DT_GNU_HASH: nbuckets, symoffset, bloom_size, bloom_shift, bloom[bloom_size] (64-bit words),
  // buckets[nbuckets], then one chain word per symbol from symoffset on, bit 0 ending a chain.
  const auto* words = reinterpret_cast<const uint32_t*>(hash);
  const uint32_t nbuckets = words[0], symoffset = words[1], bloom_size = words[2];
  if (nbuckets == 0) return 0;  // no symbols
  const uint32_t* buckets = words + 4 + 2 * bloom_size;
  const uint32_t* chain = buckets + nbuckets;
  const uint32_t h = gnu_hash(name);
  const auto* syms = reinterpret_cast<const ElfW(Sym)*>(symtab);
  const char* strs = reinterpret_cast<const char*>(strtab);
  for (uint32_t k = buckets[h % nbuckets]; k >= symoffset && k != 0; ++k) {
    const uint32_t h2 = chain[k - symoffset];
    if ((h | 1) == (h2 | 1) && strcmp(strs + syms[k].st_name, name) == 0) {
      if (syms[k].st_shndx == SHN_UNDEF) return 0;
      *value = syms[k].st_value;
      return 1;
    }
    if (h2 & 1) break;
  }
  return 0;
}

void modules_after_fork_child() {
  // A read by a thread that the child does not have will never end.
  if (g_reader.load(std::memory_order_relaxed) != fs_base_of_current_thread())
    g_reader.store(0, std::memory_order_relaxed);
}

namespace {
// Entries the loader still lists, during modules_forget_unloaded (callers serialise).
bool g_listed[kMaxModules];

int mark_listed(dl_phdr_info* info, size_t, void*) {
  if (uint32_t i = already_known(info->dlpi_addr, first_load(info))) g_listed[i - 1] = true;
  return 0;
}
}  // namespace

uint32_t modules_forget_unloaded(void (*on_range)(uint64_t lo, uint64_t hi)) {
  uint32_t n = g_count.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i) g_listed[i] = false;
  (real.dl_iterate_phdr ? real.dl_iterate_phdr : ::dl_iterate_phdr)(mark_listed, nullptr);
  uint32_t forgotten = 0;
  // Entry 0 is the executable, never unloaded.
  for (uint32_t i = 1; i < n; ++i) {
    ModuleEntry& m = g_modules[i];
    if (g_listed[i] || m.nsegs == 0 || __atomic_load_n(&m.unloaded, __ATOMIC_RELAXED)) continue;
    __atomic_store_n(&m.unloaded, 1u, __ATOMIC_RELEASE);
    __atomic_store_n(&m.dynamic_tls, 0u, __ATOMIC_RELAXED);
    log_info("module %s unloaded", m.path[0] ? m.path : "[anon]");
    if (on_range && m.lo < m.hi) on_range(m.lo, m.hi);
    ++forgotten;
  }
  return forgotten;
}

uint32_t modules_count() { return g_count.load(std::memory_order_acquire); }

const ModuleEntry* module_get(uint32_t i) {
  return i < modules_count() ? &g_modules[i] : nullptr;
}

namespace {
// The symbol of module i holding `value` (link-time address, or offset in its TLS block), its
// table read first if nobody has; -1 when none does or the table is not available now.
int64_t symbol_at(uint32_t i, uint64_t value, bool tls) {
  return module_symbols_ready(i) ? find_symbol(g_modules[i].symbols, value, tls) : -1;
}

// `addr` in module i's static TLS block of the thread with thread pointer `tp`.
bool static_tls_hit(uint32_t i, uint64_t addr, uint64_t tp, StaticHit* out) {
  const ModuleEntry& m = g_modules[i];
  if (!m.has_static_tls || tp == 0) return false;
  uint64_t block = tp - m.tls_offset;
  if (addr - block >= m.tls_size) return false;
  *out = StaticHit{i, symbol_at(i, addr - block, true)};
  return true;
}
}  // namespace

bool modules_find_static(uint64_t addr, uint64_t tp, StaticHit* out) {
  uint32_t n = g_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    const ModuleEntry& m = g_modules[i];
    if (static_tls_hit(i, addr, tp, out)) return true;
    if (addr < m.lo || addr >= m.hi || __atomic_load_n(&m.unloaded, __ATOMIC_ACQUIRE)) continue;
    for (uint32_t s = 0; s < m.nsegs; ++s) {
      if (addr >= m.seg_lo[s] && addr < m.seg_hi[s]) {
        *out = StaticHit{i, symbol_at(i, addr - m.bias, false)};
        return true;
      }
    }
  }
  return false;
}

bool modules_find_tls(uint64_t addr, uint64_t tp, bool dynamic, StaticHit* out) {
  uint32_t n = g_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i)
    if (static_tls_hit(i, addr, tp, out)) return true;
  if (!dynamic) return false;
  // Newest first: after a dlclose the newest module with an id owns the blocks under it.
  for (uint32_t i = n; i-- > 0;) {
    const ModuleEntry& m = g_modules[i];
    if (!__atomic_load_n(&m.dynamic_tls, __ATOMIC_RELAXED)) continue;
    uint64_t block = dtv_block(tp, m.tls_modid);
    if (block != 0 && addr - block < m.tls_size) {
      *out = StaticHit{i, symbol_at(i, addr - block, true)};
      return true;
    }
  }
  return false;
}

bool modules_maybe_dynamic_tls_block(uint64_t size) {
  uint32_t n = g_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    const ModuleEntry& m = g_modules[i];
    // glibc's allocate_dtv_entry: malloc(size), or size + alignment to align by hand.
    if (__atomic_load_n(&m.dynamic_tls, __ATOMIC_RELAXED) && size >= m.tls_size &&
        size <= m.tls_size + m.tls_align)
      return true;
  }
  return false;
}

uint32_t modules_find_code(uint64_t addr) {
  // Live modules first: a library mapped where an unloaded one was owns its addresses now. The
  // unloaded ones still name frames recorded while they were mapped.
  uint32_t n = g_count.load(std::memory_order_acquire);
  for (uint32_t pass = 0; pass < 2; ++pass)
    for (uint32_t i = 0; i < n; ++i) {
      const ModuleEntry& m = g_modules[i];
      if (addr < m.lo || addr >= m.hi || __atomic_load_n(&m.unloaded, __ATOMIC_ACQUIRE) != pass) continue;
      for (uint32_t s = 0; s < m.nsegs; ++s)
        if (addr >= m.seg_lo[s] && addr < m.seg_hi[s]) return i;
    }
  return kNoModuleIndex;
}

}  // namespace hpcrun
