// IBS op decoding against the kernel's, independently of the decoder's own bit positions:
//  - the registers are built through bit-field structs laid out from AMD's field list (PPR for
//    family 19h, as the kernel's asm/amd-ibs.h lists it: IbsOpData3 ld_op:1, st_op:1,
//    dc_l1tlb_miss:1, dc_l2tlb_miss:1, ..., dc_miss:1 at bit 7, ...), so the compiler, not our
//    constants, places each field;
//  - the expected perf_mem_data_src is built through the kernel's own union perf_mem_data_src
//    (linux/perf_event.h) from the decisions of arch/x86/events/amd/ibs.c
//    (perf_ibs_parse_ld_st_data: its g_data_src / g_zen4_data_src tables, erratum 1293, the
//    CacheHitSt validity by model, RmtNode only for memory);
//  - a record the kernel decoded (Linux 6.1: ADDR, WEIGHT, DATA_SRC beside RAW) and the same op
//    from an older kernel (RAW only) must give the same sample.
#include "sources/ibs/ibs_decode.h"

#include <gtest/gtest.h>

#include "../hw/record_builder.h"
#include "sources/hw/hw_sample.h"
#include "sources/hw/sample_record.h"

using namespace hpcrun;

namespace {

// AMD's field lists, in register order (low bits first).
struct OpCtl {
  uint64_t maxcnt : 16, l3_miss_only : 1, op_en : 1, op_val : 1, cnt_ctl : 1, maxcnt_ext : 7,
      reserved0 : 5, curcnt : 27, reserved1 : 5;
};
struct OpData {
  uint64_t comp_to_ret : 16, tag_to_ret : 16, reserved1 : 2, op_return : 1, brn_taken : 1,
      brn_misp : 1, brn_ret : 1, rip_invalid : 1, brn_fuse : 1, microcode : 1, reserved2 : 23;
};
struct OpData2 {
  uint64_t data_src_lo : 3, reserved0 : 1, rmt_node : 1, cache_hit_st : 1, data_src_hi : 2,
      reserved1 : 56;
};
struct OpData3 {
  uint64_t ld_op : 1, st_op : 1, l1tlb_miss : 1, l2tlb_miss : 1, l1tlb_hit_2m : 1, l1tlb_hit_1g : 1,
      l2tlb_hit_2m : 1, dc_miss : 1, mis_acc : 1, reserved : 4, wc_mem_acc : 1, uc_mem_acc : 1,
      locked_op : 1, miss_no_mab_alloc : 1, lin_addr_valid : 1, phy_addr_valid : 1,
      l2_tlb_hit_1g : 1, l2_miss : 1, sw_pf : 1, op_mem_width : 4, open_mem_reqs : 6,
      dc_miss_lat : 16, tlb_refill_lat : 16;
};
static_assert(sizeof(OpData3) == 8 && sizeof(OpData2) == 8 && sizeof(OpCtl) == 8 && sizeof(OpData) == 8);

template <class T>
uint64_t u64(const T& t) {
  uint64_t v;
  memcpy(&v, &t, 8);
  return v;
}

constexpr uint32_t kZen4Caps = 0x7ff | (1u << 11);  // every capability through IBS_CAPS_ZEN4
constexpr uint32_t kZen2Caps = 0x7f;                 // through OPCNTEXT, no OPDATA4, not Zen 4

struct Op {
  uint32_t caps = kZen4Caps;
  OpCtl ctl{};
  OpData data{};
  OpData2 data2{};
  OpData3 data3{};
  uint64_t rip = 0x401500, lin = 0x7f00deadbee0, phys = 0x1234560;
  Op() { ctl.op_val = 1; }
  IbsOpRegs regs() const {
    IbsOpRegs r;
    r.caps = caps;
    r.op_ctl = u64(ctl);
    r.op_rip = rip;
    r.op_data = u64(data);
    r.op_data2 = u64(data2);
    r.op_data3 = u64(data3);
    r.dc_lin_addr = lin;
    r.dc_phys_addr = phys;
    return r;
  }
  // The RAW payload as the driver writes it: caps, then the seven registers, then IbsBrTarget
  // and IbsOpData4 when the caps have them.
  std::vector<uint8_t> raw() const {
    RecordBuilder b;
    b.put(caps).put(u64(ctl)).put(rip).put(u64(data)).put(u64(data2)).put(u64(data3)).put(lin).put(phys);
    if (caps & kIbsCapsBrnTrgt) b.put(uint64_t(0x401600));
    if (caps & kIbsCapsOpData4) b.put(uint64_t(0));
    return std::vector<uint8_t>(b.bytes.begin() + sizeof(perf_event_header), b.bytes.end());
  }
};

// A load that missed L1 and L2, its DataSrc `src` (five bits on Zen 4).
Op missed_load(unsigned src, bool remote_node = false, bool hit_st = true) {
  Op o;
  o.data3.ld_op = 1;
  o.data3.dc_miss = 1;
  o.data3.l2_miss = 1;
  o.data3.lin_addr_valid = 1;
  o.data3.dc_miss_lat = 312;
  o.data2.data_src_lo = src & 7;
  o.data2.data_src_hi = src >> 3;
  o.data2.rmt_node = remote_node;
  o.data2.cache_hit_st = hit_st;
  return o;
}

// A load that hit L1, its address and TLB entry valid.
Op l1tlb_load() {
  Op o;
  o.data3.ld_op = 1;
  o.data3.lin_addr_valid = 1;
  return o;
}

// The expected word, field by field, as the kernel fills it.
struct Want {
  perf_mem_data_src d;
  Want() { d.val = 0; d.mem_op = PERF_MEM_OP_LOAD; d.mem_snoop = PERF_MEM_SNOOP_NA;
           d.mem_lock = PERF_MEM_LOCK_NA; d.mem_dtlb = PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT; }
  Want& lvl(uint64_t v) { d.mem_lvl = v; return *this; }
  Want& num(uint64_t v) { d.mem_lvl_num = v; return *this; }
  Want& remote() { d.mem_remote = PERF_MEM_REMOTE_REMOTE; return *this; }
  Want& hops(uint64_t h) { d.mem_hops = h; return *this; }
  Want& hitm() { d.mem_snoop = PERF_MEM_SNOOP_HITM; return *this; }
};

// Genoa (family 19h model 11h): CacheHitSt valid, no erratum 1293.
constexpr uint32_t kFam = 0x19, kGenoa = 0x11;

struct Case {
  const char* what;
  Op op;
  uint64_t want;
  MemLevel level;
};

}  // namespace

