// The probe against fake sysfs/procfs roots, one per kind of machine: Intel client (Skylake),
// Intel server (Sapphire Rapids), hybrid (Alder Lake: cpu_core + cpu_atom), AMD with IBS, AMD
// without IBS (a VM with a virtual core PMU), Arm with SPE, and a VM without a PMU (modelled on
// this project's machines). Opens go through the perf_open hook, which plays the kernel: what it
// accepts decides the precise level and the verdict. (The events each source opens on full
// trees of real machines: tests/unit/probe/event_plan_test.cpp.)
#include "hpcrun/probe/perf_event.h"
#include "hpcrun/probe/source_probe.h"
#include "hpcrun/probe/source_verdict.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

using namespace hpcrun;

namespace {

using Files = std::vector<std::pair<const char*, std::string>>;

// The roots made by the tests of this file, removed when the test program ends.
struct Roots {
  std::vector<std::string> made;
  ~Roots() {
    std::error_code ignored;
    for (const std::string& r : made) std::filesystem::remove_all(r, ignored);
  }
} g_roots;

std::string make_root(const Files& files) {
  char tmpl[] = "/tmp/hpcl-root-XXXXXX";
  std::string root = mkdtemp(tmpl);
  g_roots.made.push_back(root);
  for (const auto& [rel, text] : files) {
    std::string path = root + "/" + rel;
    for (size_t i = root.size() + 1; i < path.size(); ++i)
      if (path[i] == '/') mkdir(path.substr(0, i).c_str(), 0755);
    FILE* fp = fopen(path.c_str(), "w");
    fputs(text.c_str(), fp);
    fclose(fp);
  }
  return root;
}

std::string cpuinfo_x86(const char* vendor, int family, int model, const char* name, bool vm) {
  std::string flags = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat";
  if (vm) flags += " hypervisor";
  flags += " lahf_lm abm";
  std::string block = std::string("processor\t: 0\nvendor_id\t: ") + vendor +
                      "\ncpu family\t: " + std::to_string(family) + "\nmodel\t\t: " +
                      std::to_string(model) + "\nmodel name\t: " + name + "\nstepping\t: 1\n" +
                      "flags\t\t: " + flags + "\n\n";
  // A second processor that must not override the first.
  return block + "processor\t: 1\nvendor_id\t: Other\nmodel\t\t: 999\n\n";
}

// What every Linux root has, plus the given files.
Files base(std::string cpuinfo, const char* capeff = "0000000000000000") {
  return {{"proc/sys/kernel/osrelease", "6.1.0-test\n"},
          {"proc/sys/kernel/perf_event_paranoid", "2\n"},
          {"proc/sys/kernel/perf_event_mlock_kb", "516\n"},
          {"proc/self/status", std::string("Name:\tx\nCapInh:\t0000000000000000\nCapEff:\t") + capeff + "\n"},
          {"proc/cpuinfo", std::move(cpuinfo)},
          {"sys/bus/event_source/devices/software/type", "1\n"},
          {"sys/bus/event_source/devices/tracepoint/type", "2\n"},
          {"sys/bus/event_source/devices/breakpoint/type", "5\n"}};
}

Files with(Files f, const Files& more) {
  f.insert(f.end(), more.begin(), more.end());
  return f;
}

// The fake kernel: accepts software events always; hardware events of `pmu_type` up to
// `max_precise`, or refuses them with `hw_err`. Remembers the attributes it saw.
struct FakeKernel {
  int hw_err = 0;
  int max_precise = 3;
  std::vector<perf_event_attr> seen;
} g_kernel;

int fake_open(const perf_event_attr& a, pid_t, int, int, unsigned long) {
  g_kernel.seen.push_back(a);
  if (a.type != PERF_TYPE_SOFTWARE) {
    if (g_kernel.hw_err) return -g_kernel.hw_err;
    if (a.precise_ip > uint64_t(g_kernel.max_precise)) return -EOPNOTSUPP;
  }
  return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

HardwareProbe probe_with(const std::string& root, int hw_err, int max_precise) {
  g_kernel = FakeKernel{hw_err, max_precise, {}};
  set_perf_open_hook(fake_open);
  HardwareProbe hw = probe_hardware(root.c_str());
  probe_opens(&hw);
  set_perf_open_hook(nullptr);
  return hw;
}

const perf_event_attr* seen_type(uint32_t type) {
  for (const perf_event_attr& a : g_kernel.seen)
    if (a.type == type) return &a;
  return nullptr;
}

bool contains(const char* text, const char* part) { return strstr(text, part) != nullptr; }

Files intel_client() {
  return with(base(cpuinfo_x86("GenuineIntel", 6, 94, "Intel(R) Core(TM) i7-6700 CPU", false)),
              {{"sys/bus/event_source/devices/cpu/type", "4\n"},
               {"sys/bus/event_source/devices/cpu/caps/pmu_name", "skylake\n"},
               {"sys/bus/event_source/devices/cpu/caps/max_precise", "3\n"},
               {"sys/bus/event_source/devices/cpu/format/event", "config:0-7\n"},
               {"sys/bus/event_source/devices/cpu/format/umask", "config:8-15\n"},
               {"sys/bus/event_source/devices/cpu/format/ldlat", "config1:0-15\n"},
               {"sys/bus/event_source/devices/cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3"},
               {"sys/bus/event_source/devices/cpu/events/mem-stores", "event=0xd0,umask=0x82"},
               {"sys/bus/event_source/devices/uncore_imc/type", "12\n"}});
}

}  // namespace

TEST(SourceProbe, IntelClientSkylake) {
  std::string root = make_root(intel_client());
  HardwareProbe hw = probe_with(root, 0, 3);
  EXPECT_STREQ(hw.kernel, "6.1.0-test");
  EXPECT_EQ(hw.paranoid, 2);
  EXPECT_EQ(hw.mlock_kb, 516);
  EXPECT_TRUE(hw.caps_known);
  EXPECT_FALSE(hw.cap_perfmon());
  EXPECT_EQ(hw.vendor, CpuVendor::Intel);
  EXPECT_EQ(hw.family, 6);
  EXPECT_EQ(hw.model, 94);  // the first processor's, not the second's
  EXPECT_STREQ(hw.model_name, "Intel(R) Core(TM) i7-6700 CPU");
  EXPECT_FALSE(hw.hypervisor);
  EXPECT_EQ(hw.cpu_type, 4);
  EXPECT_FALSE(hw.hybrid());
  EXPECT_STREQ(hw.pmu_name, "skylake");
  EXPECT_EQ(hw.max_precise, 3);
  EXPECT_TRUE(hw.pebs);
  EXPECT_FALSE(hw.ibs_op);
  ASSERT_EQ(hw.npmus, 5);
  EXPECT_STREQ(hw.pmus[0], "breakpoint");  // sorted
  EXPECT_STREQ(hw.pmus[1], "cpu");

  // The load-latency probe opens sysfs's mem-loads with perf mem's threshold, user only.
  const perf_event_attr* a = seen_type(4);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->config, 0x1cdu);
  EXPECT_EQ(a->config1, 30u);
  EXPECT_EQ(a->precise_ip, 3u);
  EXPECT_TRUE(a->exclude_kernel);
  EXPECT_TRUE(a->sample_type & PERF_SAMPLE_DATA_SRC);
  EXPECT_TRUE(a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT);

