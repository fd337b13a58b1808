// perf's own decodings of real samples as oracles for the tool's decoders. The values are the
// ones perf printed on real machines and published on the linux-kernel and linux-perf-users
// lists (each table names its message) or in the kernel's documentation; they are copied here as
// facts (value in, perf's text out), so these tests run without the recordings beside the
// checkout. Each data_src goes through decode_data_src and must say in the tool's words what
// perf's text says (perf_mem_text.h has the mapping, docs/DESIGN.md explains it); each raw IBS
// register set goes through decode_ibs_op and must give the fields perf decoded from it.
#include <gtest/gtest.h>

#include <string>

#include "perf_mem_text.h"
#include "sources/hw/data_src.h"
#include "hpcrun/probe/event_plan.h"
#include "sources/ibs/ibs_decode.h"

using namespace hpcrun;
using namespace hpcl_test;

namespace {

struct Row {
  const char* where;
  uint64_t data_src;
  const char* perf;  // perf script -F data_src
};

void expect_rows(std::initializer_list<Row> rows) {
  for (const Row& r : rows) {
    SCOPED_TRACE(std::string(r.where) + ": data_src 0x" + [&] {
      char b[24];
      snprintf(b, sizeof b, "%llx", (unsigned long long)r.data_src);
      return std::string(b);
    }() + " " + r.perf);
    const PerfMemText text = read_perf_mem_text(r.perf);
    ASSERT_TRUE(text.ok) << text.error;
    EXPECT_EQ(mem_source_diff(decode_data_src(r.data_src), text.want), "");
  }
}

// Intel, Skylake and later (mem_lvl and mem_lvl_num both set: "L3 or L3 hit"), cpu/mem-loads/pp;
// perf record -adW, perf script -F data_src,weight (Namhyung Kim, "[PATCH 8/9] perf bpf filter:
// Add logical OR operator", 2023-03-07).
TEST(PerfOracles, IntelLoadSources) {
  expect_rows({
      {"A1", 0x10668100842, "|OP LOAD|LVL L3 or L3 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A"},
      {"A2", 0x11868100242, "|OP LOAD|LVL LFB/MAB or LFB/MAB hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A"},
      {"A3", 0x10650100842, "|OP LOAD|LVL L3 or L3 hit|SNP None|TLB L2 miss|LCK No|BLK  N/A"},
      {"A4", 0x10468100442, "|OP LOAD|LVL L2 or L2 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A"},
      {"A5", 0x1026a100142, "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK Yes|BLK  N/A"},
  });
}

// Alder Lake hybrid, cpu_core: {mem-loads-aux, MEM_UOPS_RETIRED.LOAD_LATENCY ldlat=3} (Thomas
// Falcon, "[PATCH v3] perf script: Fix output type for dynamically allocated core PMU's",
// 2024-12-13).
TEST(PerfOracles, AlderLakeCoreSource) {
  expect_rows({{"C", 0x10268100142, "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK N/A"}});
}

// AMD IBS op, ibs_op//p, as the kernel decodes it (Namhyung Kim, "[RFC/PATCHSET 0/9] BPF sample
// filter v4", 2023-03-07): the older kernels' "local cache" is this CCX's L3.
TEST(PerfOracles, AmdIbsSources) {
  expect_rows({
      {"B1", 0x51080242, "|OP LOAD|LVL LFB/MAB hit|SNP N/A|TLB L2 miss|LCK N/A|BLK  N/A"},
      {"B2", 0x49080142, "|OP LOAD|LVL L1 hit|SNP N/A|TLB L2 hit|LCK N/A|BLK  N/A"},
      {"B3", 0x51088842, "|OP LOAD|LVL L3 or Remote Cache (1 hop) hit|SNP N/A|TLB L2 miss|LCK N/A|BLK  N/A"},
      {"B4", 0x49080442, "|OP LOAD|LVL L2 hit|SNP N/A|TLB L2 hit|LCK N/A|BLK  N/A"},
  });
}

// perf's synthetic vectors (tools/perf/tests/mem.c): levels perf has words for that the tool
// counts elsewhere. An L4 hit is an l3 (the last cache level the tool names), a remote L4 a
// remote cache; a level perf names only as missed ("PMEM miss", "Remote RAM miss") is where the
// data was not, so no level.
TEST(PerfOracles, PerfsSyntheticLevels) {
  auto v = [](uint64_t lvl, uint64_t num, bool remote, uint64_t snoopx = 0) {
    return (uint64_t(PERF_MEM_OP_LOAD) << PERF_MEM_OP_SHIFT) | (lvl << PERF_MEM_LVL_SHIFT) |
           (num << PERF_MEM_LVLNUM_SHIFT) | (uint64_t(remote) << PERF_MEM_REMOTE_SHIFT) |
           (snoopx << PERF_MEM_SNOOPX_SHIFT);
  };
  struct Case {
    const char* perf;
    uint64_t value;
    MemLevel level;
  } cases[] = {
      {"L4 hit", v(PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_L4, false), MemLevel::L3},
      {"Remote L4 hit", v(PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_L4, true), MemLevel::RemoteCache},
      {"PMEM miss", v(PERF_MEM_LVL_MISS, PERF_MEM_LVLNUM_PMEM, false), MemLevel::NotAvailable},
      {"Remote PMEM miss", v(PERF_MEM_LVL_MISS, PERF_MEM_LVLNUM_PMEM, true), MemLevel::NotAvailable},
      {"Fwd Remote RAM miss", v(PERF_MEM_LVL_MISS, PERF_MEM_LVLNUM_RAM, true, PERF_MEM_SNOOPX_FWD),
       MemLevel::NotAvailable},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.perf);
    const MemSource s = decode_data_src(c.value);
    EXPECT_STREQ(mem_level_name(s.level), mem_level_name(c.level));
    EXPECT_FALSE(s.hitm);
    EXPECT_FALSE(s.peer) << "a forward is not a peer transfer";
    // The levels themselves, where perf's text has the word and the tool the metric.
    EXPECT_EQ(perf_level(c.perf), c.level);
  }
  // And the levels the tool has words for, where perf's text has them: PMEM and RAM hits.
  EXPECT_EQ(decode_data_src(v(PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_PMEM, false)).level, MemLevel::Pmem);
  EXPECT_EQ(decode_data_src(v(PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_RAM, true)).level, MemLevel::RemoteDram);
}