TEST(IbsDecode, DataSourcesAsTheKernelEncodesThem) {
  constexpr uint64_t H = PERF_MEM_LVL_HIT;
  Op l1 = l1tlb_load();
  Op l2 = missed_load(0);
  l2.data3.l2_miss = 0;
  Op io_uc = missed_load(7);
  io_uc.data3.uc_mem_acc = 1;  // an uncached I/O access is I/O
  Op uc = missed_load(3);
  uc.data3.uc_mem_acc = 1;
  Op peer_mab = missed_load(12);  // another agent's memory: no encoding; the MAB decides
  peer_mab.data3.miss_no_mab_alloc = 1;
  const Case cases[] = {
      {"L1 hit", l1, Want().lvl(PERF_MEM_LVL_L1 | H).num(PERF_MEM_LVLNUM_L1).d.val, MemLevel::L1},
      {"L2 hit", l2, Want().lvl(PERF_MEM_LVL_L2 | H).num(PERF_MEM_LVLNUM_L2).d.val, MemLevel::L2},
      {"zen4 local L3, line Modified", missed_load(1, false, false),
       Want().lvl(PERF_MEM_LVL_L3 | H).num(PERF_MEM_LVLNUM_L3).hitm().d.val, MemLevel::L3},
      {"zen4 local L3, RmtNode set (it applies to memory only)", missed_load(1, true),
       Want().lvl(PERF_MEM_LVL_L3 | H).num(PERF_MEM_LVLNUM_L3).d.val, MemLevel::L3},
      {"zen4 near CCX cache", missed_load(2),
       Want().lvl(PERF_MEM_LVL_REM_CCE1 | H).num(PERF_MEM_LVLNUM_ANY_CACHE).remote().hops(PERF_MEM_HOPS_0).d.val,
       MemLevel::RemoteCache},
      {"zen4 far CCX cache", missed_load(5),
       Want().lvl(PERF_MEM_LVL_REM_CCE2 | H).num(PERF_MEM_LVLNUM_ANY_CACHE).remote().hops(PERF_MEM_HOPS_1).d.val,
       MemLevel::RemoteCache},
      {"zen4 local DRAM", missed_load(3), Want().lvl(PERF_MEM_LVL_LOC_RAM | H).num(PERF_MEM_LVLNUM_RAM).d.val,
       MemLevel::LocalDram},
      {"zen4 DRAM of another node", missed_load(3, true),
       Want().lvl(PERF_MEM_LVL_REM_RAM1 | H).num(PERF_MEM_LVLNUM_RAM).remote().hops(PERF_MEM_HOPS_1).d.val,
       MemLevel::RemoteDram},
      {"zen4 PMEM of another node", missed_load(6, true),
       Want().num(PERF_MEM_LVLNUM_PMEM).remote().hops(PERF_MEM_HOPS_1).d.val, MemLevel::Pmem},
      {"zen4 extension memory", missed_load(8), Want().num(PERF_MEM_LVLNUM_CXL).d.val, MemLevel::Cxl},
      {"zen4 I/O, uncached", io_uc, Want().lvl(PERF_MEM_LVL_IO | H).num(PERF_MEM_LVLNUM_IO).d.val, MemLevel::Io},
      {"uncached", uc, Want().lvl(PERF_MEM_LVL_UNC | H).num(0x08).d.val, MemLevel::Uncached},
      {"zen4 peer agent memory through the MAB", peer_mab,
       Want().lvl(PERF_MEM_LVL_LFB | H).num(PERF_MEM_LVLNUM_LFB).d.val, MemLevel::FillBuffer},
      {"zen4 no DataSrc", missed_load(0), Want().lvl(PERF_MEM_LVL_NA).num(PERF_MEM_LVLNUM_NA).d.val,
       MemLevel::NotAvailable},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    IbsOp op = decode_ibs_op(c.op.regs(), kFam, kGenoa);
    EXPECT_TRUE(op.valid);
    EXPECT_EQ(op.data_src, c.want) << std::hex << op.data_src << " != " << c.want;
    EXPECT_EQ(int(decode_data_src(op.data_src).level), int(c.level));
    EXPECT_EQ(op.addr, 0x7f00deadbee0u);
    // WEIGHT: the miss latency of a load that missed the data cache.
    EXPECT_EQ(op.latency, c.op.data3.dc_miss ? 312u : 0u);
  }
}

