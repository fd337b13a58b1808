// The interpreter search of py_probe.h.
#include "python/py_probe.h"

#include <atomic>
#include <cstdio>
#include <cstring>

#include "base/log.h"
#include "memory/modules.h"
#include "python/script_frames.h"

namespace hpcrun {
namespace {

PyTarget g_target;
uint64_t g_lo = 0, g_hi = 0;
char g_version[16];
std::atomic<bool> g_found{false};
uint32_t g_probed = 0;  // modules looked at so far
bool g_reported = false;

// The link-time value of a data symbol of `m`, or 0.
uint64_t symbol_value(const ModuleEntry& m, const char* name) {
  for (uint32_t i = 0; i < m.symbols.count; ++i)
    if (strcmp(m.symbols.names + m.symbols.syms[i].name, name) == 0) return m.symbols.syms[i].value;
  return 0;
}

void probe(const ModuleEntry& m) {
  uint64_t runtime = symbol_value(m, "_PyRuntime");
  uint64_t version = symbol_value(m, "Py_Version");
  uint64_t code_type = symbol_value(m, "PyCode_Type");
  if (!runtime || !version || !code_type || g_reported) return;
  g_reported = true;
  uint64_t hex;
  memcpy(&hex, reinterpret_cast<const void*>(m.bias + version), sizeof hex);
  snprintf(g_version, sizeof g_version, "%u.%u", unsigned(hex >> 24) & 0xff,
           unsigned(hex >> 16) & 0xff);
  const char* base = strrchr(m.path, '/');
  base = base ? base + 1 : m.path;
  const PyLayout* layout = py_layout_for(hex);
  if (!layout) {
    log_warn("Python %s (%s): this runtime cannot read its frames (it reads 3.11); arrays keep "
             "the native call paths that allocated them", g_version, base);
    return;
  }
  if (!g_script_frames.reserve()) {
    log_warn("Python %s (%s): no memory for its frames; arrays keep their native call paths",
             g_version, base);
    return;
  }
  g_target = PyTarget{m.bias + runtime, m.bias + code_type, layout};
  g_lo = m.lo;
  g_hi = m.hi;
  g_found.store(true, std::memory_order_release);
  log_info("Python %s found in %s: heap blocks are named by the Python lines that allocate them",
           g_version, base);
}

}  // namespace

void python_probe_modules() {
  uint32_t n = modules_count();
  for (; g_probed < n; ++g_probed)
    if (const ModuleEntry* m = module_get(g_probed)) probe(*m);
}

const PyTarget* python_target() {
  return g_found.load(std::memory_order_acquire) ? &g_target : nullptr;
}

bool python_interpreter_code(uint64_t pc) {
  return g_found.load(std::memory_order_acquire) && pc >= g_lo && pc < g_hi;
}

const char* python_version_text() { return g_version; }

}  // namespace hpcrun
