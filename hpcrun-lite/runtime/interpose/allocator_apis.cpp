// See allocator_apis.h: which object's calls go to which wrapper.
#include "interpose/allocator_apis.h"

#include <dlfcn.h>

#include <cstring>

#include "base/log.h"
#include "loader/got_patch.h"

namespace hpcrun {
namespace {

ApiTable g_tables[4];
bool g_tables_ready = false;

// Names of all four families start with one of these; most relocations are rejected by one
// compare before any table is searched.
bool maybe_api_name(const char* s) {
  return (s[0] == 'm' && (s[1] == 'i' || s[1] == 'a')) || (s[0] == 't' && s[1] == 'c') ||
         (s[0] == 's' && (s[1] == 'c' || s[1] == 'd')) || (s[0] == 'j' && s[1] == 'e') ||
         (s[0] == 'r' && s[1] == 'a') || (s[0] == 'x' && s[1] == 'a') || (s[0] == 'd' && s[1] == 'a');
}

ApiEntry* find_entry(const char* name) {
  if (!maybe_api_name(name)) return nullptr;
  for (ApiTable& t : g_tables)
    for (size_t i = 0; i < t.count; ++i)
      if (strcmp(t.entries[i].name, name) == 0) return &t.entries[i];
  return nullptr;
}

// The family of an entry: all its functions are resolved together, so that a wrapper finds the
// nothrow form or the counterpart it calls.
void resolve_family(const ApiEntry* member) {
  for (ApiTable& t : g_tables) {
    if (member < t.entries || member >= t.entries + t.count) continue;
    for (size_t i = 0; i < t.count; ++i)
      if (!t.entries[i].real.load(std::memory_order_relaxed))
        t.entries[i].real.store(dlsym(RTLD_DEFAULT, t.entries[i].name), std::memory_order_relaxed);
  }
}

bool maps_our_code(const dl_phdr_info* info) {
  auto own = reinterpret_cast<uint64_t>(&allocator_apis_on_object);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uint64_t lo = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && own >= lo && own - lo < ph.p_memsz) return true;
  }
  return false;
}

void* wrapper_for(const char* name) {
  ApiEntry* e = find_entry(name);
  if (!e || !e->wrapper) return nullptr;
  if (!e->real.load(std::memory_order_relaxed)) resolve_family(e);
  // Without a definition the loader can find (a weak reference, an object loaded with
  // RTLD_LOCAL), the slot stays as it is.
  return e->real.load(std::memory_order_acquire) ? e->wrapper : nullptr;
}

}  // namespace

void allocator_apis_on_object(const dl_phdr_info* info) {
  if (!g_tables_ready) {
    g_tables[0] = jemalloc_api();
    g_tables[1] = mimalloc_api();
    g_tables[2] = tbb_api();
    g_tables[3] = tcmalloc_api();
    g_tables_ready = true;
  }
  // Our own calls are never redirected, nor the kernel's vDSO (no relocations worth reading).
  if (maps_our_code(info)) return;
  if (info->dlpi_name && strcmp(info->dlpi_name, "linux-vdso.so.1") == 0) return;
  int n = got_patch_object(info, wrapper_for);
  if (n > 0)
    log_info("%d calls of %s go to the allocator API wrappers",
             n, info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "the program");
}

}  // namespace hpcrun