TEST(IbsDecode, BeforeZen4ThreeBitsAndTheirEncodings) {
  constexpr uint64_t H = PERF_MEM_LVL_HIT;
  // Rome (family 17h model 31h): CacheHitSt valid.
  Op local = missed_load(2, false, false);
  local.caps = kZen2Caps;
  IbsOp op = decode_ibs_op(local.regs(), 0x17, 0x31);
  EXPECT_EQ(op.data_src, Want().lvl(PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1 | H)
                             .num(PERF_MEM_LVLNUM_ANY_CACHE).hops(PERF_MEM_HOPS_0).hitm().d.val);
  MemSource s = decode_data_src(op.data_src);
  EXPECT_EQ(s.level, MemLevel::L3);  // the CCX's own L3 (or a sibling core's cache in it)
  EXPECT_TRUE(s.hitm);
  Op remote = missed_load(4);
  remote.caps = kZen2Caps;
  op = decode_ibs_op(remote.regs(), 0x17, 0x31);
  EXPECT_EQ(op.data_src, Want().lvl(PERF_MEM_LVL_REM_CCE2 | H).num(PERF_MEM_LVLNUM_ANY_CACHE)
                             .remote().hops(PERF_MEM_HOPS_1).d.val);
  // The high DataSrc bits are Zen 4's: before it they are not read.
  Op hi = missed_load(3 | 8, true);
  hi.caps = kZen2Caps;
  op = decode_ibs_op(hi.regs(), 0x17, 0x31);
  EXPECT_EQ(decode_data_src(op.data_src).level, MemLevel::RemoteDram);
}

TEST(IbsDecode, ErratumAndCacheHitStateByModel) {
  // Milan (family 19h model 01h), erratum 1293: a software prefetch's "L2 hit" is not one and
  // its IbsOpData2 is invalid: no level, no snoop.
  Op pf = missed_load(3, false, false);
  pf.data3.l2_miss = 0;
  pf.data3.sw_pf = 1;
  IbsOp op = decode_ibs_op(pf.regs(), 0x19, 0x01);
  EXPECT_EQ(op.data_src, Want().lvl(PERF_MEM_LVL_NA).num(PERF_MEM_LVLNUM_NA).d.val);
  // Genoa reads the same registers as an L2 hit.
  EXPECT_EQ(decode_data_src(decode_ibs_op(pf.regs(), kFam, kGenoa).data_src).level, MemLevel::L2);
  // CacheHitSt is not valid on family 19h models 0-0Fh and 20h-5Fh: no HITM there.
  Op m = missed_load(1, false, false);
  for (uint32_t model : {0x01u, 0x21u, 0x5fu}) {
    SCOPED_TRACE(model);
    EXPECT_FALSE(decode_data_src(decode_ibs_op(m.regs(), kFam, model).data_src).hitm);
  }
  EXPECT_TRUE(decode_data_src(decode_ibs_op(m.regs(), kFam, 0x60).data_src).hitm);
  // CacheHitSt 1 is the Owned state: a line another cache shared, not a HITM.
  EXPECT_FALSE(decode_data_src(decode_ibs_op(missed_load(1, false, true).regs(), kFam, kGenoa).data_src).hitm);
}

