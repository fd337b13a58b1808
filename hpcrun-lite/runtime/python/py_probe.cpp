// The interpreter search of py_probe.h.
#include "python/py_probe.h"

#include <atomic>
#include <cstdio>
#include <cstring>

#include "base/log.h"
#include "loader/modules.h"
#include "python/script_frames.h"

namespace hpcrun {
namespace {

PyTarget g_target;
uint64_t g_lo = 0, g_hi = 0;
char g_version[16];
std::atomic<bool> g_found{false};
bool g_reported = false;

// The three symbols that make a module the interpreter. The interpreter exports them (extension
// modules link against them), so the loaded image's dynamic symbols answer without reading the
// module's file (modules.h); a module without a GNU hash table is read as a sample would.
struct InterpreterSymbols {
  uint64_t runtime = 0, version = 0, code_type = 0;
  bool all() const { return runtime && version && code_type; }
};

InterpreterSymbols interpreter_symbols(uint32_t index, const ModuleEntry& m) {
  InterpreterSymbols found;
  const int hashed = module_dynamic_symbol(index, "_PyRuntime", &found.runtime);
  if (hashed == 1) {
    module_dynamic_symbol(index, "Py_Version", &found.version);
    module_dynamic_symbol(index, "PyCode_Type", &found.code_type);
    return found;
  }
  if (hashed == 0 || !module_symbols_ready(index)) return found;
  char name[32];  // longer names are none of the three
  for (uint32_t i = 0; i < m.symbols.count && !found.all(); ++i) {
    if (!read_symbol_name(m.path, m.symbols, m.symbols.syms[i], name, sizeof name)) break;
    uint64_t* slot = strcmp(name, "_PyRuntime") == 0    ? &found.runtime
                     : strcmp(name, "Py_Version") == 0  ? &found.version
                     : strcmp(name, "PyCode_Type") == 0 ? &found.code_type
                                                        : nullptr;
    if (slot) *slot = m.symbols.syms[i].value;
  }
  return found;
}

void probe(uint32_t index, const ModuleEntry& m) {
  // One interpreter a process: once it is found (or refused), later modules are not searched.
  if (g_reported) return;
  const InterpreterSymbols sym = interpreter_symbols(index, m);
  if (!sym.all()) return;
  g_reported = true;
  uint64_t hex;
  memcpy(&hex, reinterpret_cast<const void*>(m.bias + sym.version), sizeof hex);
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
  g_target = PyTarget{m.bias + sym.runtime, m.bias + sym.code_type, layout};
  g_lo = m.lo;
  g_hi = m.hi;
  g_found.store(true, std::memory_order_release);
  log_info("Python %s found in %s: heap blocks are named by the Python lines that allocate them",
           g_version, base);
}

}  // namespace

void python_probe_module(uint32_t index) {
  if (const ModuleEntry* m = module_get(index)) probe(index, *m);
}

const PyTarget* python_target() {
  return g_found.load(std::memory_order_acquire) ? &g_target : nullptr;
}

bool python_interpreter_code(uint64_t pc) {
  return g_found.load(std::memory_order_acquire) && pc >= g_lo && pc < g_hi;
}

const char* python_version_text() { return g_version; }

}  // namespace hpcrun
