// See pebs_attr.h.
#include "sources/pebs/pebs_attr.h"

#include <perfmon/pfmlib_perf_event.h>

#include <cstdio>
#include <cstring>

#include "sources/hw/pmu_type.h"
#include "sources/pebs/pfm_api.h"

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

// Hybrid parts (Alder Lake and later): the big cores take the Golden Cove encodings, the small
// ones Gracemont's (MEM_UOPS_RETIRED.LOAD_LATENCY is event 0xd0 umask 0x05); both count stores
// with event 0xd0 umask 0x82. ldlat is config1 on both, as their sysfs format says.
struct HybridEvents {
  const char* pmu;
  uint64_t load;
  uint64_t store;
};
const HybridEvents kHybrid[] = {{"cpu_core", 0x01cd, 0x82d0}, {"cpu_atom", 0x05d0, 0x82d0}};

bool encode_with_libpfm(const PebsRequest& req, uint32_t ldlat, perf_event_attr* a, char* err,
                        size_t errlen) {
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
  const bool load = req.kind == PebsKind::Load;
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

bool encode_hybrid(const PebsRequest& req, uint32_t ldlat, const char* root, perf_event_attr* a,
                   char* err, size_t errlen) {
  for (const HybridEvents& h : kHybrid) {
    if (strcmp(h.pmu, req.pmu) != 0) continue;
    int rc = read_pmu_type(root, h.pmu, &a->type);
    if (rc != 0) {
      snprintf(err, errlen, "cannot read %s/%s/type: %s", root, h.pmu, strerror(-rc));
      return false;
    }
    a->config = req.kind == PebsKind::Load ? h.load : h.store;
    a->config1 = req.kind == PebsKind::Load ? ldlat : 0;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    return true;
  }
  snprintf(err, errlen, "unknown PEBS PMU '%s' (expected cpu, cpu_core or cpu_atom)", req.pmu);
  return false;
}

}  // namespace

uint64_t pebs_sample_type(bool phys_addr) {
  return PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
         PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
         (phys_addr ? uint64_t(PERF_SAMPLE_PHYS_ADDR) : 0);
}

bool pebs_attr(const PebsRequest& req, const char* sysfs_root, perf_event_attr* a, char* err,
               size_t errlen) {
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  const uint32_t ldlat = req.ldlat ? req.ldlat : kDefaultLdlat;
  if (req.kind == PebsKind::Load && ldlat > kMaxLdlat) {
    snprintf(err, errlen, "ldlat=%u is above the largest threshold, %u cycles", ldlat, kMaxLdlat);
    return false;
  }
  const bool ok = strcmp(req.pmu, "cpu") == 0
                      ? encode_with_libpfm(req, ldlat, a, err, errlen)
                      : encode_hybrid(req, ldlat, sysfs_root, a, err, errlen);
  if (!ok) return false;
  a->sample_period = req.period ? req.period : kDefaultPebsPeriod;
  a->sample_type = pebs_sample_type(req.phys_addr);
  a->precise_ip = 3;
  a->disabled = 1;
  return true;
}

}  // namespace hpcrun