  SourceVerdict v = source_verdict(hw, kProbePebsLoad);
  EXPECT_EQ(v.verdict, Verdict::Works);  // opens, and the runtime reads it (hw_source.h)
  EXPECT_EQ(v.precise_ip, 3);
  EXPECT_EQ(source_verdict(hw, kProbePebsStore).precise_ip, 3);
  EXPECT_EQ(source_verdict(hw, kProbeSoft).verdict, Verdict::Works);
  SourceVerdict ibs = source_verdict(hw, kProbeIbsOp);
  EXPECT_EQ(ibs.verdict, Verdict::Unavailable);
  EXPECT_TRUE(contains(ibs.reason, "needs an AMD CPU, this one is Intel")) << ibs.reason;
  EXPECT_TRUE(contains(ibs.fix, "-e pebs-load")) << ibs.fix;

  char why[256];
  EXPECT_EQ(auto_choice(hw, why, sizeof why), kProbePebsLoad);
  EXPECT_TRUE(contains(why, "pebs-load: the precise hardware source that works here")) << why;
  EXPECT_EQ(choose_source(SourceKind::Auto, hw, why, sizeof why), SourceKind::Pebs);
  EXPECT_EQ(choose_source(SourceKind::PebsStore, hw, why, sizeof why), SourceKind::PebsStore);
  // Asked for by hand (HPCRUN_LITE_EVENTS) where it is absent: soft, with the reason.
  EXPECT_EQ(choose_source(SourceKind::Ibs, hw, why, sizeof why), SourceKind::Soft);
  EXPECT_TRUE(contains(why, "ibs-op is not available")) << why;
}

