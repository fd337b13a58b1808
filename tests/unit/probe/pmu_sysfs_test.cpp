// Encoding perf events from a PMU's sysfs files (probe/pmu_sysfs.h), in every spelling the
// kernel writes and a copy of the tree may have. The expected bits are the perf ABI's: a format
// "config1:0-15" puts the value in bits 0-15 of attr.config1; a multi-range format fills its
// lowest range with the value's low bits first (tools/perf/util/pmu.c, pmu_format_value).
#include "hpcrun/probe/pmu_sysfs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace hpcrun;

namespace {

struct Tree {
  std::string root;
  Tree() {
    char tmpl[] = "/tmp/hpcl-pmu-XXXXXX";
    root = mkdtemp(tmpl);
  }
  ~Tree() { std::system(("rm -rf " + root).c_str()); }
  // Writes devices/<pmu>/<rel> with exactly `bytes`.
  void put(const std::string& pmu, const std::string& rel, const std::string& bytes) {
    write("sys/bus/event_source/devices/" + pmu + "/" + rel, bytes);
  }
  // Writes <root>/<rel>, making its directories.
  void write(const std::string& rel, const std::string& bytes) {
    std::string path = root + "/" + rel;
    for (size_t i = root.size() + 1; i < path.size(); ++i)
      if (path[i] == '/') mkdir(path.substr(0, i).c_str(), 0755);
    FILE* f = fopen(path.c_str(), "w");
    fwrite(bytes.data(), 1, bytes.size(), f);
    fclose(f);
  }
};

TEST(PmuSysfs, FormatsAsTheKernelWritesThem) {
  FormatField f;
  ASSERT_TRUE(parse_format("config:0-7\n", &f));
  EXPECT_EQ(f.word, 0);
  EXPECT_EQ(f.width(), 8);
  ASSERT_TRUE(parse_format("config1:0-15", &f));
  EXPECT_EQ(f.word, 1);
  EXPECT_EQ(f.width(), 16);
  ASSERT_TRUE(parse_format("config:19\n", &f));
  EXPECT_EQ(f.width(), 1);
  ASSERT_TRUE(parse_format("config2:0\n", &f));
  EXPECT_EQ(f.word, 2);
  ASSERT_TRUE(parse_format(" config : 0-7 , 32-35 \n", &f));  // AMD's core event field
  EXPECT_EQ(f.nranges, 2);
  EXPECT_EQ(f.width(), 12);
  EXPECT_FALSE(parse_format("config:", &f));
  EXPECT_FALSE(parse_format("config9:1", &f));
  EXPECT_FALSE(parse_format("config:7-3", &f));
  EXPECT_FALSE(parse_format("config:64", &f));
  EXPECT_FALSE(parse_format("event=0x3c", &f));
}

TEST(PmuSysfs, MultiRangeValuesFillTheLowRangeFirst) {
  FormatField f;
  ASSERT_TRUE(parse_format("config:0-7,32-35", &f));
  perf_event_attr a{};
  // AMD's event 0x1c0 is 0xc0 in bits 0-7 and 0x1 in bits 32-35.
  ASSERT_TRUE(format_apply(f, 0x1c0, &a));
  EXPECT_EQ(a.config, 0x1000000c0ull);
  EXPECT_FALSE(format_apply(f, 0x1000, &a));  // 13 bits into 12
  ASSERT_TRUE(parse_format("config1:0-15", &f));
  EXPECT_TRUE(format_apply(f, 0xffff, &a));
  EXPECT_FALSE(format_apply(f, 0x10000, &a));
  EXPECT_EQ(a.config1, 0xffffull);
  // A new value clears the field's old bits and only those.
  a.config1 = 0xffff0000ffffull;
  ASSERT_TRUE(format_apply(f, 0x1e, &a));
  EXPECT_EQ(a.config1, 0xffff0000001eull);
}

TEST(PmuSysfs, EventStringsInEverySpelling) {
  Tree t;
  t.put("cpu", "type", "4\n");
  t.put("cpu", "format/event", "config:0-7\n");
  t.put("cpu", "format/umask", "config:8-15\n");
  t.put("cpu", "format/ldlat", "config1:0-15\n");
  t.put("cpu", "format/any", "config:21\n");
  // As the kernel writes them (no newline), with a newline, with spaces, decimal, and padded
  // with NULs as tar stores a sysfs file of stated size 4096.
  t.put("cpu", "events/a", "event=0xcd,umask=0x1,ldlat=3");
  t.put("cpu", "events/b", "event=0xcd,umask=0x1,ldlat=3\n");
  t.put("cpu", "events/c", " event = 0xcd , umask=0x01 ,ldlat=3 \n");
  t.put("cpu", "events/d", "event=205,umask=1,ldlat=3");
  t.put("cpu", "events/e", std::string("event=0xcd,umask=0x1,ldlat=3\n") + std::string(100, '\0'));
  t.put("cpu", "events/f", "event=0x3c,any");  // a term without a value is 1
  t.put("cpu", "events/g", "config=0x1cd,config1=3");
  for (const char* name : {"a", "b", "c", "d", "e", "g"}) {
    SCOPED_TRACE(name);
    perf_event_attr a{};
    char err[256] = "";
    ASSERT_TRUE(pmu_encode_event(t.root.c_str(), "cpu", name, "ldlat=30", &a, err, sizeof err)) << err;
    EXPECT_EQ(a.config, 0x1cdull);
    EXPECT_EQ(a.config1, 30ull);  // the override replaces the event's threshold of 3
  }
  perf_event_attr a{};
  char err[256] = "";
  ASSERT_TRUE(pmu_encode_event(t.root.c_str(), "cpu", "f", nullptr, &a, err, sizeof err)) << err;
  EXPECT_EQ(a.config, 0x3cull | 1ull << 21);
  EXPECT_EQ(pmu_type_at(t.root.c_str(), "cpu"), 4);
}

TEST(PmuSysfs, RefusalsNameWhatIsMissing) {
  Tree t;
  t.put("uncore", "type", "14");
  t.put("uncore", "format/event", "config:0-7");
  t.put("uncore", "events/x", "event=0xcd,umask=0x1");
  t.put("uncore", "events/y", "event=0x1cd");
  t.put("uncore", "events/z", "event=zz");
  perf_event_attr a{};
  char err[256];
  EXPECT_FALSE(pmu_encode_event(t.root.c_str(), "uncore", "x", nullptr, &a, err, sizeof err));
  EXPECT_NE(std::string(err).find("no format for term 'umask'"), std::string::npos) << err;
  EXPECT_FALSE(pmu_encode_event(t.root.c_str(), "uncore", "y", nullptr, &a, err, sizeof err));
  EXPECT_NE(std::string(err).find("does not fit"), std::string::npos) << err;
  EXPECT_FALSE(pmu_encode_event(t.root.c_str(), "uncore", "z", nullptr, &a, err, sizeof err));
  EXPECT_NE(std::string(err).find("not a number"), std::string::npos) << err;
  EXPECT_FALSE(pmu_encode_event(t.root.c_str(), "uncore", "none", nullptr, &a, err, sizeof err));
  EXPECT_NE(std::string(err).find("no events/none"), std::string::npos) << err;
  EXPECT_EQ(pmu_type_at(t.root.c_str(), "ibs_op"), -1);
  t.put("bad", "type", "four\n");
  EXPECT_EQ(pmu_type_at(t.root.c_str(), "bad"), -1);
}

TEST(PmuSysfs, ACopyWithoutTheCoreFormatsUsesTheArchitecturalOnes) {
  // Every Intel core PMU has event config:0-7, umask config:8-15 and ldlat config1:0-15
  // (arch/x86/events/intel/core.c); a copy that kept only the events still encodes.
  Tree t;
  t.put("cpu_core", "type", "4\n");
  t.put("cpu_core", "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
  perf_event_attr a{};
  char err[256] = "";
  ASSERT_TRUE(pmu_encode_event(t.root.c_str(), "cpu_core", "mem-loads", "ldlat=30", &a, err, sizeof err)) << err;
  EXPECT_EQ(a.config, 0x1cdull);
  EXPECT_EQ(a.config1, 30ull);
  // Not for other PMUs: their fields are their own.
  t.put("ibs_op", "type", "12\n");
  EXPECT_FALSE(pmu_encode(t.root.c_str(), "ibs_op", "cnt_ctl=1", nullptr, &a, err, sizeof err));
}

TEST(PmuSysfs, ACopyOfSysDevicesAlone) {
  Tree t;
  t.write("sys/devices/cpu/type", "4\n");
  t.write("sys/devices/system/cpu/online", "0-1\n");
  EXPECT_STREQ(pmu_base(t.root.c_str()), "sys/devices");
  EXPECT_EQ(pmu_type_at(t.root.c_str(), "cpu"), 4);
  EXPECT_STREQ(pmu_base("/"), "sys/bus/event_source/devices");
}

TEST(PmuSysfs, SymlinkedPmusAsSysfsHasThem) {
  // /sys/bus/event_source/devices/cpu -> ../../../devices/cpu, copied with /sys/devices/cpu.
  Tree t;
  t.write("sys/devices/cpu/type", "4\n");
  t.write("sys/bus/event_source/devices/.keep", "");
  ASSERT_EQ(symlink("../../../devices/cpu", (t.root + "/sys/bus/event_source/devices/cpu").c_str()), 0);
  EXPECT_EQ(pmu_type_at(t.root.c_str(), "cpu"), 4);
  // A copy without /sys/devices: the link leads nowhere, the PMU is absent.
  ASSERT_EQ(symlink("../../../devices/cpu_atom",
                    (t.root + "/sys/bus/event_source/devices/cpu_atom").c_str()), 0);
  EXPECT_EQ(pmu_type_at(t.root.c_str(), "cpu_atom"), -1);
}

}  // namespace
