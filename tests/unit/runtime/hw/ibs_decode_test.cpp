// IBS op register decoding from raw payloads laid out as the kernel's ibs_op driver writes
// them: u32 caps, then IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2, IbsOpData3, IbsDcLinAd,
// IbsDcPhysAd (then IbsBrTarget, IbsOpData4 when caps say so).
#include "sources/ibs/ibs_decode.h"

#include <gtest/gtest.h>

#include "record_builder.h"
#include "sources/hw/hw_sample.h"

using namespace hpcrun;

namespace {

constexpr uint64_t kOpVal = 1ull << 18;
constexpr uint64_t kLd = 1ull << 0, kSt = 1ull << 1, kL1TlbMiss = 1ull << 2, kL2TlbMiss = 1ull << 3;
constexpr uint64_t kDcMiss = 1ull << 7, kUc = 1ull << 14, kLocked = 1ull << 15, kNoMab = 1ull << 16;
constexpr uint64_t kLinValid = 1ull << 17, kPhysValid = 1ull << 18, kL2Miss = 1ull << 20;
constexpr uint64_t kSwPf = 1ull << 21;
uint64_t miss_lat(uint64_t cycles) { return cycles << 32; }
// IbsOpData2: DataSrc bits 0-2, RmtNode bit 4, CacheHitSt bit 5, DataSrcHi bits 6-7 (Zen 4).
uint64_t data2(unsigned src, bool rmt = false, bool owned = false) {
  return (src & 7) | (uint64_t(rmt) << 4) | (uint64_t(owned) << 5) | (uint64_t((src >> 3) & 3) << 6);
}

struct Regs {
  uint32_t caps = 0xff;  // Zen 2/3: BRNTRGT (bit 5) and OPCNTEXT on, no OPDATA4, not Zen 4
  uint64_t ctl = kOpVal, rip = 0x401500, d1 = 0, d2 = 0, d3 = 0, lin = 0x7f00deadbee0, phys = 0x1234560;
  uint64_t br = 0x401600, d4 = 0;
};

std::vector<uint8_t> raw_of(const Regs& r) {
  RecordBuilder b;  // used here only as a byte buffer; the header part is dropped
  b.put(r.caps).put(r.ctl).put(r.rip).put(r.d1).put(r.d2).put(r.d3).put(r.lin).put(r.phys);
  if (r.caps & kIbsCapsBrnTrgt) b.put(r.br);
  if (r.caps & kIbsCapsOpData4) b.put(r.d4);
  return std::vector<uint8_t>(b.bytes.begin() + sizeof(perf_event_header), b.bytes.end());
}

IbsOp decode(const Regs& r, uint32_t family = 0x19, uint32_t model = 0x10) {
  auto raw = raw_of(r);
  IbsOpRegs regs;
  EXPECT_EQ(read_ibs_op_regs(raw.data(), uint32_t(raw.size()), &regs), IbsParse::Ok);
  return decode_ibs_op(regs, family, model);
}

}  // namespace

TEST(IbsDecode, L1HitLoadWithAddresses) {
  Regs r;
  r.caps &= ~kIbsCapsZen4;
  r.d3 = kLd | kLinValid | kPhysValid;
  IbsOp op = decode(r);
  EXPECT_TRUE(op.valid);
  EXPECT_TRUE(op.load);
  EXPECT_FALSE(op.dc_miss);
  EXPECT_EQ(op.lin_addr, 0x7f00deadbee0u);
  EXPECT_EQ(op.phys_addr, 0x1234560u);
  EXPECT_EQ(op.source.level, MemLevel::L1);
  EXPECT_EQ(op.source.tlb, TlbState::Hit);
  EXPECT_EQ(op.dc_miss_latency, 0u);
}

TEST(IbsDecode, DramMissWithLatencyBeforeZen4) {
  Regs r;
  r.caps &= ~kIbsCapsZen4;
  r.d2 = data2(3);
  r.d3 = kLd | kDcMiss | kL2Miss | kLinValid | kL1TlbMiss | kL2TlbMiss | miss_lat(312);
  IbsOp op = decode(r);
  EXPECT_EQ(op.dc_miss_latency, 312u);
  EXPECT_EQ(op.source.level, MemLevel::LocalDram);
  EXPECT_EQ(op.source.tlb, TlbState::Miss);
  r.d2 = data2(3, /*rmt=*/true);
  op = decode(r);
  EXPECT_EQ(op.source.level, MemLevel::RemoteDram);
  EXPECT_TRUE(op.source.remote);
  r.d2 = data2(4, true, /*owned=*/true);
  op = decode(r);
  EXPECT_EQ(op.source.level, MemLevel::RemoteCache);
  EXPECT_TRUE(op.source.hitm);
  r.d2 = data2(2);
  EXPECT_EQ(decode(r).source.level, MemLevel::L3);
}