TEST(SourceProbe, IntelServerSapphireRapidsPreciseLevelFromThreeDown) {
  std::string root = make_root(with(
      base(cpuinfo_x86("GenuineIntel", 6, 143, "Intel(R) Xeon(R) Platinum 8480+", false)),
      {{"sys/bus/event_source/devices/cpu/type", "4\n"},
       {"sys/bus/event_source/devices/cpu/caps/pmu_name", "sapphire_rapids\n"},
       {"sys/bus/event_source/devices/cpu/format/event", "config:0-7\n"},
       {"sys/bus/event_source/devices/cpu/format/umask", "config:8-15\n"},
       {"sys/bus/event_source/devices/cpu/format/ldlat", "config1:0-15\n"},
       {"sys/bus/event_source/devices/cpu/format/frontend", "config1:0-23\n"},
       {"sys/bus/event_source/devices/cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3"},
       {"sys/bus/event_source/devices/cpu/events/mem-loads-aux", "event=0x03,umask=0x82"}}));
  HardwareProbe hw = probe_with(root, 0, 2);  // this kernel gives precise_ip 2 at most
  EXPECT_EQ(hw.model, 143);
  EXPECT_STREQ(hw.pmu_name, "sapphire_rapids");
  EXPECT_EQ(hw.max_precise, -1);  // caps/max_precise absent: unknown, the opens decide
  EXPECT_TRUE(hw.pebs);
  SourceVerdict v = source_verdict(hw, kProbePebsLoad);
  EXPECT_EQ(v.precise_ip, 2);
  EXPECT_TRUE(contains(v.reason, "precise_ip=2")) << v.reason;
  // 3 was tried first, then 2.
  int tried3 = 0;
  for (const perf_event_attr& a : g_kernel.seen) tried3 += a.type == 4 && a.precise_ip == 3;
  EXPECT_GE(tried3, 1);
}

TEST(SourceProbe, HybridAlderLakeUsesTheCoreHalf) {
  std::string root = make_root(with(
      base(cpuinfo_x86("GenuineIntel", 6, 151, "12th Gen Intel(R) Core(TM) i9-12900K", false)),
      {{"sys/bus/event_source/devices/cpu_core/type", "8\n"},
       {"sys/bus/event_source/devices/cpu_core/caps/pmu_name", "alderlake_hybrid\n"},
       {"sys/bus/event_source/devices/cpu_core/format/event", "config:0-7\n"},
       {"sys/bus/event_source/devices/cpu_core/format/umask", "config:8-15\n"},
       {"sys/bus/event_source/devices/cpu_core/format/ldlat", "config1:0-15\n"},
       {"sys/bus/event_source/devices/cpu_core/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3"},
       {"sys/bus/event_source/devices/cpu_atom/type", "10\n"},
       {"sys/bus/event_source/devices/cpu_atom/format/event", "config:0-7\n"},
       {"sys/bus/event_source/devices/cpu_atom/format/umask", "config:8-15\n"},
       {"sys/bus/event_source/devices/cpu_atom/format/ldlat", "config1:0-15\n"},
       {"sys/bus/event_source/devices/cpu_atom/events/mem-loads", "event=0xd0,umask=0x5,ldlat=3"}}));
  HardwareProbe hw = probe_with(root, 0, 3);
  EXPECT_TRUE(hw.hybrid());
  EXPECT_EQ(hw.cpu_type, -1);
  EXPECT_EQ(hw.cpu_core_type, 8);
  EXPECT_EQ(hw.cpu_atom_type, 10);
  EXPECT_STREQ(hw.pmu_name, "alderlake_hybrid");
  EXPECT_TRUE(hw.pebs);
  const perf_event_attr* a = seen_type(8);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->config, 0x1cdu);
  const perf_event_attr* atom = seen_type(10);  // both core types are sampled, as perf mem does
  ASSERT_NE(atom, nullptr);
  EXPECT_EQ(atom->config, 0x5d0u);
  EXPECT_EQ(source_verdict(hw, kProbePebsLoad).verdict, Verdict::Works);
}

