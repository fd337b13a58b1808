// The events each hardware source opens on real machines' sysfs trees (tests/data/machines, see
// its README for where each file's content comes from), checked against what `perf mem` opens on
// those machines, as perf's own source decides it:
//  - tools/perf/arch/x86/util/mem-events.c: loads are "%s/mem-loads,ldlat=%u/P" on every core
//    PMU that has the event, "{%s/mem-loads-aux/,%s/mem-loads,ldlat=%u/}:P" where the PMU lists
//    mem-loads-aux; stores "%s/mem-stores/P"; AMD "ibs_op//". perf_mem_events__loads_ldlat = 30.
//  - the encodings are the kernel's sysfs strings (arch/x86/events/intel/core.c): on Skylake and
//    Ice Lake servers mem-loads "event=0xcd,umask=0x1,ldlat=3" and mem-stores
//    "event=0xd0,umask=0x82"; on Sapphire Rapids mem-stores "event=0xcd,umask=0x2" and
//    mem-loads-aux "event=0x03,umask=0x82"; on Alder Lake the same for cpu_core and
//    "event=0xd0,umask=0x5,ldlat=3" / "event=0xd0,umask=0x6" for cpu_atom.
//  - perf evlist -v after `perf mem record` on an Alder Lake machine (posted to linux-kernel by
//    Arnaldo Carvalho de Melo): cpu_atom/mem-loads config 0x5d0 type 10, cpu_atom/mem-stores
//    0x6d0, cpu_core/mem-loads-aux 0x8203 type 4 leading cpu_core/mem-loads 0x1cd,
//    cpu_core/mem-stores 0x2cd. The expected values below are those numbers, not our code's.
#include "hpcrun/probe/event_plan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "hpcrun/probe/perf_event.h"

using namespace hpcrun;

