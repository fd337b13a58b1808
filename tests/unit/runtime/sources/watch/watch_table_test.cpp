// The watchpoint analyses' per-variable table (sources/watch/watch_table.h): a synthetic stream
// of sharing traps classified into false and true sharing with their threads, lines and words;
// reuse times into log2 bins, expiries into no_reuse; the metrics the writer gets; and the
// breakpoint attributes the runtime opens and re-aims events with.
#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "hpcrun/probe/perf_event.h"
#include "hpcrun/probe/watch_probe.h"
#include "sources/watch/watch_table.h"

namespace hpcrun {
namespace {

std::map<uint16_t, uint64_t> metrics_of(const WpVarKey& want) {
  struct Ctx {
    WpVarKey want;
    std::map<uint16_t, uint64_t> out;
  } ctx{want, {}};
  watch_table_for_each(
      [](const WpRecord& r, void* p) {
        auto* c = static_cast<Ctx*>(p);
        if (r.key.root != c->want.root || r.key.a != c->want.a || r.key.b != c->want.b) return;
        hpcl::Metric ms[kWpMaxMetrics];
        int n = wp_record_metrics(r, ms);
        for (int i = 0; i < n; ++i) c->out[ms[i].id] = ms[i].value;
      },
      &ctx);
  return ctx.out;
}

TEST(WatchTable, ClassifiesASyntheticTrapStream) {
  watch_table_reset();
  EXPECT_EQ(wp_classify(0x1008, 8, 0x100c, 4), WpShare::True);
  EXPECT_EQ(wp_classify(0x1010, 8, 0x1008, 8), WpShare::False);
  // Two ints of one 8-byte word: different bytes, false sharing.
  EXPECT_EQ(wp_classify(0x1004, 4, 0x1000, 4), WpShare::False);
  EXPECT_EQ(wp_classify(0x1004, 0, 0x1000, 4), WpShare::True) << "unknown size: the whole word";
  const WpVarKey key{2, 3, uint64_t(-1)};  // a static: module 3, its anonymous data
  const int32_t var = wp_var(key);
  ASSERT_GE(var, 0);
  EXPECT_EQ(wp_var(key), var) << "one entry per variable";
  // Thread 0 wrote word 0 of line 0x1000; thread 1 trapped on word 8 (false) ten times and on
  // word 0 (true) twice; thread 2 on word 8 of the next line once.
  for (int i = 0; i < 13; ++i) wp_count_armed(var, true);
  auto trap = [&](uint64_t at, uint64_t sampled, uint32_t thread) {
    wp_count_sharing(var, at, wp_classify(at, 8, sampled, 8), thread);
  };
  for (int i = 0; i < 10; ++i) trap(0x1008, 0x1000, 1);
  trap(0x1000, 0x1000, 1);
  trap(0x1000, 0x1004, 1);
  trap(0x1048, 0x1040, 2);
  auto m = metrics_of(key);
  EXPECT_EQ(m[hpcl::kMetricWpFalse], 11u);
  EXPECT_EQ(m[hpcl::kMetricWpTrue], 2u);
  EXPECT_EQ(m[hpcl::kMetricWpThreads], 2u);
  EXPECT_EQ(m[hpcl::kMetricWpLines], 2u);
  EXPECT_EQ(m[hpcl::kMetricWpSharingArmed], 13u);
  EXPECT_EQ(m[hpcl::kMetricWpWordBase + 0], 2u);
  EXPECT_EQ(m[hpcl::kMetricWpWordBase + 1], 11u);
  EXPECT_EQ(m.count(hpcl::kMetricWpReuseArmed), 0u) << "zeros are left out";
}

TEST(WatchTable, ReuseTimesAndExpiries) {
  watch_table_reset();
  EXPECT_EQ(wp_reuse_bin(0), 0u);
  EXPECT_EQ(wp_reuse_bin(1), 0u);
  EXPECT_EQ(wp_reuse_bin(2), 1u);
  EXPECT_EQ(wp_reuse_bin(1023), 9u);
  EXPECT_EQ(wp_reuse_bin(1024), 10u);
  EXPECT_EQ(wp_reuse_bin(~0ull), kWpReuseBins - 1);
  const WpVarKey key{1, 7, 0};  // heap site 7
  const int32_t var = wp_var(key);
  for (int i = 0; i < 5; ++i) wp_count_armed(var, false);
  wp_count_reuse(var, 700);
  wp_count_reuse(var, 900);
  wp_count_reuse(var, 12000000);
  wp_count_no_reuse(var);
  wp_count_no_reuse(var);
  auto m = metrics_of(key);
  EXPECT_EQ(m[hpcl::kMetricWpReuseArmed], 5u);
  EXPECT_EQ(m[hpcl::kMetricWpReuseBase + 9], 2u);
  EXPECT_EQ(m[hpcl::kMetricWpReuseBase + 23], 1u);
  EXPECT_EQ(m[hpcl::kMetricWpNoReuse], 2u) << "an expiry is counted, never dropped";
  EXPECT_EQ(wp_var(WpVarKey{0, 0, 0}), -1) << "not a variable";
  wp_count_reuse(-1, 5);  // harmless
}

TEST(WatchTable, BreakpointAttributes) {
  perf_event_attr a = breakpoint_attr(0x7000, false);
  EXPECT_EQ(a.type, uint32_t(PERF_TYPE_BREAKPOINT));
  EXPECT_EQ(a.bp_type, uint32_t(HW_BREAKPOINT_RW));
  EXPECT_EQ(a.bp_len, uint64_t(HW_BREAKPOINT_LEN_8));
  EXPECT_EQ(a.bp_addr, 0x7000u);
  EXPECT_EQ(a.sample_period, 1u);
  EXPECT_EQ(a.disabled, 1u);
  EXPECT_EQ(a.exclude_kernel, 1u);
  EXPECT_EQ(breakpoint_attr(0x7000, true).disabled, 0u) << "the modify ioctl enables it";
  EXPECT_EQ(breakpoint_attr(0x7000, true, /*writes_only=*/true).bp_type, uint32_t(HW_BREAKPOINT_W));
}

// The one verdict --check, the launcher and the tests give: a watch that opens and re-aims but
// does not count (a paravirtualized guest) is no more usable than one perf refuses.
TEST(WatchProbe, UsableOnlyWhenTheWatchCounts) {
  char why[256];
  WatchProbe p;
  p.first_error = ENOSPC;
  EXPECT_FALSE(watch_usable(p, why, sizeof why));
  EXPECT_NE(strstr(why, "refuses breakpoint events"), nullptr) << why;
  EXPECT_NE(strstr(why, "a debugger?"), nullptr) << why;
  p.registers = 4;
  EXPECT_FALSE(watch_usable(p, why, sizeof why));
  EXPECT_NE(strstr(why, "modify ioctl no"), nullptr) << why;
  p.modify = true;
  EXPECT_FALSE(watch_usable(p, why, sizeof why));
  EXPECT_NE(strstr(why, "4 debug registers per thread, modify ioctl yes, counting no"), nullptr) << why;
  p.counted = true;
  EXPECT_TRUE(watch_usable(p, why, sizeof why));
  EXPECT_STREQ(why, "4 debug registers per thread, modify ioctl yes, counting exact");
}

// What arm() does to a thread's event, on this thread's own: one event opened disabled, re-aimed
// writes-only (after a sampled read) it counts the writes and not the reads, re-aimed reads and
// writes (after a sampled write) it counts both. Needs breakpoint events that count: skipped,
// with the reason --check gives, where the tool's own probe says the watch sources cannot run.
TEST(WatchTable, ModifyChangesWhatTheWatchCounts) {
  char why[256];
  if (!watch_usable(probe_watchpoints(), why, sizeof why)) GTEST_SKIP() << "wp-sharing unavailable: " << why;
  alignas(8) static volatile uint64_t word;
  const uint64_t addr = reinterpret_cast<uint64_t>(&word);
  int fd = perf_open(breakpoint_attr(addr, false), 0, -1, -1, 0);
  ASSERT_GE(fd, 0) << "the probe opened breakpoint events, this open failed: " << strerror(-fd);
  auto count = [&] {
    uint64_t v = 0;
    EXPECT_EQ(read(fd, &v, sizeof v), ssize_t(sizeof v));
    return v;
  };
  perf_event_attr w = breakpoint_attr(addr, true, /*writes_only=*/true);
  ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &w), 0) << "the probe's modify ioctl worked";
  uint64_t sum = 0;
  for (int i = 0; i < 5; ++i) sum += word;
  EXPECT_EQ(count(), 0u) << "reads do not trap a writes-only watch";
  for (int i = 0; i < 3; ++i) word = sum + i;
  EXPECT_EQ(count(), 3u);
  perf_event_attr rw = breakpoint_attr(addr, true);
  ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &rw), 0);
  for (int i = 0; i < 5; ++i) sum += word;
  EXPECT_EQ(count(), 8u) << "a reads-and-writes watch counts the reads";
  close(fd);
}

}  // namespace
}  // namespace hpcrun