TEST(SourceProbe, AmdWithIbsRefusedAtParanoidTwo) {
  std::string root = make_root(with(base(cpuinfo_x86("AuthenticAMD", 25, 1, "AMD EPYC 7763 64-Core Processor", false)),
      {{"sys/bus/event_source/devices/cpu/type", "4\n"},
       {"sys/bus/event_source/devices/cpu/format/event", "config:0-7,32-35\n"},
       {"sys/bus/event_source/devices/ibs_op/type", "11\n"},
       {"sys/bus/event_source/devices/ibs_op/format/cnt_ctl", "config:19\n"},
       {"sys/bus/event_source/devices/ibs_fetch/type", "10\n"}}));
  HardwareProbe hw = probe_with(root, EACCES, 3);
  EXPECT_EQ(hw.vendor, CpuVendor::Amd);
  EXPECT_EQ(hw.family, 25);
  EXPECT_EQ(hw.ibs_op_type, 11);
  EXPECT_EQ(hw.ibs_fetch_type, 10);
  EXPECT_TRUE(hw.ibs_op);
  EXPECT_FALSE(hw.pebs);
  // IBS is opened with kernel samples allowed (it refuses the exclude bits).
  const perf_event_attr* a = seen_type(11);
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->exclude_kernel);
  EXPECT_EQ(a->sample_period % 16, 0u);
  SourceVerdict v = source_verdict(hw, kProbeIbsOp);
  EXPECT_EQ(v.verdict, Verdict::Unavailable);
  EXPECT_TRUE(contains(v.reason, "perf_event_paranoid=2")) << v.reason;
  EXPECT_TRUE(contains(v.fix, "sysctl -w kernel.perf_event_paranoid=1")) << v.fix;
  EXPECT_TRUE(contains(v.fix, "CAP_PERFMON")) << v.fix;
  SourceVerdict pebs = source_verdict(hw, kProbePebsLoad);
  EXPECT_TRUE(contains(pebs.reason, "needs an Intel CPU, this one is AMD")) << pebs.reason;
  EXPECT_TRUE(contains(pebs.fix, "-e ibs-op")) << pebs.fix;

  // With the permission, IBS opens.
  hw = probe_with(root, 0, 3);
  EXPECT_EQ(source_verdict(hw, kProbeIbsOp).verdict, Verdict::Works);
}

TEST(SourceProbe, AmdWithoutIbsInAVmWithACorePmu) {
  std::string root = make_root(with(base(cpuinfo_x86("AuthenticAMD", 23, 49, "AMD EPYC 7B12", true)),
      {{"sys/bus/event_source/devices/cpu/type", "4\n"}}));
  HardwareProbe hw = probe_with(root, 0, 0);
  EXPECT_TRUE(hw.hypervisor);
  EXPECT_TRUE(hw.cpu_pmu);
  EXPECT_FALSE(hw.ibs_op);
  EXPECT_EQ(seen_type(4), nullptr);  // nothing of the core PMU is tried without PEBS
  SourceVerdict v = source_verdict(hw, kProbeIbsOp);
  EXPECT_EQ(v.verdict, Verdict::Unavailable);
  EXPECT_TRUE(contains(v.reason, "no ibs_op PMU")) << v.reason;
  EXPECT_TRUE(contains(v.reason, "virtual PMU does not pass it through")) << v.reason;
  EXPECT_TRUE(contains(v.fix, "a VM without vPMU: use -e soft")) << v.fix;
  char why[256];
  EXPECT_EQ(auto_choice(hw, why, sizeof why), kProbeSoft);
  EXPECT_TRUE(contains(why, "no PEBS, IBS or SPE")) << why;
}

TEST(SourceProbe, ArmWithSpe) {
  std::string cpuinfo = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm\n"
                        "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\n"
                        "CPU part\t: 0xd0c\nCPU revision\t: 1\n\n";
  std::string root = make_root(with(base(cpuinfo, "000001ffffffffff"),
      {{"sys/bus/event_source/devices/armv8_pmuv3_0/type", "8\n"},
       {"sys/bus/event_source/devices/arm_spe_0/type", "9\n"},
       {"sys/bus/event_source/devices/arm_spe_0/format/load_filter", "config:33\n"},
       {"sys/bus/event_source/devices/arm_spe_0/caps/min_interval", "1024\n"}}));
  HardwareProbe hw = probe_with(root, 0, 0);
  EXPECT_EQ(hw.vendor, CpuVendor::Arm);
  EXPECT_EQ(hw.family, 0x41);  // implementer
  EXPECT_EQ(hw.model, 0xd0c);  // part: Neoverse N1
  EXPECT_TRUE(hw.cap_perfmon());
  EXPECT_TRUE(hw.cap_sys_admin());
  EXPECT_STREQ(hw.arm_pmu, "armv8_pmuv3_0");
  EXPECT_STREQ(hw.spe_pmu, "arm_spe_0");
  EXPECT_EQ(hw.spe_type, 9);
  EXPECT_FALSE(hw.cpu_pmu);
  ASSERT_NE(seen_type(9), nullptr);
  EXPECT_EQ(source_verdict(hw, kProbeArmSpe).verdict, Verdict::NoReader);
  SourceVerdict pebs = source_verdict(hw, kProbePebsLoad);
  EXPECT_TRUE(contains(pebs.reason, "this one is Arm")) << pebs.reason;
  EXPECT_STREQ(pebs.fix, "use -e soft");
  char why[256];
  auto_choice(hw, why, sizeof why);
  EXPECT_TRUE(contains(why, "Arm SPE is present")) << why;
}

