// See source_probe.h.
#include "sources/source_probe.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace hpcrun {

static bool exists(const char* root, const char* rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  struct stat st;
  return stat(path, &st) == 0;
}

HardwareProbe probe_hardware(const char* root) {
  HardwareProbe hw;
  hw.cpu_pmu = exists(root, "cpu");
  // The load-latency PEBS event needs the core PMU's "ldlat" format field (Intel only).
  hw.pebs = hw.cpu_pmu && exists(root, "cpu/format/ldlat");
  hw.ibs_op = exists(root, "ibs_op/type");
  return hw;
}

SourceKind choose_source(SourceKind requested, const HardwareProbe& hw, char* why, size_t whylen) {
  const char* hwdesc = hw.pebs ? "PEBS load-latency sampling is present"
                      : hw.ibs_op ? "AMD IBS op sampling is present"
                                  : "no PEBS or IBS on this machine";
  switch (requested) {
    case SourceKind::Soft:
      snprintf(why, whylen, "soft: requested");
      return SourceKind::Soft;
    case SourceKind::PageFaults:  // software, present wherever perf_event is
      snprintf(why, whylen, "page-faults: requested");
      return SourceKind::PageFaults;
    case SourceKind::Auto:
      snprintf(why, whylen, "soft: %s%s", hwdesc,
               (hw.pebs || hw.ibs_op) ? ", but this version has no reader for it yet" : "");
      return SourceKind::Soft;
    case SourceKind::Pebs:
    case SourceKind::Ibs: {
      bool present = requested == SourceKind::Pebs ? hw.pebs : hw.ibs_op;
      snprintf(why, whylen, "%s; this version has no reader for %s records yet",
               present ? hwdesc : (requested == SourceKind::Pebs ? "no PEBS load-latency sampling on this machine"
                                                                 : "no AMD IBS op sampling on this machine"),
               requested == SourceKind::Pebs ? "PEBS" : "IBS");
      return SourceKind::Soft;
    }
  }
  return SourceKind::Soft;
}

}  // namespace hpcrun