IbsOpRegs regs(uint64_t ctl, uint64_t rip, uint64_t data, uint64_t data2, uint64_t data3, uint64_t lin,
               uint64_t phys, uint32_t caps) {
  IbsOpRegs r;
  r.caps = caps;
  r.op_ctl = ctl;
  r.op_rip = rip;
  r.op_data = data;
  r.op_data2 = data2;
  r.op_data3 = data3;
  r.dc_lin_addr = lin;
  r.dc_phys_addr = phys;
  return r;
}

constexpr uint32_t kZen4Caps = kIbsCapsZen4 | kIbsCapsOpCntExt;

// Zen 4, perf record -c 130 -a -e ibs_op/l3missonly=1/, perf report -D (Ravi Bangoria, "[PATCH v2
// 7/8] perf script ibs: Support new IBS bits in raw trace dump", 2022-05-09). perf decoded:
// ibs_op_ctl 0000004500070008 MaxCnt 128 L3MissOnly 1 En 1 Val 1; ibs_op_data 0000000000710002
// RipInvalid 0; ibs_op_data2 0000000000000002 CacheHitSt 0=M-state RmtNode 0 DataSrc 2=A peer
// cache in a near CCX; ibs_op_data3 000000681d1700a1 LdOp 1 StOp 0 DcL1TlbMiss 0 DcMiss 1
// DcLinAddrValid 1 DcPhyAddrValid 1 L2Miss 1 DcMissLat 104. The post gives no addresses: any.
TEST(PerfOracles, Zen4IbsLoadFromAPeerCache) {
  const IbsOpRegs r = regs(0x0000004500070008, 0x401000, 0x0000000000710002, 0x2, 0x000000681d1700a1,
                           0x7f0000001040, 0x12345040, kZen4Caps);
  const IbsOp op = decode_ibs_op(r, 0x19, 0x11);  // Zen 4 (Genoa: family 19h, models 10h-1Fh)
  EXPECT_TRUE(op.valid) << "Val 1";
  EXPECT_TRUE(op.rip_valid) << "RipInvalid 0";
  EXPECT_TRUE(op.dc_miss) << "DcMiss 1";
  EXPECT_EQ(op.latency, 104u) << "DcMissLat 104";
  EXPECT_TRUE(op.addr_valid) << "DcLinAddrValid 1";
  EXPECT_EQ(op.addr, 0x7f0000001040u);
  EXPECT_TRUE(op.phys_valid) << "DcPhyAddrValid 1";
  EXPECT_EQ(op.phys, 0x12345040u);
  const MemSource s = decode_data_src(op.data_src);
  EXPECT_EQ(s.op, MemOp::Load) << "LdOp 1";
  // DataSrc 2, a peer cache in a near CCX: another core's cache on this node.
  EXPECT_STREQ(mem_level_name(s.level), "remote_cache");
  EXPECT_EQ(s.hops, PERF_MEM_HOPS_0) << "the same node";
  EXPECT_TRUE(s.hitm) << "CacheHitSt 0=M-state: the peer held it modified";
  EXPECT_EQ(s.tlb, TlbState::Hit) << "DcL1TlbMiss 0";
  EXPECT_FALSE(s.locked) << "DcLockedOp 0";
  EXPECT_TRUE((r.op_ctl >> 16) & 1) << "L3MissOnly 1 is IbsOpCtl bit 16";
}