namespace {

const std::string kMachines = HPCL_MACHINES_DIR;

std::string machine(const char* name) { return kMachines + "/" + name; }

struct Expected {
  const char* pmu;
  uint32_t type;
  uint64_t config;
  uint64_t config1;
  int leader;
  bool sampling;
};

void expect_plan(const EventPlan& p, std::initializer_list<Expected> want) {
  ASSERT_EQ(p.n, int(want.size())) << p.reason;
  int i = 0;
  for (const Expected& w : want) {
    SCOPED_TRACE("event " + std::to_string(i));
    const PlannedEvent& e = p.ev[i++];
    EXPECT_STREQ(e.pmu, w.pmu);
    EXPECT_EQ(e.attr.type, w.type);
    EXPECT_EQ(e.attr.config, w.config);
    EXPECT_EQ(e.attr.config1, w.config1);
    EXPECT_EQ(e.leader, w.leader);
    EXPECT_EQ(e.sampling, w.sampling);
    if (w.sampling) {
      // What perf mem asks of every load and store event, and user space only.
      EXPECT_TRUE(e.attr.sample_type & PERF_SAMPLE_ADDR);
      EXPECT_TRUE(e.attr.sample_type & PERF_SAMPLE_DATA_SRC);
      EXPECT_TRUE(e.attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
      EXPECT_EQ(e.attr.precise_ip, 3u);  // caps/max_precise; the kernel lowers it (probe_plan)
      EXPECT_TRUE(e.attr.exclude_kernel);
    }
  }
}

TEST(EventPlan, SkylakeXLoadEventAlone) {
  EventPlan p;
  ASSERT_TRUE(plan_pebs(machine("skylake-x").c_str(), PebsKind::Load, PlanRequest{}, &p)) << p.reason;
  expect_plan(p, {{"cpu", 4, 0x1cd, 30, 0, true}});
  EXPECT_STREQ(p.origin, "sysfs");
  ASSERT_TRUE(plan_pebs(machine("skylake-x").c_str(), PebsKind::Store, PlanRequest{}, &p));
  expect_plan(p, {{"cpu", 4, 0x82d0, 0, 0, true}});
}

TEST(EventPlan, IceLakeServerLoadEventAlone) {
  EventPlan p;
  PlanRequest req;
  req.ldlat = 64;
  ASSERT_TRUE(plan_pebs(machine("icelake-x").c_str(), PebsKind::Load, req, &p)) << p.reason;
  expect_plan(p, {{"cpu", 4, 0x1cd, 64, 0, true}});
  ASSERT_TRUE(plan_pebs(machine("icelake-x").c_str(), PebsKind::Store, req, &p));
  expect_plan(p, {{"cpu", 4, 0x82d0, 0, 0, true}});
}

TEST(EventPlan, SapphireRapidsLoadsInTheAuxGroupStoresFromSysfs) {
  EventPlan p;
  ASSERT_TRUE(plan_pebs(machine("sapphire-rapids").c_str(), PebsKind::Load, PlanRequest{}, &p));
  expect_plan(p, {{"cpu", 4, 0x8203, 0, 0, false}, {"cpu", 4, 0x1cd, 30, 0, true}});
  // The leader only counts and starts the group; its member is enabled with it.
  EXPECT_EQ(p.ev[0].attr.sample_period, 0u);
  EXPECT_EQ(p.ev[0].attr.disabled, 1u);
  EXPECT_EQ(p.ev[1].attr.disabled, 0u);
  ASSERT_TRUE(plan_pebs(machine("sapphire-rapids").c_str(), PebsKind::Store, PlanRequest{}, &p));
  // mem-stores is 0x2cd here (with a store latency), not libpfm4's ALL_STORES 0x82d0.
  expect_plan(p, {{"cpu", 4, 0x2cd, 0, 0, true}});
}

TEST(EventPlan, AlderLakeSamplesOnBothCoreTypes) {
  EventPlan p;
  ASSERT_TRUE(plan_pebs(machine("alderlake").c_str(), PebsKind::Load, PlanRequest{}, &p));
  expect_plan(p, {{"cpu_core", 4, 0x8203, 0, 0, false},
                  {"cpu_core", 4, 0x1cd, 30, 0, true},
                  {"cpu_atom", 10, 0x5d0, 30, 2, true}});
  ASSERT_TRUE(plan_pebs(machine("alderlake").c_str(), PebsKind::Store, PlanRequest{}, &p));
  expect_plan(p, {{"cpu_core", 4, 0x2cd, 0, 0, true}, {"cpu_atom", 10, 0x6d0, 0, 1, true}});
}

TEST(EventPlan, ThresholdMustFitTheLdlatField) {
  EventPlan p;
  PlanRequest req;
  req.ldlat = 70000;  // format/ldlat is config1:0-15
  EXPECT_FALSE(plan_pebs(machine("skylake-x").c_str(), PebsKind::Load, req, &p));
  EXPECT_NE(std::string(p.reason).find("ldlat=70000 does not fit"), std::string::npos) << p.reason;
}

TEST(EventPlan, Zen3IbsOpCountsOps) {
  EventPlan p;
  ASSERT_TRUE(plan_ibs_op(machine("zen3").c_str(), PlanRequest{}, &p)) << p.reason;
  ASSERT_EQ(p.n, 1);
  const perf_event_attr& a = p.ev[0].attr;
  EXPECT_STREQ(p.ev[0].pmu, "ibs_op");
  EXPECT_EQ(a.type, 12u);               // ibs_op/type of that tree
  EXPECT_EQ(a.config, 1ull << 19);      // cnt_ctl, amd/ibs.c: "config:19"
  EXPECT_EQ(a.sample_period, 0x10000u);
  EXPECT_TRUE(a.sample_type & PERF_SAMPLE_RAW);
  // Before Linux 6.14 the driver refuses exclude_* (PERF_PMU_CAP_NO_EXCLUDE).
  EXPECT_FALSE(a.exclude_kernel);
  EXPECT_FALSE(plan_pebs(machine("zen3").c_str(), PebsKind::Load, PlanRequest{}, &p));
  EXPECT_NE(std::string(p.reason).find("no events/mem-loads"), std::string::npos) << p.reason;
  PlanRequest l3;
  l3.l3miss = true;  // Zen 3 has no l3missonly field
  EXPECT_FALSE(plan_ibs_op(machine("zen3").c_str(), l3, &p));
}

TEST(EventPlan, Zen4IbsOpRawAndL3MissOnly) {
  EventPlan p;
  ASSERT_TRUE(plan_ibs_op(machine("zen4").c_str(), PlanRequest{}, &p)) << p.reason;
  EXPECT_EQ(p.ev[0].attr.config, 1ull << 19);
  EXPECT_TRUE(p.ev[0].attr.sample_type & PERF_SAMPLE_RAW);
  PlanRequest req;
  req.l3miss = true;
  req.period = 0x12345;  // rounded down to 16: IbsOpMaxCnt counts in units of 16
  ASSERT_TRUE(plan_ibs_op(machine("zen4").c_str(), req, &p)) << p.reason;
  EXPECT_EQ(p.ev[0].attr.config, 1ull << 19 | 1ull << 16);  // l3missonly: "config:16"
  EXPECT_EQ(p.ev[0].attr.sample_period, 0x12340u);
  req.period = 8;
  EXPECT_FALSE(plan_ibs_op(machine("zen4").c_str(), req, &p));
}

TEST(EventPlan, IbsWithSwfiltExcludesTheKernel) {
  // Linux 6.14 adds ibs_op/format/swfilt ("config2:0"): perf mem then opens ibs_op/swfilt=1/
  // and user-only sampling is allowed.
  char tmpl[] = "/tmp/hpcl-zen4-XXXXXX";
  std::string root = mkdtemp(tmpl);
  ASSERT_EQ(std::system(("cp -a '" + machine("zen4") + "/.' '" + root + "'").c_str()), 0);
  FILE* f = fopen((root + "/sys/devices/ibs_op/format/swfilt").c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("config2:0\n", f);
  fclose(f);
  EventPlan p;
  ASSERT_TRUE(plan_ibs_op(root.c_str(), PlanRequest{}, &p)) << p.reason;
  EXPECT_EQ(p.ev[0].attr.config2, 1u);
  EXPECT_TRUE(p.ev[0].attr.exclude_kernel);
  EXPECT_EQ(p.ev[0].attr.config, 1ull << 19);
  std::system(("rm -rf " + root).c_str());
}

TEST(EventPlan, VmWithoutPmuHasNoHardwareSource) {
  EventPlan p;
  EXPECT_FALSE(plan_pebs(machine("vm-no-pmu").c_str(), PebsKind::Load, PlanRequest{}, &p));
  EXPECT_NE(std::string(p.reason).find("no x86 core PMU"), std::string::npos) << p.reason;
  EXPECT_FALSE(plan_ibs_op(machine("vm-no-pmu").c_str(), PlanRequest{}, &p));
  EXPECT_NE(std::string(p.reason).find("no ibs_op PMU"), std::string::npos) << p.reason;
}

// The kernel, played by the perf_open hook: precise levels up to `max_precise`, PHYS_ADDR and
// WEIGHT_STRUCT refusals, and Sapphire Rapids' rule (intel/core.c, intel_pmu_hw_config): a
// load-latency event (0x1cd) with DATA_SRC whose group has no mem-loads-aux event (0x8203) gets
// ENODATA.
struct FakeKernel {
  int max_precise = 3;
  bool phys_refused = false, weight_struct_refused = false, aux_rule = false;
  int calls = 0;
  uint64_t config_of[4096] = {};
} g_k;

int fake_open(const perf_event_attr& a, pid_t, int, int group_fd, unsigned long) {
  ++g_k.calls;
  if (g_k.phys_refused && (a.sample_type & PERF_SAMPLE_PHYS_ADDR)) return -EACCES;
  if (g_k.weight_struct_refused && (a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) return -EINVAL;
  if (int(a.precise_ip) > g_k.max_precise) return -EOPNOTSUPP;
  if (g_k.aux_rule && (a.config & 0xffff) == 0x1cd && (a.sample_type & PERF_SAMPLE_DATA_SRC) &&
      (group_fd < 0 || (g_k.config_of[group_fd] & 0xffff) != 0x8203))
    return -ENODATA;
  int fd = dup(0);
  if (fd >= 0 && fd < 4096) g_k.config_of[fd] = a.config;
  return fd;
}

struct Hook {
  explicit Hook(FakeKernel k) {
    g_k = k;
    set_perf_open_hook(fake_open);
  }
  ~Hook() { set_perf_open_hook(nullptr); }
};

TEST(ProbePlan, TheAuxGroupOpensWhereTheLoneLoadEventIsRefused) {
  FakeKernel k;
  k.aux_rule = true;
  k.max_precise = 2;
  Hook hook(k);
  EventPlan p;
  ASSERT_TRUE(plan_pebs(machine("sapphire-rapids").c_str(), PebsKind::Load, PlanRequest{}, &p));
  int failed = -1;
  EXPECT_EQ(probe_plan(&p, &failed), 0);
  EXPECT_EQ(p.ev[1].attr.precise_ip, 2u);  // 3 refused, 2 taken
  EXPECT_EQ(p.ev[0].attr.precise_ip, 0u);  // the counting leader is not precise
  // The same load event alone, as the runtime opened it before: refused, and said so.
  EventPlan lone;
  ASSERT_TRUE(plan_pebs(machine("skylake-x").c_str(), PebsKind::Load, PlanRequest{}, &lone));
  EXPECT_EQ(probe_plan(&lone, &failed), -ENODATA);
  EXPECT_EQ(failed, 0);
}

TEST(ProbePlan, DropsPhysAddrThenWeightStruct) {
  EventPlan p;
  ASSERT_TRUE(plan_pebs(machine("skylake-x").c_str(), PebsKind::Load, PlanRequest{}, &p));
  p.ev[0].attr.sample_type |= PERF_SAMPLE_PHYS_ADDR;
  FakeKernel k;
  k.phys_refused = true;
  k.weight_struct_refused = true;
  Hook hook(k);
  int failed = -1;
  EXPECT_EQ(probe_plan(&p, &failed), 0);
  EXPECT_FALSE(p.ev[0].attr.sample_type & PERF_SAMPLE_PHYS_ADDR);
  EXPECT_FALSE(p.ev[0].attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
  EXPECT_TRUE(p.ev[0].attr.sample_type & PERF_SAMPLE_WEIGHT);
  EXPECT_EQ(p.ev[0].attr.precise_ip, 3u);
}

TEST(ProbePlan, NothingAcceptedNamesTheError) {
  EventPlan p;
  ASSERT_TRUE(plan_pebs(machine("alderlake").c_str(), PebsKind::Store, PlanRequest{}, &p));
  FakeKernel k;
  k.max_precise = 0;  // refuses every precise level
  Hook hook(k);
  int failed = -1;
  EXPECT_EQ(probe_plan(&p, &failed), -EOPNOTSUPP);
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(p.ev[0].attr.precise_ip, 3u);  // left at its planned level
  char line[512];
  describe_plan(p, line, sizeof line);
  EXPECT_NE(std::string(line).find("cpu_atom type 10 config 0x6d0"), std::string::npos) << line;
}

}  // namespace
