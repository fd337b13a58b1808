// The PEBS events from libpfm4's tables per CPU model (event_plan.h's fallback where sysfs is
// silent). libpfm4 reads LIBPFM_FORCE_PMU once per process, so each model is encoded in a child
// process.
#include "hpcrun/probe/pebs_attr.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "hpcrun/probe/pfm_api.h"

using namespace hpcrun;

namespace {

struct Encoded {
  bool ok = false;
  perf_event_attr attr{};
  char err[200] = {};
};

// Encodes with libpfm4 told the PMU is `model`, in a child.
Encoded encode_as(const char* model, PebsKind kind, uint32_t ldlat) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    setenv("LIBPFM_FORCE_PMU", model, 1);
    pfm_api_use_linked();
    Encoded e;
    e.ok = pebs_attr_libpfm(kind, ldlat, &e.attr, e.err, sizeof e.err);
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
    Encoded e = encode_as(c.model, c.kind, 45);
    ASSERT_TRUE(e.ok) << e.err;
    EXPECT_EQ(e.attr.type, uint32_t(PERF_TYPE_RAW));
    EXPECT_EQ(e.attr.config, c.config);
    EXPECT_EQ(e.attr.config1, c.config1);
    EXPECT_EQ(e.attr.exclude_kernel, 1u);
  }
}

TEST(PebsAttr, AModelWithoutTheEventSaysSo) {
  Encoded e = encode_as("nhm", PebsKind::Store, 0);
  EXPECT_FALSE(e.ok);
  EXPECT_NE(std::string(e.err).find("precise-store"), std::string::npos) << e.err;
  EXPECT_NE(std::string(e.err).find("nhm"), std::string::npos) << e.err;
}
