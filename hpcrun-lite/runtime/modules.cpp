// See modules.h.
#include "modules.h"

#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "log.h"

namespace hpcrun {

namespace {

constinit ModuleEntry g_modules[kMaxModules];
constinit std::atomic<uint32_t> g_count{0};
bool g_initial_scan_done = false;

bool already_known(uint64_t bias, uint64_t first_seg) {
  uint32_t n = g_count.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i)
    if (g_modules[i].bias == bias && g_modules[i].nsegs > 0 && g_modules[i].seg_lo[0] == first_seg)
      return true;
  return false;
}

int on_object(dl_phdr_info* info, size_t, void*) {
  uint32_t n = g_count.load(std::memory_order_relaxed);
  if (n >= kMaxModules) return 1;
  uint64_t first_seg = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) {
      first_seg = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      break;
    }
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
      // the thread pointer in every thread. Later dlopen'd modules may get dynamic TLS, whose
      // blocks have no fixed offset; their TLS variables are not resolved.
      uint64_t tp;
      __asm__("mov %%fs:0, %0" : "=r"(tp));
      m.has_static_tls = true;
      m.tls_offset = tp - reinterpret_cast<uint64_t>(info->dlpi_tls_data);
      m.tls_size = ph.p_memsz;
    }
  }
  if (m.nsegs == 0) m.lo = m.hi = 0;
  if (m.path[0]) read_data_symbols(m.path, &m.symbols);
  g_count.store(n + 1, std::memory_order_release);
  return 0;
}

}  // namespace

uint32_t modules_scan() {
  uint32_t before = g_count.load(std::memory_order_relaxed);
  dl_iterate_phdr(on_object, nullptr);
  g_initial_scan_done = true;
  uint32_t after = g_count.load(std::memory_order_relaxed);
  for (uint32_t i = before; i < after; ++i)
    log_info("module %s: %u data symbols", g_modules[i].path[0] ? g_modules[i].path : "[anon]",
             g_modules[i].symbols.count);
  return after - before;
}

uint32_t modules_count() { return g_count.load(std::memory_order_acquire); }

const ModuleEntry* module_get(uint32_t i) {
  return i < modules_count() ? &g_modules[i] : nullptr;
}

bool modules_find_static(uint64_t addr, uint64_t tp, StaticHit* out) {
  uint32_t n = g_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    const ModuleEntry& m = g_modules[i];
    if (m.has_static_tls && tp) {
      uint64_t block = tp - m.tls_offset;
      if (addr - block < m.tls_size) {
        *out = StaticHit{i, find_symbol(m.symbols, addr - block, true)};
        return true;
      }
    }
    if (addr < m.lo || addr >= m.hi) continue;
    for (uint32_t s = 0; s < m.nsegs; ++s) {
      if (addr >= m.seg_lo[s] && addr < m.seg_hi[s]) {
        *out = StaticHit{i, find_symbol(m.symbols, addr - m.bias, false)};
        return true;
      }
    }
  }
  return false;
}

uint32_t modules_find_code(uint64_t addr) {
  uint32_t n = g_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    const ModuleEntry& m = g_modules[i];
    if (addr < m.lo || addr >= m.hi) continue;
    for (uint32_t s = 0; s < m.nsegs; ++s)
      if (addr >= m.seg_lo[s] && addr < m.seg_hi[s]) return i;
  }
  return kNoModuleIndex;
}

}  // namespace hpcrun
