// See source_probe.h. Everything here reads files with open/read into stack buffers and lists
// directories with getdents64: no malloc, since the runtime probes before the program's
// allocator can be trusted to be ours.
#include "hpcrun/probe/source_probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hpcrun/probe/pmu_sysfs.h"
#include "hpcrun/probe/perf_event.h"

namespace hpcrun {

namespace {

// Copies src into dst[len], truncating (snprintf("%s") would warn about the truncation).
void copy_text(char* dst, size_t len, const char* src) {
  size_t n = strnlen(src, len - 1);
  memcpy(dst, src, n);
  dst[n] = 0;
}

bool read_long(const char* root, const char* rel, long* out) {
  char buf[64];
  if (read_root_file(root, rel, buf, sizeof buf) <= 0) return false;
  char* end;
  long v = strtol(buf, &end, 0);
  if (end == buf) return false;
  *out = v;
  return true;
}

// Copies the trimmed value after "key<spaces>:" of the first line starting with key.
bool field(const char* text, const char* key, char* out, size_t len) {
  size_t klen = strlen(key);
  for (const char* line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : nullptr) {
    if (strncmp(line, key, klen) != 0) continue;
    const char* p = line + klen;
    while (*p == ' ' || *p == '\t') ++p;
    if (*p != ':') continue;
    ++p;
    while (*p == ' ') ++p;
    size_t n = strcspn(p, "\n");
    if (n >= len) n = len - 1;
    memcpy(out, p, n);
    out[n] = 0;
    return true;
  }
  return false;
}

bool has_word(const char* list, const char* word) {
  size_t wl = strlen(word);
  for (const char* p = list; (p = strstr(p, word)); p += wl)
    if ((p == list || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == 0 || p[wl] == '\n')) return true;
  return false;
}

void read_cpuinfo(const char* root, HardwareProbe* hw) {
  // The first processor's block holds all we need; its flags line is the longest (~1.5 KB).
  char text[16384];
  if (read_root_file(root, "proc/cpuinfo", text, sizeof text) <= 0) return;
  if (char* end = strstr(text, "\n\n")) end[1] = 0;
  char v[4096];
  if (field(text, "vendor_id", v, sizeof v)) {
    if (!strcmp(v, "GenuineIntel")) hw->vendor = CpuVendor::Intel;
    else if (!strcmp(v, "AuthenticAMD") || !strcmp(v, "HygonGenuine")) hw->vendor = CpuVendor::Amd;
  } else if (field(text, "CPU implementer", v, sizeof v)) {
    hw->vendor = CpuVendor::Arm;
    hw->family = int(strtol(v, nullptr, 0));
    if (field(text, "CPU part", v, sizeof v)) hw->model = int(strtol(v, nullptr, 0));
  }
  if (field(text, "cpu family", v, sizeof v)) hw->family = atoi(v);
  if (field(text, "model", v, sizeof v)) hw->model = atoi(v);
  if (field(text, "model name", v, sizeof v))
    copy_text(hw->model_name, sizeof hw->model_name, v);
  if (field(text, "flags", v, sizeof v)) hw->hypervisor = has_word(v, "hypervisor");
}

void read_caps(const char* root, HardwareProbe* hw) {
  char text[4096], v[64];
  if (read_root_file(root, "proc/self/status", text, sizeof text) <= 0) return;
  if (!field(text, "CapEff", v, sizeof v)) return;
  hw->cap_eff = strtoull(v, nullptr, 16);
  hw->caps_known = true;
}

// Every PMU directory, in the order the kernel lists them.
void list_pmus(const char* root, HardwareProbe* hw) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, pmu_base(root));
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buf[4096];
  long n;
  while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
    for (long off = 0; off < n;) {
      struct linux_dirent64 { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[1]; };
      auto* d = reinterpret_cast<linux_dirent64*>(buf + off);
      off += d->reclen;
      if (d->name[0] == '.' || hw->npmus == kMaxPmus) continue;
      // A copy may hold other devices beside the PMUs (sys/devices): a PMU has a type.
      if (pmu_type_at(root, d->name) < 0) continue;
      copy_text(hw->pmus[hw->npmus++], sizeof hw->pmus[0], d->name);
    }
  }
  close(fd);
  // Sorted, so --check reads the same on every run.
  for (int i = 1; i < hw->npmus; ++i)
    for (int j = i; j > 0 && strcmp(hw->pmus[j - 1], hw->pmus[j]) > 0; --j) {
      char t[32];
      memcpy(t, hw->pmus[j], sizeof t);
      memcpy(hw->pmus[j], hw->pmus[j - 1], sizeof t);
      memcpy(hw->pmus[j - 1], t, sizeof t);
    }
}

}  // namespace

