// See modules.h.
#include "memory/modules.h"

#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "memory/dynamic_tls.h"
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
      uint64_t tp;
      __asm__("mov %%fs:0, %0" : "=r"(tp));
      m.has_static_tls = true;
      m.tls_offset = tp - reinterpret_cast<uint64_t>(info->dlpi_tls_data);
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
  if (m.path[0]) read_data_symbols(m.path, &m.symbols);
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
    log_info("module %s: %u data symbols", g_modules[i].path[0] ? g_modules[i].path : "[anon]",
             g_modules[i].symbols.count);
  return after - before;
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
// `addr` in module i's static TLS block of the thread with thread pointer `tp`.
bool static_tls_hit(uint32_t i, uint64_t addr, uint64_t tp, StaticHit* out) {
  const ModuleEntry& m = g_modules[i];
  if (!m.has_static_tls || tp == 0) return false;
  uint64_t block = tp - m.tls_offset;
  if (addr - block >= m.tls_size) return false;
  *out = StaticHit{i, find_symbol(m.symbols, addr - block, true)};
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
        *out = StaticHit{i, find_symbol(m.symbols, addr - m.bias, false)};
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
      *out = StaticHit{i, find_symbol(m.symbols, addr - block, true)};
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