TEST(IbsDecode, StoresTlbLockAndWhatIsNotAnAccess) {
  Op st;
  st.data3.st_op = 1;
  st.data3.dc_miss = 1;
  st.data3.l2_miss = 1;
  st.data3.miss_no_mab_alloc = 1;  // stores have no DataSrc: the MAB decides
  st.data3.lin_addr_valid = 1;
  st.data3.l1tlb_miss = 1;
  st.data3.l2tlb_miss = 1;
  st.data3.locked_op = 1;
  st.data3.dc_miss_lat = 77;  // a load's only
  st.data2.data_src_lo = 3;
  IbsOp op = decode_ibs_op(st.regs(), kFam, kGenoa);
  perf_mem_data_src want;
  want.val = 0;
  want.mem_op = PERF_MEM_OP_STORE;
  want.mem_lvl = PERF_MEM_LVL_LFB | PERF_MEM_LVL_HIT;
  want.mem_lvl_num = PERF_MEM_LVLNUM_LFB;
  want.mem_snoop = PERF_MEM_SNOOP_NA;
  want.mem_dtlb = PERF_MEM_TLB_L2 | PERF_MEM_TLB_MISS;
  want.mem_lock = PERF_MEM_LOCK_LOCKED;
  EXPECT_EQ(op.data_src, want.val);
  EXPECT_EQ(op.latency, 0u);
  MemSource s = decode_data_src(op.data_src);
  EXPECT_EQ(s.op, MemOp::Store);
  EXPECT_EQ(s.tlb, TlbState::Miss);
  EXPECT_TRUE(s.locked);

  Op l2tlb;  // L1 TLB missed, L2 TLB hit
  l2tlb.data3.ld_op = 1;
  l2tlb.data3.lin_addr_valid = 1;
  l2tlb.data3.l1tlb_miss = 1;
  EXPECT_EQ(decode_data_src(decode_ibs_op(l2tlb.regs(), kFam, kGenoa).data_src).tlb, TlbState::Hit);

  Op branch;  // neither load nor store: PERF_MEM_NA, no address
  branch.data3.lin_addr_valid = 0;
  op = decode_ibs_op(branch.regs(), kFam, kGenoa);
  EXPECT_EQ(op.data_src, kPerfMemNa);
  EXPECT_FALSE(op.addr_valid);
  Op invalid;
  invalid.ctl.op_val = 0;
  EXPECT_FALSE(decode_ibs_op(invalid.regs(), kFam, kGenoa).valid);
  Op norip = l1tlb_load();
  norip.data.rip_invalid = 1;
  EXPECT_FALSE(decode_ibs_op(norip.regs(), kFam, kGenoa).rip_valid);
}

TEST(IbsDecode, OptionalRegistersAndTruncation) {
  Op o;
  o.caps = kZen4Caps;  // BRNTRGT and OPDATA4: nine registers
  auto raw = o.raw();
  ASSERT_EQ(raw.size(), 4u + 9 * 8);
  IbsOpRegs regs;
  ASSERT_EQ(read_ibs_op_regs(raw.data(), uint32_t(raw.size()), &regs), IbsParse::Ok);
  EXPECT_EQ(regs.br_target, 0x401600u);
  EXPECT_EQ(regs.op_rip, 0x401500u);
  EXPECT_EQ(read_ibs_op_regs(raw.data(), uint32_t(raw.size() - 8), &regs), IbsParse::Truncated);
  EXPECT_EQ(read_ibs_op_regs(raw.data(), 20, &regs), IbsParse::Truncated);
}

