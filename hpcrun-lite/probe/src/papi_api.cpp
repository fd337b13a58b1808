// See papi_api.h.
#include "hpcrun/probe/papi_api.h"

#ifdef HPCL_HAVE_PAPI_H
#include <dlfcn.h>

#include <cstdio>

namespace hpcrun {

namespace {

// Debian's libpapi7.0 first, then any PAPI 7 (Spack's papi@7.1 installs libpapi.so.7.1 with
// the soname libpapi.so.7), then the development link.
constexpr const char* kPapiLibraryNames[] = {"libpapi.so.7.0", "libpapi.so.7", "libpapi.so"};

template <typename F>
bool resolve(void* h, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  return *out != nullptr;
}

}  // namespace

bool papi_api_load(PapiApi* api, char* library, size_t library_len, char* error, size_t error_len) {
  void* h = nullptr;
  const char* opened = nullptr;
  for (const char* name : kPapiLibraryNames)
    if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
      opened = name;
      break;
    }
  if (!h) {
    snprintf(error, error_len,
             "libpapi.so.7 cannot be loaded (%s; Debian: apt-get install libpapi7.0)", dlerror());
    return false;
  }
  snprintf(library, library_len, "%s", opened);
  PapiApi& f = *api;
  const bool ok = resolve(h, "PAPI_library_init", &f.library_init) &&
                  resolve(h, "PAPI_thread_init", &f.thread_init) &&
                  resolve(h, "PAPI_register_thread", &f.register_thread) &&
                  resolve(h, "PAPI_unregister_thread", &f.unregister_thread) &&
                  resolve(h, "PAPI_num_components", &f.num_components) &&
                  resolve(h, "PAPI_get_component_info", &f.get_component_info) &&
                  resolve(h, "PAPI_enum_event", &f.enum_event) &&
                  resolve(h, "PAPI_event_code_to_name", &f.event_code_to_name) &&
                  resolve(h, "PAPI_event_name_to_code", &f.event_name_to_code) &&
                  resolve(h, "PAPI_query_event", &f.query_event) &&
                  resolve(h, "PAPI_strerror", &f.strerror) &&
                  resolve(h, "PAPI_create_eventset", &f.create_eventset) &&
                  resolve(h, "PAPI_add_event", &f.add_event) &&
                  resolve(h, "PAPI_add_named_event", &f.add_named_event) &&
                  resolve(h, "PAPI_overflow", &f.overflow) &&
                  resolve(h, "PAPI_get_overflow_event_index", &f.get_overflow_event_index) &&
                  resolve(h, "PAPI_start", &f.start) && resolve(h, "PAPI_stop", &f.stop) &&
                  resolve(h, "PAPI_cleanup_eventset", &f.cleanup_eventset) &&
                  resolve(h, "PAPI_destroy_eventset", &f.destroy_eventset);
  if (!ok) {
    snprintf(error, error_len, "%s lacks a PAPI function hpcrun-lite uses (%s)", opened, dlerror());
    return false;
  }
  const int v = f.library_init(PAPI_VER_CURRENT);
  if (v != PAPI_VER_CURRENT) {
    snprintf(error, error_len, "PAPI_library_init failed: %s",
             v > 0 ? "the library's version differs from the one built against" : f.strerror(v));
    return false;
  }
  return true;
}

}  // namespace hpcrun
#endif
