// See pebs_attr.h.
#include "hpcrun/probe/pebs_attr.h"

#include <perfmon/pfmlib_perf_event.h>

#include <cstdio>
#include <cstring>

#include "hpcrun/probe/pfm_api.h"

namespace hpcrun {

namespace {

// Newest name first; libpfm4 rejects a name its model does not have. Loads: Haswell and later
// (MEM_TRANS_RETIRED:LOAD_LATENCY), Sandy/Ivy Bridge (the same event under its older name),
// Nehalem/Westmere (MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD). Stores: Skylake and later,
// Sandy/Ivy Bridge's precise-store facility, then Haswell/Broadwell's all-stores uop event
// (Sandy Bridge has it too, but without the data address, hence the order).
const char* const kLoadEvents[] = {"MEM_TRANS_RETIRED:LOAD_LATENCY",
                                   "MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD",
                                   "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD"};
const char* const kStoreEvents[] = {"MEM_INST_RETIRED:ALL_STORES",
                                    "MEM_TRANS_RETIRED:PRECISE_STORE",
                                    "MEM_UOPS_RETIRED:ALL_STORES"};

}  // namespace

bool pebs_attr_libpfm(PebsKind kind, uint32_t ldlat, perf_event_attr* a, char* err, size_t errlen) {
  const PfmApi* pfm = pfm_api();
  if (!pfm) {
    snprintf(err, errlen, "libpfm4 is not loaded");
    return false;
  }
  int rc = pfm->initialize();
  if (rc != PFM_SUCCESS) {
    snprintf(err, errlen, "libpfm4 could not start: %s", pfm->strerror(rc));
    return false;
  }
  const bool load = kind == PebsKind::Load;
  const char* const* names = load ? kLoadEvents : kStoreEvents;
  const size_t n = load ? sizeof kLoadEvents / sizeof *kLoadEvents
                        : sizeof kStoreEvents / sizeof *kStoreEvents;
  for (size_t i = 0; i < n; ++i) {
    char name[128];
    if (load)
      snprintf(name, sizeof name, "%s:ldlat=%u", names[i], ldlat);
    else
      snprintf(name, sizeof name, "%s", names[i]);
    perf_event_attr enc;
    memset(&enc, 0, sizeof enc);
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = &enc;
    arg.size = sizeof arg;
    // PFM_PLM3: user level only, which is what perf_event_paranoid=2 allows.
    if (pfm->get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
      continue;
    a->type = enc.type;
    a->config = enc.config;
    a->config1 = enc.config1;
    a->exclude_kernel = enc.exclude_kernel;
    a->exclude_hv = enc.exclude_hv;
    return true;
  }
  pfm_pmu_info_t info;
  memset(&info, 0, sizeof info);
  info.size = sizeof info;
  const char* model = "unknown";
  // pfm_for_all_pmus increments an enum, which C++ refuses.
  for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; ++pmu) {
    // The first present core PMU names the model (perf and perf_raw are always present).
    if (pfm->get_pmu_info(pmu, &info) == PFM_SUCCESS && info.is_present &&
        info.type == PFM_PMU_TYPE_CORE) {
      model = info.name;
      break;
    }
  }
  snprintf(err, errlen, "libpfm4 knows no %s event on this CPU (model %s)",
           load ? "PEBS load-latency" : "PEBS precise-store", model);
  return false;
}

uint64_t pebs_sample_type(bool phys_addr) {
  return PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
         PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
         (phys_addr ? uint64_t(PERF_SAMPLE_PHYS_ADDR) : 0);
}

}  // namespace hpcrun
