// See pfm_api.h: the table and its dlopen loader.
#include "hpcrun/probe/pfm_api.h"

#include <dlfcn.h>

#include <cstdio>

namespace hpcrun {

namespace {
const PfmApi* g_api = nullptr;
PfmApi g_loaded;
}  // namespace

const PfmApi* pfm_api() { return g_api; }

void pfm_api_set(const PfmApi* api) { g_api = api; }

bool pfm_api_dlopen(char* err, size_t errlen) {
  if (g_api) return true;
  void* h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(err, errlen, "cannot load libpfm4 (libpfm.so.4): %s", dlerror());
    return false;
  }
  g_loaded.initialize = reinterpret_cast<int (*)()>(dlsym(h, "pfm_initialize"));
  g_loaded.get_os_event_encoding = reinterpret_cast<int (*)(const char*, int, int, void*)>(
      dlsym(h, "pfm_get_os_event_encoding"));
  g_loaded.strerror = reinterpret_cast<const char* (*)(int)>(dlsym(h, "pfm_strerror"));
  g_loaded.get_pmu_info = reinterpret_cast<int (*)(int, void*)>(dlsym(h, "pfm_get_pmu_info"));
  if (!g_loaded.initialize || !g_loaded.get_os_event_encoding || !g_loaded.strerror ||
      !g_loaded.get_pmu_info) {
    snprintf(err, errlen, "libpfm.so.4 lacks a pfm_* function this version calls");
    return false;
  }
  g_api = &g_loaded;
  return true;
}

}  // namespace hpcrun
