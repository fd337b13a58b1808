// PEBS attribute construction per CPU model, and the precise_ip probe through perf_open's hook.
// libpfm4 reads LIBPFM_FORCE_PMU once per process, so each model is encoded in a child process.
#include "sources/pebs/pebs_attr.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sources/hw/precise_probe.h"
#include "sources/pebs/pfm_api.h"
#include "sources/perf_event.h"

using namespace hpcrun;

namespace {

struct Encoded {
  bool ok = false;
  perf_event_attr attr{};
  char err[200] = {};
};

// Encodes `req` with libpfm4 told the PMU is `model`, in a child.
Encoded encode_as(const char* model, const PebsRequest& req) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    setenv("LIBPFM_FORCE_PMU", model, 1);
    pfm_api_use_linked();
    Encoded e;
    e.ok = pebs_attr(req, "/nonexistent", &e.attr, e.err, sizeof e.err);
    ssize_t n = write(fds[1], &e, sizeof e);
    _exit(n == ssize_t(sizeof e) ? 0 : 1);
  }
  close(fds[1]);
  Encoded e;
  EXPECT_EQ(read(fds[0], &e, sizeof e), ssize_t(sizeof e));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return e;
}

struct ModelCase {
  const char* model;
  PebsKind kind;
  uint64_t config;
  uint64_t config1;
};

}  // namespace

TEST(PebsAttr, EventPerCpuModelFromLibpfm) {
  const ModelCase cases[] = {
      // Nehalem/Westmere: MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD; no precise stores.
      {"nhm", PebsKind::Load, 0x100b, 45},
      {"wsm", PebsKind::Load, 0x100b, 45},
      // Sandy/Ivy Bridge: MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD, PRECISE_STORE.
      {"snb", PebsKind::Load, 0x01cd, 45},
      {"snb", PebsKind::Store, 0x02cd, 0},
      {"ivb", PebsKind::Store, 0x02cd, 0},
      // Haswell/Broadwell: MEM_TRANS_RETIRED:LOAD_LATENCY, MEM_UOPS_RETIRED:ALL_STORES.
      {"hsw", PebsKind::Load, 0x01cd, 45},
      {"bdw", PebsKind::Store, 0x82d0, 0},
      // Skylake, Ice Lake, Sapphire Rapids: MEM_TRANS_RETIRED:LOAD_LATENCY, MEM_INST_RETIRED:ALL_STORES.
      {"skl", PebsKind::Load, 0x01cd, 45},
      {"skl", PebsKind::Store, 0x82d0, 0},
      {"icl", PebsKind::Load, 0x01cd, 45},
      {"icl", PebsKind::Store, 0x82d0, 0},
      {"spr", PebsKind::Load, 0x01cd, 45},
      {"spr", PebsKind::Store, 0x82d0, 0},
  };
  for (const ModelCase& c : cases) {
    SCOPED_TRACE(std::string(c.model) + (c.kind == PebsKind::Load ? " load" : " store"));
    PebsRequest req;
    req.kind = c.kind;
    req.ldlat = 45;
    req.period = 4001;
    Encoded e = encode_as(c.model, req);
    ASSERT_TRUE(e.ok) << e.err;
    EXPECT_EQ(e.attr.type, uint32_t(PERF_TYPE_RAW));
    EXPECT_EQ(e.attr.config, c.config);
    EXPECT_EQ(e.attr.config1, c.config1);
    EXPECT_EQ(e.attr.precise_ip, 3u);  // the probe lowers it
    EXPECT_EQ(e.attr.sample_period, 4001u);
    EXPECT_EQ(e.attr.exclude_kernel, 1u);
    EXPECT_EQ(e.attr.disabled, 1u);
    EXPECT_EQ(e.attr.sample_type, pebs_sample_type(true));
  }
}

TEST(PebsAttr, DefaultsAndRefusals) {
  PebsRequest req;
  Encoded e = encode_as("skl", req);
  ASSERT_TRUE(e.ok) << e.err;
  EXPECT_EQ(e.attr.config1, kDefaultLdlat);
  EXPECT_EQ(e.attr.sample_period, kDefaultPebsPeriod);

  req.kind = PebsKind::Store;
  e = encode_as("nhm", req);
  EXPECT_FALSE(e.ok);
  EXPECT_NE(std::string(e.err).find("precise-store"), std::string::npos) << e.err;
  EXPECT_NE(std::string(e.err).find("nhm"), std::string::npos) << e.err;

  req.kind = PebsKind::Load;
  req.ldlat = 70000;
  e = encode_as("skl", req);
  EXPECT_FALSE(e.ok);
  EXPECT_NE(std::string(e.err).find("ldlat=70000"), std::string::npos) << e.err;
}

