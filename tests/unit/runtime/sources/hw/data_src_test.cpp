// perf_mem_data_src decoding, on values built as the kernel builds them for Intel PEBS
// (arch/x86/events/intel/ds.c's data-source table) and AMD IBS (arch/x86/events/amd/ibs.c).
#include "sources/hw/data_src.h"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

using namespace hpcrun;

namespace {

constexpr uint64_t kLoad = PERF_MEM_S(OP, LOAD);
constexpr uint64_t kStore = PERF_MEM_S(OP, STORE);
constexpr uint64_t kHit = PERF_MEM_S(LVL, HIT);
constexpr uint64_t kMiss = PERF_MEM_S(LVL, MISS);
constexpr uint64_t kRemote = PERF_MEM_S(REMOTE, REMOTE);
uint64_t lvl(uint64_t bits) { return bits << PERF_MEM_LVL_SHIFT; }
uint64_t num(uint64_t n) { return n << PERF_MEM_LVLNUM_SHIFT; }
uint64_t hops(uint64_t h) { return h << PERF_MEM_HOPS_SHIFT; }

struct Case {
  const char* what;
  uint64_t value;
  MemLevel level;
  bool remote;
  bool hitm;
};

const Case kCases[] = {
    // Intel, with level numbers (Linux 4.14+).
    {"intel L1 hit", kLoad | lvl(PERF_MEM_LVL_L1) | kHit | num(PERF_MEM_LVLNUM_L1), MemLevel::L1, false, false},
    {"intel LFB hit", kLoad | lvl(PERF_MEM_LVL_LFB) | kHit | num(PERF_MEM_LVLNUM_LFB), MemLevel::FillBuffer, false, false},
    {"intel L2 hit", kLoad | lvl(PERF_MEM_LVL_L2) | kHit | num(PERF_MEM_LVLNUM_L2), MemLevel::L2, false, false},
    {"intel L3 hit snoop HITM",
     kLoad | lvl(PERF_MEM_LVL_L3) | kHit | num(PERF_MEM_LVLNUM_L3) | PERF_MEM_S(SNOOP, HITM), MemLevel::L3, false, true},
    {"intel local DRAM", kLoad | lvl(PERF_MEM_LVL_LOC_RAM) | kHit | num(PERF_MEM_LVLNUM_RAM), MemLevel::LocalDram, false, false},
    {"intel remote DRAM",
     kLoad | lvl(PERF_MEM_LVL_REM_RAM1) | kHit | num(PERF_MEM_LVLNUM_RAM) | kRemote | hops(PERF_MEM_HOPS_2),
     MemLevel::RemoteDram, true, false},
    {"intel remote cache HITM",
     kLoad | lvl(PERF_MEM_LVL_REM_CCE1) | kHit | num(PERF_MEM_LVLNUM_ANY_CACHE) | kRemote |
         hops(PERF_MEM_HOPS_2) | PERF_MEM_S(SNOOP, HITM),
     MemLevel::RemoteCache, true, true},
    {"intel PMEM", kLoad | lvl(PERF_MEM_LVL_LOC_RAM) | kHit | num(PERF_MEM_LVLNUM_PMEM), MemLevel::Pmem, false, false},
    {"intel CXL", kLoad | kHit | num(PERF_MEM_LVLNUM_CXL), MemLevel::Cxl, false, false},
    {"intel I/O", kLoad | lvl(PERF_MEM_LVL_IO) | kHit | num(PERF_MEM_LVLNUM_IO), MemLevel::Io, false, false},
    {"intel uncached", kLoad | lvl(PERF_MEM_LVL_UNC) | kHit, MemLevel::Uncached, false, false},
    {"intel L3 miss, source unknown", kLoad | lvl(PERF_MEM_LVL_L3) | kMiss | num(PERF_MEM_LVLNUM_L3),
     MemLevel::NotAvailable, false, false},
    {"no data source", PERF_MEM_S(OP, NA) | lvl(PERF_MEM_LVL_NA) | num(PERF_MEM_LVLNUM_NA), MemLevel::NotAvailable, false, false},
    // Old kernels: the mem_lvl bits only.
    {"old L2 hit", kLoad | lvl(PERF_MEM_LVL_L2) | kHit, MemLevel::L2, false, false},
    {"old remote DRAM 2 hops", kLoad | lvl(PERF_MEM_LVL_REM_RAM2) | kHit, MemLevel::RemoteDram, true, false},
    {"old remote cache", kLoad | lvl(PERF_MEM_LVL_REM_CCE2) | kHit, MemLevel::RemoteCache, true, false},
    // AMD IBS as the kernel translates it (Linux 6.1+): Zen 4 peer caches are ANY_CACHE with hops.
    {"amd near CCX cache", kLoad | lvl(PERF_MEM_LVL_REM_CCE1) | kHit | num(PERF_MEM_LVLNUM_ANY_CACHE) | hops(PERF_MEM_HOPS_0),
     MemLevel::RemoteCache, false, false},
    {"amd far CCX cache remote node",
     kLoad | kHit | num(PERF_MEM_LVLNUM_ANY_CACHE) | hops(PERF_MEM_HOPS_1) | kRemote, MemLevel::RemoteCache, true, false},
    {"amd old local CCX L3 (L3|REM_CCE1)", kLoad | lvl(PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1) | kHit,
     MemLevel::L3, false, false},
    {"amd DRAM remote node", kLoad | kHit | num(PERF_MEM_LVLNUM_RAM) | kRemote | hops(PERF_MEM_HOPS_1),
     MemLevel::RemoteDram, true, false},
    {"amd extension memory", kLoad | kHit | num(PERF_MEM_LVLNUM_CXL), MemLevel::Cxl, false, false},
};

}  // namespace