HardwareProbe probe_hardware(const char* root) {
  HardwareProbe hw;
  char buf[64];
  if (read_root_file(root, "proc/sys/kernel/osrelease", buf, sizeof buf) > 0) {
    buf[strcspn(buf, "\n")] = 0;
    copy_text(hw.kernel, sizeof hw.kernel, buf);
  }
  long v;
  if (read_long(root, "proc/sys/kernel/perf_event_paranoid", &v)) hw.paranoid = int(v);
  if (read_long(root, "proc/sys/kernel/perf_event_mlock_kb", &v)) hw.mlock_kb = v;
  read_caps(root, &hw);
  read_cpuinfo(root, &hw);
  list_pmus(root, &hw);

  hw.cpu_type = pmu_type_at(root, "cpu");
  hw.cpu_core_type = pmu_type_at(root, "cpu_core");
  hw.cpu_atom_type = pmu_type_at(root, "cpu_atom");
  hw.ibs_op_type = pmu_type_at(root, "ibs_op");
  hw.ibs_fetch_type = pmu_type_at(root, "ibs_fetch");
  for (int i = 0; i < hw.npmus; ++i) {
    const char* p = hw.pmus[i];
    if (!strncmp(p, "arm_spe", 7) && hw.spe_type < 0) {
      hw.spe_type = pmu_type_at(root, p);
      copy_text(hw.spe_pmu, sizeof hw.spe_pmu, p);
    }
    if ((!strncmp(p, "armv8_", 6) || !strncmp(p, "armv9_", 6)) && !hw.arm_pmu[0])
      copy_text(hw.arm_pmu, sizeof hw.arm_pmu, p);
  }
  // On hybrid Intel parts the P-core PMU carries the load-latency event we use first.
  const char* core = hw.cpu_core_type >= 0 ? "cpu_core" : "cpu";
  char rel[256];
  snprintf(rel, sizeof rel, "%s/%s/caps/pmu_name", pmu_base(root), core);
  if (read_root_file(root, rel, buf, sizeof buf) > 0) {
    buf[strcspn(buf, "\n")] = 0;
    copy_text(hw.pmu_name, sizeof hw.pmu_name, buf);
  }
  snprintf(rel, sizeof rel, "%s/%s/caps/max_precise", pmu_base(root), core);
  if (read_long(root, rel, &v)) hw.max_precise = int(v);

  hw.is_this_machine = strcmp(root, "/") == 0;
  PlanRequest req;
  plan_pebs(root, PebsKind::Load, req, &hw.plan[kProbePebsLoad]);
  plan_pebs(root, PebsKind::Store, req, &hw.plan[kProbePebsStore]);
  plan_ibs_op(root, req, &hw.plan[kProbeIbsOp]);
  hw.cpu_pmu = hw.cpu_type >= 0 || hw.cpu_core_type >= 0;
  hw.pebs = hw.plan[kProbePebsLoad].n > 0;
  hw.ibs_op = hw.ibs_op_type >= 0;
  return hw;
}

bool probe_attr(const HardwareProbe& hw, ProbedSource s, perf_event_attr* out) {
  perf_event_attr a;
  switch (s) {
    case kProbeSoft:
      a = soft_clock_attr(1000000);
      break;
    case kProbePageFaults:
      memset(&a, 0, sizeof a);
      a.size = sizeof a;
      a.type = PERF_TYPE_SOFTWARE;
      a.config = PERF_COUNT_SW_PAGE_FAULTS;
      a.sample_period = 1;
      a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                      PERF_SAMPLE_CPU;
      a.disabled = 1;
      a.exclude_kernel = 1;
      a.exclude_hv = 1;
      break;
    case kProbeArmSpe:
      if (hw.spe_type < 0) return false;
      memset(&a, 0, sizeof a);
      a.size = sizeof a;
      a.type = uint32_t(hw.spe_type);
      a.sample_period = 4096;
      a.disabled = 1;
      a.exclude_kernel = 1;
      a.exclude_hv = 1;
      break;
    default:
      return false;  // the hardware sources open their plans
  }
  *out = a;
  return true;
}

void probe_opens(HardwareProbe* hw, bool allow_libpfm) {
  hw->opens_tried = true;
  for (int s = 0; s < kNumProbed; ++s) {
    OpenResult r;
    EventPlan& plan = hw->plan[s];
    const bool planned = s == kProbePebsLoad || s == kProbePebsStore || s == kProbeIbsOp;
    if (planned && plan.n == 0 && allow_libpfm && s != kProbeIbsOp && hw->cpu_pmu) {
      PlanRequest req;
      req.allow_libpfm = true;
      plan_pebs("/", s == kProbePebsLoad ? PebsKind::Load : PebsKind::Store, req, &plan);
    }
    if (planned && plan.n > 0) {
      r.tried = true;
      r.err = -probe_plan(&plan, &r.failed_event);
      for (int i = 0; i < plan.n && r.err == 0; ++i)
        if (plan.ev[i].sampling && s != kProbeIbsOp && int(plan.ev[i].attr.precise_ip) > r.precise_ip)
          r.precise_ip = int(plan.ev[i].attr.precise_ip);
    } else if (perf_event_attr a; !planned && probe_attr(*hw, ProbedSource(s), &a)) {
      r.tried = true;
      int fd = perf_open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
      if (fd >= 0) close(fd);
      r.err = fd >= 0 ? 0 : -fd;
    }
    hw->open[s] = r;
  }
  hw->pebs = hw->plan[kProbePebsLoad].n > 0;
}

}  // namespace hpcrun