namespace {

// One IBS record with RAW, and, from a kernel that decodes IBS, the fields it fills.
std::vector<uint8_t> record(const Op& o, bool kernel_decodes, uint64_t data_src, uint64_t* st) {
  auto raw = o.raw();
  *st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
        PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC;
  RecordBuilder b;
  b.put<uint64_t>(o.rip)  // the kernel reports the tagged op's RIP when it is valid
      .put<uint32_t>(7).put<uint32_t>(8)
      .put<uint64_t>(99)
      .put<uint64_t>(kernel_decodes && o.data3.lin_addr_valid ? o.lin : 0)
      .put<uint32_t>(1).put<uint32_t>(0);
  // RAW: u32 size, then the payload, padded so the record stays 8-byte aligned.
  std::vector<uint8_t> padded = raw;
  padded.resize(((raw.size() + 4 + 7) & ~size_t(7)) - 4);
  b.put<uint32_t>(uint32_t(padded.size())).put_bytes(padded.data(), padded.size());
  uint64_t weight = 0;
  if (kernel_decodes && o.data3.ld_op && o.data3.dc_miss)
    weight = uint64_t(o.data3.dc_miss_lat) | uint64_t(o.data.tag_to_ret) << 32;
  b.put<uint64_t>(weight).put<uint64_t>(kernel_decodes ? data_src : kPerfMemNa);
  return b.finish();
}

}  // namespace

TEST(IbsDecode, KernelDecodedAndRawRecordsGiveTheSameSample) {
  const Op ops[] = {missed_load(3, true), missed_load(1, false, false), missed_load(6), l1tlb_load()};
  for (const Op& o : ops) {
    // What a kernel that decodes IBS writes is what the raw decoder computes: the cases above
    // pin the latter to the kernel's table.
    const uint64_t kernel_src = decode_ibs_op(o.regs(), kFam, kGenoa).data_src;
    uint64_t st;
    auto a = record(o, true, kernel_src, &st), b = record(o, false, 0, &st);
    PerfSample sa, sb;
    ASSERT_EQ(parse_sample(st, a.data(), a.size(), &sa), SampleParse::Ok);
    ASSERT_EQ(parse_sample(st, b.data(), b.size(), &sb), SampleParse::Ok);
    HwSample ha, hb;
    ASSERT_EQ(hw_sample_from_ibs(sa, kFam, kGenoa, &ha), HwSampleResult::Ok);
    ASSERT_EQ(hw_sample_from_ibs(sb, kFam, kGenoa, &hb), HwSampleResult::Ok);
    EXPECT_EQ(ha.ip, hb.ip);
    EXPECT_EQ(ha.addr, hb.addr);
    EXPECT_EQ(ha.addr_valid, hb.addr_valid);
    EXPECT_EQ(ha.latency, hb.latency);
    EXPECT_EQ(ha.dc_miss, hb.dc_miss);
    EXPECT_EQ(ha.source.level, hb.source.level);
    EXPECT_EQ(ha.source.hitm, hb.source.hitm);
    EXPECT_EQ(ha.source.tlb, hb.source.tlb);
    EXPECT_EQ(ha.tid, 8u);
  }
  // The kernel's answer wins where the two differ: it is what the record says.
  Op o = missed_load(3);
  perf_mem_data_src l3;
  l3.val = 0;
  l3.mem_op = PERF_MEM_OP_LOAD;
  l3.mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT;
  l3.mem_lvl_num = PERF_MEM_LVLNUM_L3;
  uint64_t st;
  auto rec = record(o, true, l3.val, &st);
  PerfSample s;
  ASSERT_EQ(parse_sample(st, rec.data(), rec.size(), &s), SampleParse::Ok);
  HwSample h;
  ASSERT_EQ(hw_sample_from_ibs(s, kFam, kGenoa, &h), HwSampleResult::Ok);
  EXPECT_EQ(h.source.level, MemLevel::L3);
  // An op in the kernel, and an invalid one, are not samples of the program.
  o.rip = 0xffffffff81000000;
  rec = record(o, false, 0, &st);
  ASSERT_EQ(parse_sample(st, rec.data(), rec.size(), &s), SampleParse::Ok);
  EXPECT_EQ(hw_sample_from_ibs(s, kFam, kGenoa, &h), HwSampleResult::KernelMode);
  o.ctl.op_val = 0;
  rec = record(o, false, 0, &st);
  ASSERT_EQ(parse_sample(st, rec.data(), rec.size(), &s), SampleParse::Ok);
  EXPECT_EQ(hw_sample_from_ibs(s, kFam, kGenoa, &h), HwSampleResult::NotValid);
}
