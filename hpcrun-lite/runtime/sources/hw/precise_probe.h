// Finds the attributes the kernel accepts for a hardware sampling event, by opening it through
// perf_open() (so tests drive it with the hook): precise_ip from 3 down to the source's minimum,
// then, if nothing opened, without PHYS_ADDR (it needs privileges), then with the u64 WEIGHT in
// place of WEIGHT_STRUCT (kernels before 5.12). Start-up code, not signal-safe.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>

namespace hpcrun {

struct PreciseProbe {
  int error = 0;          // 0, or the -errno of the last attempt when nothing opened
  bool dropped_phys = false;
  bool weight_fallback = false;
};

// Tries `attr` on the calling thread (pid 0, any CPU) and closes what opened. On success `attr`
// holds the accepted precise_ip and sample_type. Errors other than EINVAL/EOPNOTSUPP/EACCES
// (ENOENT: no such event here, EMFILE, ...) stop the search at once: retrying cannot help.
PreciseProbe probe_precise(perf_event_attr* attr, int min_precise);

// One line that says what was chosen, or why nothing was, for -v and --check.
void describe_probe(const perf_event_attr& attr, const PreciseProbe& p, char* buf, size_t len);

}  // namespace hpcrun