TEST(IbsDecode, Zen4ExtendedDataSources) {
  struct { unsigned src; bool rmt; MemLevel level; } cases[] = {
      {1, false, MemLevel::L3},          {2, false, MemLevel::RemoteCache},
      {3, false, MemLevel::LocalDram},   {3, true, MemLevel::RemoteDram},
      {5, true, MemLevel::RemoteCache},  {6, false, MemLevel::Pmem},
      {7, false, MemLevel::Io},          {8, false, MemLevel::Cxl},
      {12, true, MemLevel::RemoteDram},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.src);
    Regs r;
    r.caps |= kIbsCapsZen4;
    r.d2 = data2(c.src, c.rmt);
    r.d3 = kLd | kDcMiss | kL2Miss | kLinValid | miss_lat(100);
    IbsOp op = decode(r);
    EXPECT_EQ(op.data_src, c.src);
    EXPECT_EQ(op.source.level, c.level) << mem_level_name(op.source.level);
  }
  // Without the Zen 4 bit the high bits are not read: 8 (0b01'000) is DataSrc 0.
  Regs r;
  r.caps &= ~kIbsCapsZen4;
  r.d2 = data2(8);
  r.d3 = kLd | kDcMiss | kL2Miss;
  EXPECT_EQ(decode(r).data_src, 0u);
}

TEST(IbsDecode, StoresUncachedLockedFillBufferAndErratum) {
  Regs r;
  r.d3 = kSt | kDcMiss | kLinValid | kLocked;
  IbsOp op = decode(r);
  EXPECT_EQ(op.source.op, MemOp::Store);
  EXPECT_EQ(op.source.level, MemLevel::L2);
  EXPECT_TRUE(op.source.locked);
  EXPECT_EQ(op.dc_miss_latency, 0u);  // stores have no miss latency
  r.d3 = kLd | kUc | kDcMiss;
  EXPECT_EQ(decode(r).source.level, MemLevel::Uncached);
  r.d3 = kLd | kDcMiss | kL2Miss | kNoMab;  // no DataSrc: the miss merged into a pending fill
  EXPECT_EQ(decode(r).source.level, MemLevel::FillBuffer);
  // Erratum 1293 (family 19h models 0-0Fh): "L2 hit" of a software prefetch is not one.
  r.d3 = kLd | kDcMiss | kSwPf;
  EXPECT_EQ(decode(r, 0x19, 0x01).source.level, MemLevel::NotAvailable);
  EXPECT_EQ(decode(r, 0x19, 0x61).source.level, MemLevel::L2);
  // Not a memory op.
  r.d3 = 0;
  EXPECT_EQ(decode(r).source.op, MemOp::NotAvailable);
}

TEST(IbsDecode, OptionalRegistersAndTruncation) {
  Regs r;
  r.caps |= kIbsCapsOpData4;
  r.d4 = 0x55;
  auto raw = raw_of(r);
  IbsOpRegs regs;
  ASSERT_EQ(read_ibs_op_regs(raw.data(), uint32_t(raw.size()), &regs), IbsParse::Ok);
  EXPECT_EQ(regs.br_target, 0x401600u);
  EXPECT_EQ(regs.op_data4, 0x55u);
  EXPECT_EQ(read_ibs_op_regs(raw.data(), uint32_t(raw.size() - 8), &regs), IbsParse::Truncated);
  EXPECT_EQ(read_ibs_op_regs(raw.data(), 20, &regs), IbsParse::Truncated);
}

TEST(IbsDecode, WholeRecordToHwSample) {
  Regs r;
  r.caps = 0;  // no optional registers: 4 + 7*8 = 60 bytes, + the u32 size = 64, aligned
  r.d3 = kLd | kDcMiss | kL2Miss | kLinValid | miss_lat(250);
  r.d2 = data2(3);
  auto raw = raw_of(r);
  RecordBuilder b;
  b.put<uint64_t>(0x401508)                   // IP: the interrupted one, after the tagged op
      .put<uint32_t>(7).put<uint32_t>(8)      // TID
      .put<uint64_t>(99)                      // TIME
      .put<uint32_t>(1).put<uint32_t>(0)      // CPU
      .put<uint32_t>(uint32_t(raw.size())).put_bytes(raw.data(), raw.size());
  auto rec = b.finish();
  const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
  PerfSample s;
  ASSERT_EQ(parse_sample(st, rec.data(), rec.size(), &s), SampleParse::Ok);
  HwSample h;
  ASSERT_EQ(hw_sample_from_ibs(s, 0x17, 0x31, &h), HwSampleResult::Ok);
  EXPECT_EQ(h.ip, 0x401500u);  // IbsOpRip, the tagged op itself
  EXPECT_EQ(h.addr, 0x7f00deadbee0u);
  EXPECT_TRUE(h.addr_valid);
  EXPECT_EQ(h.latency, 250u);
  EXPECT_EQ(h.source.level, MemLevel::LocalDram);
  EXPECT_EQ(h.tid, 8u);

  // An op tagged in the kernel, and an invalid one, are not samples of the program.
  r.rip = 0xffffffff81000000;
  raw = raw_of(r);
  s.raw = raw.data();
  EXPECT_EQ(hw_sample_from_ibs(s, 0x17, 0x31, &h), HwSampleResult::KernelMode);
  r.ctl = 0;
  raw = raw_of(r);
  s.raw = raw.data();
  EXPECT_EQ(hw_sample_from_ibs(s, 0x17, 0x31, &h), HwSampleResult::NotValid);
}
