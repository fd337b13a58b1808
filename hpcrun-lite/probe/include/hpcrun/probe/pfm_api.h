// The four libpfm4 functions the PEBS attribute builder needs, reached through a table instead
// of by link. The preloaded runtime must not link libpfm4: it would load libpfm.so.4 into every
// measured program's global scope, where a program with its own libpfm (PAPI bundles one) would
// bind its pfm_* calls to ours. The runtime dlopens it RTLD_LOCAL at start-up, only when a PEBS
// source is asked for (pfm_api_dlopen), and so does the launcher, for --check only (linked, it
// would be loaded and relocated at every launch); the tests use the linked library
// (pfm_api_linked, a separate object so the runtime never pulls it in). Start-up code only:
// libpfm4 allocates.
#pragma once


#include <cstddef>

namespace hpcrun {

struct PfmApi {
  int (*initialize)();
  int (*get_os_event_encoding)(const char* str, int dfl_plm, int os, void* arg);
  const char* (*strerror)(int code);
  int (*get_pmu_info)(int pmu, void* info);
};

// The table pebs_attr() uses; nullptr until one of the two below ran.
const PfmApi* pfm_api();
void pfm_api_set(const PfmApi* api);
// Uses the linked libpfm4 (tests). Defined in pfm_linked.cpp.
void pfm_api_use_linked();
// dlopens libpfm.so.4 (RTLD_LOCAL) and uses it; false with the reason in `err`.
bool pfm_api_dlopen(char* err, size_t errlen);

}  // namespace hpcrun