TEST(SourceProbe, VmWithoutPmuLikeThisProjectsMachines) {
  // /sys/bus/event_source/devices of these VMs: breakpoint, msr, software, tracepoint, uprobe.
  std::string root = make_root(with(base(cpuinfo_x86("AuthenticAMD", 26, 2, "AMD EPYC", true), "000001fffeffffff"),
      {{"sys/bus/event_source/devices/msr/type", "10\n"},
       {"sys/bus/event_source/devices/uprobe/type", "8\n"}}));
  HardwareProbe hw = probe_with(root, ENOENT, 3);
  EXPECT_TRUE(hw.hypervisor);
  EXPECT_TRUE(hw.cap_perfmon());
  EXPECT_TRUE(hw.cap_ipc_lock());
  EXPECT_FALSE(hw.cpu_pmu);
  EXPECT_FALSE(hw.pebs);
  EXPECT_FALSE(hw.ibs_op);
  EXPECT_EQ(hw.spe_type, -1);
  EXPECT_EQ(hw.npmus, 5);
  // Only the software sources were opened.
  for (const perf_event_attr& a : g_kernel.seen) EXPECT_EQ(a.type, uint32_t(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(source_verdict(hw, kProbeSoft).verdict, Verdict::Works);
  EXPECT_TRUE(hw.open[kProbePageFaults].tried);
  EXPECT_EQ(hw.open[kProbePageFaults].err, 0);
  for (ProbedSource s : {kProbePebsLoad, kProbePebsStore, kProbeIbsOp, kProbeArmSpe}) {
    SourceVerdict v = source_verdict(hw, s);
    EXPECT_EQ(v.verdict, Verdict::Unavailable) << probed_name(s);
    EXPECT_TRUE(contains(v.reason, "VM without a virtual PMU")) << v.reason;
    EXPECT_TRUE(contains(v.fix, "a VM without vPMU: use -e soft")) << v.fix;
  }
  char why[256];
  EXPECT_EQ(auto_choice(hw, why, sizeof why), kProbeSoft);
  EXPECT_STREQ(why, "soft: no PEBS, IBS or SPE on this machine");
}

TEST(SourceProbe, MissingFilesStayUnknown) {
  std::string root = make_root({{"nothing", ""}});
  HardwareProbe hw = probe_hardware(root.c_str());
  EXPECT_EQ(hw.paranoid, kUnknownValue);
  EXPECT_EQ(hw.mlock_kb, kUnknownValue);
  EXPECT_FALSE(hw.caps_known);
  EXPECT_EQ(hw.vendor, CpuVendor::Unknown);
  EXPECT_EQ(hw.npmus, 0);
  EXPECT_STREQ(hw.kernel, "");
  HardwareProbe none = probe_hardware("/nonexistent-root");
  EXPECT_EQ(none.npmus, 0);
}

TEST(SourceProbe, OtherOpenErrorsGiveTheErrnoAndAFix) {
  std::string root = make_root(intel_client());
  HardwareProbe hw = probe_with(root, EINVAL, 3);
  SourceVerdict v = source_verdict(hw, kProbePebsLoad);
  EXPECT_EQ(v.verdict, Verdict::Unavailable);
  EXPECT_TRUE(contains(v.reason, "Invalid argument")) << v.reason;
  EXPECT_TRUE(contains(v.fix, "dmesg")) << v.fix;
}

TEST(SourceProbe, RequestedKindsMapToProbedSources) {
  EXPECT_EQ(probed_for(SourceKind::Pebs), kProbePebsLoad);
  EXPECT_EQ(probed_for(SourceKind::PebsStore), kProbePebsStore);
  EXPECT_EQ(probed_for(SourceKind::Ibs), kProbeIbsOp);
  EXPECT_EQ(probed_for(SourceKind::Auto), kNumProbed);
  EXPECT_EQ(probed_for(SourceKind::Papi), kNumProbed);
  EXPECT_STREQ(probed_name(kProbePebsLoad), source_name(SourceKind::Pebs));
  EXPECT_STREQ(probed_name(kProbeIbsOp), source_name(SourceKind::Ibs));
}
