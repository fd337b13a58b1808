// The attributes the soft source asks the kernel for (checked without opening anything, through
// the perf_open hook). The probe on fake sysfs/procfs roots is in source_probe_test.cpp.
#include "hpcrun/probe/perf_event.h"

#include <gtest/gtest.h>

#include <cerrno>


using namespace hpcrun;

namespace {
perf_event_attr g_seen;
int fake_open(const perf_event_attr& attr, pid_t, int, int, unsigned long) {
  g_seen = attr;
  return -ENOENT;
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


TEST(PerfEvent, SoftClockWithTrapSignalsItsThreadItself) {
  perf_event_attr a = soft_clock_attr(1000000, true);
  EXPECT_TRUE(a.sigtrap);
  EXPECT_TRUE(a.remove_on_exec);  // the kernel refuses sigtrap without it
  EXPECT_EQ(a.sig_data, kTimerTrapCookie);
  EXPECT_FALSE(soft_clock_attr(1000000).sigtrap);
}