TEST(DataSrc, TableOfKernelEncodings) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    MemSource s = decode_data_src(c.value);
    EXPECT_EQ(int(s.level), int(c.level)) << mem_level_name(s.level);
    EXPECT_EQ(s.remote, c.remote);
    EXPECT_EQ(s.hitm, c.hitm);
    EXPECT_EQ(s.op, (c.value & kLoad) ? MemOp::Load : MemOp::NotAvailable);
  }
}

TEST(DataSrc, TlbLockAndStore) {
  MemSource s = decode_data_src(kStore | lvl(PERF_MEM_LVL_L1) | kHit | num(PERF_MEM_LVLNUM_L1) |
                                PERF_MEM_S(TLB, MISS) | PERF_MEM_S(TLB, L2) | PERF_MEM_S(LOCK, LOCKED));
  EXPECT_EQ(s.op, MemOp::Store);
  EXPECT_EQ(s.tlb, TlbState::Miss);
  EXPECT_TRUE(s.locked);
  s = decode_data_src(kLoad | PERF_MEM_S(TLB, HIT) | PERF_MEM_S(TLB, L1) | PERF_MEM_S(LOCK, NA));
  EXPECT_EQ(s.tlb, TlbState::Hit);
  EXPECT_FALSE(s.locked);
  s = decode_data_src(kLoad | PERF_MEM_S(TLB, NA) | PERF_MEM_S(SNOOPX, PEER) | num(PERF_MEM_LVLNUM_ANY_CACHE) |
                      hops(PERF_MEM_HOPS_0) | kHit);
  EXPECT_EQ(s.tlb, TlbState::NotAvailable);
  EXPECT_TRUE(s.peer);
  EXPECT_EQ(s.hops, PERF_MEM_HOPS_0);
}

TEST(DataSrc, EveryLevelHasADistinctName) {
  for (int i = 0; i < int(MemLevel::Count); ++i)
    for (int j = i + 1; j < int(MemLevel::Count); ++j)
      EXPECT_STRNE(mem_level_name(MemLevel(i)), mem_level_name(MemLevel(j)));
}

// perf's own test vectors (tools/perf/tests/mem.c, "Test data source output"), with what perf
// prints for each: our levels must say the same. A level named with MISS says where the data
// did not come from, which is no level at all; L4 counts as L3.
TEST(DataSrc, PerfsOwnTestVectors) {
  perf_mem_data_src v;
  v.val = 0;
  v.mem_lvl = PERF_MEM_LVL_HIT;
  v.mem_lvl_num = 4;
  MemSource s = decode_data_src(v.val);  // perf: "N/AL4 hit"
  EXPECT_EQ(s.level, MemLevel::L3);
  EXPECT_FALSE(s.remote);
  v.mem_remote = 1;
  s = decode_data_src(v.val);  // "N/ARemote L4 hit"
  EXPECT_EQ(s.level, MemLevel::RemoteCache);
  EXPECT_TRUE(s.remote);
  v.mem_lvl = PERF_MEM_LVL_MISS;
  v.mem_lvl_num = PERF_MEM_LVLNUM_PMEM;
  v.mem_remote = 0;
  s = decode_data_src(v.val);  // "N/APMEM miss"
  EXPECT_EQ(s.level, MemLevel::NotAvailable);
  v.mem_remote = 1;
  s = decode_data_src(v.val);  // "N/ARemote PMEM miss"
  EXPECT_EQ(s.level, MemLevel::NotAvailable);
  EXPECT_TRUE(s.remote);
  v.mem_snoopx = PERF_MEM_SNOOPX_FWD;
  v.mem_lvl_num = PERF_MEM_LVLNUM_RAM;
  s = decode_data_src(v.val);  // "FwdRemote RAM miss"
  EXPECT_EQ(s.level, MemLevel::NotAvailable);
  EXPECT_TRUE(s.remote);
  EXPECT_FALSE(s.peer);  // forwarded, not a peer cache's
}
