// Attributes of the Intel PEBS memory sources: `pebs-load` (load latency above a threshold,
// with the access's data address, latency and data source) and `pebs-store` (precise stores
// with their data address). The event differs per core generation; libpfm4 knows which one the
// running CPU has, so the event is asked of libpfm4 by name, the newest name first. Hybrid
// parts (cpu_core and cpu_atom PMUs, each with its own type in sysfs) are encoded from a small
// table, since libpfm4 4.13 has no hybrid models. Start-up code: libpfm4 allocates.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace hpcrun {

enum class PebsKind : uint8_t { Load, Store };

struct PebsRequest {
  PebsKind kind = PebsKind::Load;
  uint64_t period = 0;       // 0: kDefaultPebsPeriod
  uint32_t ldlat = 0;        // loads only; 0: kDefaultLdlat cycles
  const char* pmu = "cpu";   // "cpu", or on hybrid parts "cpu_core" / "cpu_atom"
  bool phys_addr = true;     // ask for PHYS_ADDR (dropped by probe_precise where not allowed)
};

constexpr uint64_t kDefaultPebsPeriod = 10007;  // prime: no lock-step with loop trip counts
constexpr uint32_t kDefaultLdlat = 30;          // perf mem's default: misses L1 on most cores
constexpr uint32_t kMaxLdlat = 0xffff;          // the ldlat format field is config1:0-15

// Fills `attr` (precise_ip 3, to be lowered by probe_precise) or writes why not into `err` and
// returns false. `sysfs_root` is read for hybrid PMU types.
bool pebs_attr(const PebsRequest& req, const char* sysfs_root, perf_event_attr* attr, char* err,
               size_t errlen);

// IP, TID, TIME, ADDR, CPU, WEIGHT_STRUCT, DATA_SRC, and PHYS_ADDR when asked.
uint64_t pebs_sample_type(bool phys_addr);

}  // namespace hpcrun
