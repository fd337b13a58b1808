// IBS op attributes against fake sysfs trees.
#include "sources/ibs/ibs_attr.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace hpcrun;
namespace fs = std::filesystem;

namespace {
int g_trees = 0;
struct FakeSysfs {
  fs::path root = fs::temp_directory_path() /
                  ("hpcl_ibs_" + std::to_string(getpid()) + "_" + std::to_string(g_trees++));
  FakeSysfs(bool ibs, bool cnt_ctl) {
    fs::create_directories(root);
    if (!ibs) return;
    fs::create_directories(root / "ibs_op" / "format");
    std::ofstream(root / "ibs_op" / "type") << "11\n";
    if (cnt_ctl) std::ofstream(root / "ibs_op" / "format" / "cnt_ctl") << "config:19\n";
  }
  ~FakeSysfs() { fs::remove_all(root); }
};
}  // namespace

TEST(IbsAttr, PeriodBitsAsTheDriverReadsThem) {
  EXPECT_EQ(ibs_op_period_config(0x10000), 0x1000u);           // period/16 in bits 0-15
  EXPECT_EQ(ibs_op_period_config(0x1001f), 0x1001u);           // rounded down to 16
  EXPECT_EQ(ibs_op_period_config(0x100000), 0x100000u);        // bit 20 stays in place
  EXPECT_EQ(ibs_op_period_config(kMaxIbsPeriod), 0x07f0ffffu);  // both fields full
  // The driver's read-back: ((config & 0xffff) << 4) | (config & 0x07f00000).
  for (uint64_t p : {uint64_t(0x10), uint64_t(0x12340), uint64_t(0x2345670), kMaxIbsPeriod}) {
    uint64_t c = ibs_op_period_config(p);
    EXPECT_EQ(((c & 0xffff) << 4) | (c & (0x7full << 20)), p);
  }
}

TEST(IbsAttr, TypeFromSysfsAndOpCounting) {
  FakeSysfs sys(true, true);
  perf_event_attr a;
  char err[200];
  IbsRequest req;
  req.period = 0x20000;
  ASSERT_TRUE(ibs_op_attr(req, sys.root.c_str(), &a, err, sizeof err)) << err;
  EXPECT_EQ(a.type, 11u);
  EXPECT_EQ(a.config, kIbsCntCtl | 0x2000u);
  EXPECT_EQ(a.sample_period, 0u);  // the period is in the config
  EXPECT_EQ(a.sample_type, uint64_t(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                    PERF_SAMPLE_CPU | PERF_SAMPLE_RAW));
  EXPECT_EQ(a.exclude_kernel, 0u);
  req.count_ops = false;
  ASSERT_TRUE(ibs_op_attr(req, sys.root.c_str(), &a, err, sizeof err));
  EXPECT_EQ(a.config, 0x2000u);
}

TEST(IbsAttr, OldKernelWithoutCntCtlCountsCycles) {
  FakeSysfs sys(true, false);
  perf_event_attr a;
  char err[200];
  ASSERT_TRUE(ibs_op_attr(IbsRequest{}, sys.root.c_str(), &a, err, sizeof err)) << err;
  EXPECT_EQ(a.config, ibs_op_period_config(kDefaultIbsPeriod));
}

TEST(IbsAttr, RefusalsNameTheReason) {
  FakeSysfs none(false, false);
  perf_event_attr a;
  char err[200];
  EXPECT_FALSE(ibs_op_attr(IbsRequest{}, none.root.c_str(), &a, err, sizeof err));
  EXPECT_NE(std::string(err).find("no AMD IBS op PMU"), std::string::npos) << err;
  FakeSysfs sys(true, true);
  IbsRequest req;
  req.period = 8;
  EXPECT_FALSE(ibs_op_attr(req, sys.root.c_str(), &a, err, sizeof err));
  EXPECT_NE(std::string(err).find("period 8"), std::string::npos) << err;
  req.period = kMaxIbsPeriod + 16;
  EXPECT_FALSE(ibs_op_attr(req, sys.root.c_str(), &a, err, sizeof err));
}
