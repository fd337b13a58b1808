// See precise_probe.h.
#include "sources/hw/precise_probe.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sources/perf_event.h"

namespace hpcrun {

namespace {

// The answers that mean "not with these attributes" rather than "not at all".
bool worth_retrying(int err) { return err == -EINVAL || err == -EOPNOTSUPP || err == -EACCES; }

// precise_ip from 3 down to min_precise; returns 0 or the last -errno.
int try_levels(perf_event_attr* a, int min_precise) {
  int err = -EINVAL;
  for (int level = 3; level >= min_precise; --level) {
    a->precise_ip = unsigned(level);
    int fd = perf_open(*a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
      close(fd);
      return 0;
    }
    err = fd;
    if (!worth_retrying(err)) return err;
  }
  return err;
}

}  // namespace

PreciseProbe probe_precise(perf_event_attr* a, int min_precise) {
  PreciseProbe p;
  p.error = try_levels(a, min_precise);
  if (p.error != 0 && worth_retrying(p.error) && (a->sample_type & PERF_SAMPLE_PHYS_ADDR)) {
    a->sample_type &= ~uint64_t(PERF_SAMPLE_PHYS_ADDR);
    p.dropped_phys = true;
    p.error = try_levels(a, min_precise);
  }
  if (p.error != 0 && worth_retrying(p.error) && (a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) {
    a->sample_type = (a->sample_type & ~uint64_t(PERF_SAMPLE_WEIGHT_STRUCT)) | PERF_SAMPLE_WEIGHT;
    p.weight_fallback = true;
    p.error = try_levels(a, min_precise);
  }
  return p;
}

void describe_probe(const perf_event_attr& a, const PreciseProbe& p, char* buf, size_t len) {
  if (p.error != 0) {
    snprintf(buf, len, "perf_event_open refused type=%u config=%#llx at every precise level: %s",
             a.type, (unsigned long long)a.config, strerror(-p.error));
    return;
  }
  snprintf(buf, len, "type=%u config=%#llx precise_ip=%u%s%s", a.type,
           (unsigned long long)a.config, a.precise_ip,
           p.dropped_phys ? ", without physical addresses" : "",
           p.weight_fallback ? ", u64 weight (no weight struct)" : "");
}

}  // namespace hpcrun
