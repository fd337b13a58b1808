// The Intel PEBS memory sources' attributes where the kernel's sysfs is silent: `pebs-load`
// (load latency above a threshold) and `pebs-store` (precise stores) asked of libpfm4 by name,
// newest name first, for the CPU it runs on. event_plan.h takes the encodings from sysfs first
// (what perf mem does); this is its fallback, on this machine only. Start-up code: libpfm4
// allocates.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace hpcrun {

enum class PebsKind : uint8_t { Load, Store };

constexpr uint64_t kDefaultPebsPeriod = 10007;  // prime: no lock-step with loop trip counts
constexpr uint32_t kDefaultLdlat = 30;          // perf mem's default: misses L1 on most cores

// Fills a->type, config and config1 (ldlat, loads only) from libpfm4's tables of the running
// CPU, or writes why not into `err`.
bool pebs_attr_libpfm(PebsKind kind, uint32_t ldlat, perf_event_attr* a, char* err, size_t errlen);

// IP, TID, TIME, ADDR, CPU, WEIGHT_STRUCT, DATA_SRC, and PHYS_ADDR when asked.
uint64_t pebs_sample_type(bool phys_addr);

}  // namespace hpcrun
