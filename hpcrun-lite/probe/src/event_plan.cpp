// See event_plan.h.
#include "hpcrun/probe/event_plan.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "hpcrun/probe/pmu_sysfs.h"
#include "hpcrun/probe/ibs_attr.h"
#include "hpcrun/probe/perf_event.h"

namespace hpcrun {

namespace {

// The x86 core PMUs, as perf names them: one on most parts, two on hybrid ones (the P-cores'
// first: their PMU carries the aux event).
const char* const kCorePmus[] = {"cpu", "cpu_core", "cpu_atom"};

void copy_name(char* dst, size_t len, const char* src) {
  size_t n = strnlen(src, len - 1);
  memcpy(dst, src, n);
  dst[n] = 0;
}

void unavailable(EventPlan* plan, const char* fmt, const char* a = "", const char* b = "") {
  plan->n = 0;
  snprintf(plan->reason, sizeof plan->reason, fmt, a, b);
}

// The highest precise level the PMU says it has (caps/max_precise), else 3.
unsigned max_precise(const char* root, const char* pmu) {
  char buf[16];
  if (pmu_read(root, pmu, "caps/max_precise", buf, sizeof buf) && buf[0] >= '0' && buf[0] <= '3' &&
      buf[1] == 0)
    return unsigned(buf[0] - '0');
  return 3;
}

PlannedEvent* add(EventPlan* plan, const char* pmu, int type) {
  PlannedEvent& e = plan->ev[plan->n];
  e = PlannedEvent{};
  copy_name(e.pmu, sizeof e.pmu, pmu);
  e.attr.size = sizeof e.attr;
  e.attr.type = uint32_t(type);
  e.leader = plan->n++;
  return &e;
}

void make_sampling(PlannedEvent* e, uint64_t period, unsigned precise) {
  e->sampling = true;
  e->signals = true;
  e->attr.sample_period = period;
  e->attr.sample_type = pebs_sample_type(false);
  e->attr.precise_ip = precise;
  e->attr.exclude_kernel = 1;  // user space only: what perf_event_paranoid=2 allows
  e->attr.exclude_hv = 1;
  e->attr.disabled = 1;
}

// The events of one core PMU that publishes the source's event; false with the reason.
bool plan_core_pmu(const char* root, const char* pmu, PebsKind kind, uint32_t ldlat, uint64_t period,
                   EventPlan* plan, char* err, size_t errlen) {
  const int type = pmu_type_at(root, pmu);
  const unsigned precise = max_precise(root, pmu);
  char ldlat_term[32];
  snprintf(ldlat_term, sizeof ldlat_term, "ldlat=%u", ldlat);
  if (kind == PebsKind::Load && pmu_exists(root, pmu, "events/mem-loads-aux")) {
    if (plan->n + 2 > kMaxPlannedEvents) return false;
    PlannedEvent* aux = add(plan, pmu, type);
    if (!pmu_encode_event(root, pmu, "mem-loads-aux", nullptr, &aux->attr, err, errlen)) return false;
    // Counting only, and it starts the group: the members are enabled with it.
    aux->attr.exclude_kernel = 1;
    aux->attr.exclude_hv = 1;
    aux->attr.disabled = 1;
    const int leader = aux->leader;
    PlannedEvent* load = add(plan, pmu, type);
    if (!pmu_encode_event(root, pmu, "mem-loads", ldlat_term, &load->attr, err, errlen)) return false;
    make_sampling(load, period, precise);
    load->attr.disabled = 0;  // enabled with its leader
    load->leader = leader;
    return true;
  }
  if (plan->n + 1 > kMaxPlannedEvents) return false;
  PlannedEvent* e = add(plan, pmu, type);
  const bool load = kind == PebsKind::Load;
  if (!pmu_encode_event(root, pmu, load ? "mem-loads" : "mem-stores", load ? ldlat_term : nullptr,
                        &e->attr, err, errlen))
    return false;
  make_sampling(e, period, precise);
  return true;
}

}  // namespace

uint64_t ibs_op_sample_type() {
  return PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW |
         PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT;
}

bool plan_pebs(const char* root, PebsKind kind, const PlanRequest& req, EventPlan* plan) {
  *plan = EventPlan{};
  const uint32_t ldlat = req.ldlat ? req.ldlat : kDefaultLdlat;
  const uint64_t period = req.period ? req.period : kDefaultPebsPeriod;
  const char* event = kind == PebsKind::Load ? "mem-loads" : "mem-stores";
  char rel[64];
  snprintf(rel, sizeof rel, "events/%s", event);
  bool core = false;
  for (const char* pmu : kCorePmus) {
    if (pmu_type_at(root, pmu) < 0) continue;
    core = true;
    if (!pmu_exists(root, pmu, rel)) continue;
    char err[200];
    if (!plan_core_pmu(root, pmu, kind, ldlat, period, plan, err, sizeof err)) {
      unavailable(plan, "%s", err);
      return false;
    }
  }
  if (plan->n > 0) {
    copy_name(plan->origin, sizeof plan->origin, "sysfs");
    return true;
  }
  // Sysfs is silent: the kernel knows no such event for this core. libpfm4 may, on this
  // machine only (its tables describe the CPU it runs on).
  if (core && req.allow_libpfm && pmu_type_at(root, "cpu") >= 0) {
    char err[200];
    PlannedEvent* e = add(plan, "cpu", pmu_type_at(root, "cpu"));
    if (pebs_attr_libpfm(kind, ldlat, &e->attr, err, sizeof err)) {
      make_sampling(e, period, 3);
      copy_name(plan->origin, sizeof plan->origin, "libpfm4");
      return true;
    }
    unavailable(plan, "the kernel publishes no %s for this core, and %s", event, err);
    return false;
  }
  if (!core)
    unavailable(plan, "no x86 core PMU (no cpu, cpu_core or cpu_atom under "
                      "/sys/bus/event_source/devices)");
  else
    unavailable(plan, "the core PMU publishes no events/%s: no PEBS %s here (the kernel gives "
                      "this CPU none, or its virtual PMU has no PEBS)", event,
                kind == PebsKind::Load ? "load latency" : "stores");
  return false;
}

bool plan_ibs_op(const char* root, const PlanRequest& req, EventPlan* plan) {
  *plan = EventPlan{};
  const int type = pmu_type_at(root, "ibs_op");
  if (type < 0) {
    unavailable(plan, "no ibs_op PMU (AMD IBS) under /sys/bus/event_source/devices");
    return false;
  }
  const uint64_t period = req.period ? req.period : kDefaultIbsPeriod;
  if (period < kMinIbsPeriod || period > kMaxIbsPeriod) {
    char p[32];
    snprintf(p, sizeof p, "%llu", (unsigned long long)period);
    unavailable(plan, "ibs-op period %s is outside 16..%s", p, "134217712");
    return false;
  }
  PlannedEvent* e = add(plan, "ibs_op", type);
  e->sampling = true;
  e->signals = true;
  // IbsOpMaxCnt counts in units of 16: the driver takes the period in sample_period, rounded down.
  e->attr.sample_period = period & ~uint64_t(0xf);
  e->attr.sample_type = ibs_op_sample_type();
  e->attr.disabled = 1;
  char err[200];
  // Count dispatched ops rather than cycles, so that every op (every memory access) has the same
  // chance to be tagged; a kernel without the field counts cycles.
  if (pmu_exists(root, "ibs_op", "format/cnt_ctl") &&
      !pmu_encode(root, "ibs_op", "cnt_ctl=1", nullptr, &e->attr, err, sizeof err)) {
    unavailable(plan, "%s", err);
    return false;
  }
  if (req.l3miss) {
    if (!pmu_exists(root, "ibs_op", "format/l3missonly")) {
      unavailable(plan, "ibs_op has no format/l3missonly (Zen 4 and later, Linux 6.2)");
      return false;
    }
    char terms[64];
    snprintf(terms, sizeof terms, "cnt_ctl=%d,l3missonly=1",
             pmu_exists(root, "ibs_op", "format/cnt_ctl") ? 1 : 0);
    if (!pmu_encode(root, "ibs_op", terms, nullptr, &e->attr, err, sizeof err)) {
      unavailable(plan, "%s", err);
      return false;
    }
  }
  // Before Linux 6.14 the ibs_op PMU refuses every exclude_* bit: kernel samples come too (and
  // are dropped when read), and opening needs perf_event_paranoid <= 1 or CAP_PERFMON. With
  // swfilt the driver drops them itself and user-only sampling is allowed.
  if (pmu_exists(root, "ibs_op", "format/swfilt")) {
    perf_event_attr f = e->attr;
    if (!pmu_encode(root, "ibs_op", "swfilt=1", nullptr, &f, err, sizeof err)) {
      unavailable(plan, "%s", err);
      return false;
    }
    e->attr.config2 |= f.config2;
    e->attr.config1 |= f.config1;
    e->attr.config |= f.config;
    e->attr.exclude_kernel = 1;
    e->attr.exclude_hv = 1;
  }
  copy_name(plan->origin, sizeof plan->origin, "sysfs");
  return true;
}

bool plan_for_kind(const char* root, SourceKind kind, const PlanRequest& req, EventPlan* plan) {
  switch (kind) {
    case SourceKind::Pebs: return plan_pebs(root, PebsKind::Load, req, plan);
    case SourceKind::PebsStore: return plan_pebs(root, PebsKind::Store, req, plan);
    case SourceKind::Ibs: return plan_ibs_op(root, req, plan);
    default:
      *plan = EventPlan{};
      unavailable(plan, "%s is not a hardware source", source_name(kind));
      return false;
  }
}

namespace {

bool worth_retrying(int err) { return err == -EINVAL || err == -EOPNOTSUPP || err == -EACCES; }

void close_all(int* fds, int n) {
  for (int i = 0; i < n; ++i)
    if (fds[i] >= 0) close(fds[i]);
}

// Opens every event of the plan, each sampling one from its precise level `start[i]` down to 1.
int open_all(EventPlan* plan, const unsigned* start, int* failed) {
  int fds[kMaxPlannedEvents];
  for (int i = 0; i < plan->n; ++i) fds[i] = -1;
  for (int i = 0; i < plan->n; ++i) {
    PlannedEvent& e = plan->ev[i];
    const int group = e.leader == i ? -1 : fds[e.leader];
    int fd = -EINVAL;
    for (int level = int(start[i]); level >= (start[i] ? 1 : 0); --level) {
      e.attr.precise_ip = unsigned(level);
      fd = perf_open(e.attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
      if (fd >= 0 || !worth_retrying(fd)) break;
    }
    if (fd < 0) {
      e.attr.precise_ip = start[i];
      close_all(fds, i);
      *failed = i;
      return fd;
    }
    fds[i] = fd;
  }
  close_all(fds, plan->n);
  return 0;
}

}  // namespace

int probe_plan(EventPlan* plan, int* failed) {
  *failed = -1;
  unsigned start[kMaxPlannedEvents];
  for (int i = 0; i < plan->n; ++i) start[i] = plan->ev[i].sampling ? plan->ev[i].attr.precise_ip : 0;
  int err = open_all(plan, start, failed);
  // Then without what needs privileges or a newer kernel, on every sampling event alike.
  const uint64_t drops[][2] = {{PERF_SAMPLE_PHYS_ADDR, 0},
                               {PERF_SAMPLE_WEIGHT_STRUCT, PERF_SAMPLE_WEIGHT}};
  for (const auto& d : drops) {
    if (err == 0 || !worth_retrying(err)) break;
    bool changed = false;
    for (int i = 0; i < plan->n; ++i) {
      perf_event_attr& a = plan->ev[i].attr;
      if (plan->ev[i].sampling && (a.sample_type & d[0])) {
        a.sample_type = (a.sample_type & ~d[0]) | d[1];
        changed = true;
      }
    }
    if (changed) err = open_all(plan, start, failed);
  }
  return err;
}

void describe_plan(const EventPlan& plan, char* buf, size_t len) {
  if (plan.n == 0) {
    snprintf(buf, len, "%s", plan.reason);
    return;
  }
  size_t at = 0;
  auto put = [&](const char* fmt, auto... args) {
    if (at < len) at += size_t(snprintf(buf + at, len - at, fmt, args...));
  };
  for (int i = 0; i < plan.n; ++i) {
    const PlannedEvent& e = plan.ev[i];
    const bool opens_group = e.leader == i && i + 1 < plan.n && plan.ev[i + 1].leader == i;
    if (e.leader == i) put("%s%s type %u %s", i ? "; " : "", e.pmu, e.attr.type, opens_group ? "{" : "");
    else put(", ");
    put("config %#llx", (unsigned long long)e.attr.config);
    if (e.attr.config1) put(" config1 %#llx", (unsigned long long)e.attr.config1);
    if (e.attr.config2) put(" config2 %#llx", (unsigned long long)e.attr.config2);
    if (e.sampling) put(" precise_ip %u", e.attr.precise_ip);
    else put(" (counts)");
    const bool closes_group = e.leader != i && (i + 1 == plan.n || plan.ev[i + 1].leader != e.leader);
    if (closes_group) put("}");
  }
  put(" (from %s)", plan.origin);
}

}  // namespace hpcrun