// The kernel's example (tools/perf/Documentation/perf-amd-ibs.txt, "Example register raw dump"):
// ibs_op_ctl 000002c30006186a L3MissOnly 0 En 1 Val 1; IbsOpRip ffffffff8204aea7; ibs_op_data
// 0000010002550001 RipInvalid 0 Microcode 1; ibs_op_data2 0000000000000013 RmtNode 1 DataSrc
// 3=DRAM; ibs_op_data3 0000000031960092 LdOp 0 StOp 1 DcL1TlbMiss 0 DcL1TlbHit2M 1 DcMiss 1
// DcLinAddrValid 1 DcPhyAddrValid 1 L2Miss 1 DcMissLat 0; IbsDCLinAd ff110008a5398920,
// IbsDCPhysAd 00000008a5398920. A store: IbsOpData2 (DataSrc, RmtNode) is a load's only, so the
// kernel names no level for it, and a store carries no latency.
TEST(PerfOracles, KernelDocIbsStore) {
  const IbsOpRegs r = regs(0x000002c30006186a, 0xffffffff8204aea7, 0x0000010002550001, 0x13,
                           0x0000000031960092, 0xff110008a5398920, 0x00000008a5398920, kIbsCapsOpCntExt);
  const IbsOp op = decode_ibs_op(r, 0x19, 0x01);
  EXPECT_TRUE(op.valid) << "Val 1";
  EXPECT_TRUE(op.rip_valid) << "RipInvalid 0";
  EXPECT_EQ(op.rip, 0xffffffff8204aea7u);
  EXPECT_TRUE(op.dc_miss) << "DcMiss 1";
  EXPECT_EQ(op.latency, 0u) << "DcMissLat 0, and a store";
  EXPECT_TRUE(op.addr_valid);
  EXPECT_EQ(op.addr, 0xff110008a5398920u);
  EXPECT_TRUE(op.phys_valid);
  EXPECT_EQ(op.phys, 0x00000008a5398920u);
  const MemSource s = decode_data_src(op.data_src);
  EXPECT_EQ(s.op, MemOp::Store) << "StOp 1";
  EXPECT_STREQ(mem_level_name(s.level), mem_level_name(MemLevel::NotAvailable));
  EXPECT_FALSE(s.remote) << "RmtNode is a load's only";
  EXPECT_EQ(s.tlb, TlbState::Hit) << "DcL1TlbMiss 0";
  EXPECT_FALSE((r.op_ctl >> 16) & 1) << "L3MissOnly 0";
}

// What the runtime asks of the ibs_op PMU for -e ibs-op:l3miss sets the bit of IbsOpCtl that perf
// decoded as L3MissOnly in the Zen 4 dump above (the kernel writes the event's config to the MSR).
TEST(PerfOracles, L3MissOnlyIsTheBitPerfDecodes) {
  PlanRequest req;
  req.l3miss = true;
  EventPlan plan;
  ASSERT_TRUE(plan_ibs_op(HPCL_MACHINES_DIR "/zen4", req, &plan)) << plan.reason;
  EXPECT_EQ((plan.ev[0].attr.config >> 16) & 1, 1u);
  req.l3miss = false;
  ASSERT_TRUE(plan_ibs_op(HPCL_MACHINES_DIR "/zen4", req, &plan)) << plan.reason;
  EXPECT_EQ((plan.ev[0].attr.config >> 16) & 1, 0u);
}

}  // namespace
