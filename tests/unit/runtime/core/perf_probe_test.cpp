// The attributes the soft source asks the kernel for (checked without opening anything, through
// the perf_open hook), and the run-time probe on fake sysfs trees.
#include "sources/perf_event.h"
#include "sources/source_probe.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace hpcrun;

namespace {
perf_event_attr g_seen;
int fake_open(const perf_event_attr& attr, pid_t, int, int, unsigned long) {
  g_seen = attr;
  return -ENOENT;
}

std::string make_tree(std::initializer_list<const char*> files) {
  char tmpl[] = "/tmp/hpcl-sysfs-XXXXXX";
  std::string root = mkdtemp(tmpl);
  for (const char* f : files) {
    std::string path = root + "/" + f;
    for (size_t i = root.size() + 1; i < path.size(); ++i)
      if (path[i] == '/') mkdir(path.substr(0, i).c_str(), 0755);
    FILE* fp = fopen(path.c_str(), "w");
    fputs("1\n", fp);
    fclose(fp);
  }
  return root;
}
}  // namespace

TEST(PerfEvent, SoftClockAttributes) {
  perf_event_attr a = soft_clock_attr(1000000);
  EXPECT_EQ(a.type, uint32_t(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(a.config, uint64_t(PERF_COUNT_SW_TASK_CLOCK));
  EXPECT_EQ(a.sample_period, 1000000u);
  EXPECT_EQ(a.size, sizeof(perf_event_attr));
  EXPECT_TRUE(a.disabled);       // armed only after the signal owner is set
  EXPECT_TRUE(a.exclude_kernel); // allowed at perf_event_paranoid=2
  EXPECT_FALSE(a.inherit);       // one event per thread, each signalling its own thread
  EXPECT_EQ(a.wakeup_events, 1u);
}

TEST(PerfEvent, EveryOpenGoesThroughTheHook) {
  set_perf_open_hook(fake_open);
  EXPECT_EQ(perf_open(soft_clock_attr(250000), 0, -1, -1, 0), -ENOENT);
  EXPECT_EQ(g_seen.sample_period, 250000u);
  set_perf_open_hook(nullptr);
}

TEST(SourceProbe, NoPmuMeansSoft) {
  std::string root = make_tree({"software/type", "tracepoint/type"});
  HardwareProbe hw = probe_hardware(root.c_str());
  EXPECT_FALSE(hw.cpu_pmu);
  EXPECT_FALSE(hw.pebs);
  EXPECT_FALSE(hw.ibs_op);
  char why[256];
  EXPECT_EQ(choose_source(SourceKind::Auto, hw, why, sizeof why), SourceKind::Soft);
  EXPECT_NE(strstr(why, "no PEBS or IBS"), nullptr);
}

TEST(SourceProbe, RecognisesPebsAndIbs) {
  std::string intel = make_tree({"cpu/type", "cpu/format/ldlat"});
  HardwareProbe hw = probe_hardware(intel.c_str());
  EXPECT_TRUE(hw.pebs);
  EXPECT_FALSE(hw.ibs_op);
  std::string amd = make_tree({"cpu/type", "ibs_op/type"});
  hw = probe_hardware(amd.c_str());
  EXPECT_FALSE(hw.pebs);
  EXPECT_TRUE(hw.ibs_op);
  char why[256];
  // No reader for hardware records in this version: auto still measures, with soft.
  EXPECT_EQ(choose_source(SourceKind::Auto, hw, why, sizeof why), SourceKind::Soft);
  EXPECT_NE(strstr(why, "IBS"), nullptr);
}
