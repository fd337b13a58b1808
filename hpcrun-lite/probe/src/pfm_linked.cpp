// See pfm_api.h: the table over the linked libpfm4, for the launcher and the tests. Kept out of
// pfm_api.cpp so that the runtime, which only dlopens, never pulls libpfm4's symbols in.
#include <perfmon/pfmlib_perf_event.h>

#include "hpcrun/probe/pfm_api.h"

namespace hpcrun {

void pfm_api_use_linked() {
  static const PfmApi linked = {
      [] { return int(pfm_initialize()); },
      [](const char* s, int plm, int os, void* arg) {
        return int(pfm_get_os_event_encoding(s, plm, pfm_os_t(os), arg));
      },
      [](int code) { return pfm_strerror(code); },
      [](int pmu, void* info) {
        return int(pfm_get_pmu_info(pfm_pmu_t(pmu), static_cast<pfm_pmu_info_t*>(info)));
      },
  };
  pfm_api_set(&linked);
}

}  // namespace hpcrun