TEST(PebsAttr, HybridPmusTakeTheirTypeFromSysfs) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("hpcl_hybrid_" + std::to_string(getpid()));
  fs::create_directories(root / "cpu_core");
  fs::create_directories(root / "cpu_atom");
  std::ofstream(root / "cpu_core" / "type") << "4\n";
  std::ofstream(root / "cpu_atom" / "type") << "10\n";
  char err[200];
  perf_event_attr a;
  PebsRequest req;
  req.ldlat = 60;
  req.pmu = "cpu_atom";
  ASSERT_TRUE(pebs_attr(req, root.c_str(), &a, err, sizeof err)) << err;
  EXPECT_EQ(a.type, 10u);
  EXPECT_EQ(a.config, 0x05d0u);
  EXPECT_EQ(a.config1, 60u);
  req.pmu = "cpu_core";
  ASSERT_TRUE(pebs_attr(req, root.c_str(), &a, err, sizeof err)) << err;
  EXPECT_EQ(a.type, 4u);
  EXPECT_EQ(a.config, 0x01cdu);
  req.kind = PebsKind::Store;
  ASSERT_TRUE(pebs_attr(req, root.c_str(), &a, err, sizeof err)) << err;
  EXPECT_EQ(a.config, 0x82d0u);
  EXPECT_EQ(a.config1, 0u);
  fs::remove(root / "cpu_atom" / "type");
  req.pmu = "cpu_atom";
  EXPECT_FALSE(pebs_attr(req, root.c_str(), &a, err, sizeof err));
  EXPECT_NE(std::string(err).find("cpu_atom/type"), std::string::npos) << err;
  req.pmu = "arm_spe_0";
  EXPECT_FALSE(pebs_attr(req, root.c_str(), &a, err, sizeof err));
  fs::remove_all(root);
}

// The kernel's answers, scripted per (precise_ip, PHYS_ADDR, WEIGHT_STRUCT).
namespace {
int g_calls = 0;
int g_min_ok_precise = 1;
bool g_phys_refused = false;
bool g_weight_struct_refused = false;
int g_other_error = 0;
int scripted_open(const perf_event_attr& a, pid_t, int, int, unsigned long) {
  ++g_calls;
  if (g_other_error) return g_other_error;
  if (g_phys_refused && (a.sample_type & PERF_SAMPLE_PHYS_ADDR)) return -EACCES;
  if (g_weight_struct_refused && (a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) return -EINVAL;
  if (int(a.precise_ip) > g_min_ok_precise) return -EINVAL;
  return dup(0);  // a real fd for the probe to close
}
struct HookScope {
  HookScope(int min_ok, bool phys, bool ws, int other = 0) {
    g_calls = 0;
    g_min_ok_precise = min_ok;
    g_phys_refused = phys;
    g_weight_struct_refused = ws;
    g_other_error = other;
    set_perf_open_hook(scripted_open);
  }
  ~HookScope() { set_perf_open_hook(nullptr); }
};
perf_event_attr pebs_like() {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_RAW;
  a.config = 0x1cd;
  a.sample_type = pebs_sample_type(true);
  return a;
}
}  // namespace

TEST(PreciseProbe, StepsDownFromThree) {
  HookScope hook(/*min_ok=*/1, false, false);
  perf_event_attr a = pebs_like();
  PreciseProbe p = probe_precise(&a, 1);
  EXPECT_EQ(p.error, 0);
  EXPECT_EQ(a.precise_ip, 1u);  // EINVAL at 3 and 2
  EXPECT_EQ(g_calls, 3);
  EXPECT_FALSE(p.dropped_phys);
  char line[256];
  describe_probe(a, p, line, sizeof line);
  EXPECT_NE(std::string(line).find("precise_ip=1"), std::string::npos) << line;
}

TEST(PreciseProbe, DropsPhysAddrThenWeightStruct) {
  {
    HookScope hook(3, /*phys=*/true, false);
    perf_event_attr a = pebs_like();
    PreciseProbe p = probe_precise(&a, 1);
    EXPECT_EQ(p.error, 0);
    EXPECT_TRUE(p.dropped_phys);
    EXPECT_EQ(a.precise_ip, 3u);
    EXPECT_FALSE(a.sample_type & PERF_SAMPLE_PHYS_ADDR);
    EXPECT_TRUE(a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
  }
  {
    HookScope hook(2, false, /*weight_struct=*/true);
    perf_event_attr a = pebs_like();
    PreciseProbe p = probe_precise(&a, 1);
    EXPECT_EQ(p.error, 0);
    EXPECT_TRUE(p.weight_fallback);
    EXPECT_EQ(a.precise_ip, 2u);
    EXPECT_TRUE(a.sample_type & PERF_SAMPLE_WEIGHT);
    EXPECT_FALSE(a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
  }
}

TEST(PreciseProbe, NoSuchEventStopsAtOnce) {
  HookScope hook(3, false, false, -ENOENT);
  perf_event_attr a = pebs_like();
  PreciseProbe p = probe_precise(&a, 1);
  EXPECT_EQ(p.error, -ENOENT);
  EXPECT_EQ(g_calls, 1);
  char line[256];
  describe_probe(a, p, line, sizeof line);
  EXPECT_NE(std::string(line).find("No such file"), std::string::npos) << line;
}

TEST(PreciseProbe, NothingAcceptedNamesTheLastError) {
  HookScope hook(0, false, false);  // refuses every level >= 1
  perf_event_attr a = pebs_like();
  PreciseProbe p = probe_precise(&a, 1);
  EXPECT_EQ(p.error, -EINVAL);
  EXPECT_TRUE(p.dropped_phys);
  EXPECT_TRUE(p.weight_fallback);
  EXPECT_EQ(g_calls, 9);
}
