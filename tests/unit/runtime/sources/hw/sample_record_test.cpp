// PERF_RECORD_SAMPLE parsing on records laid out field by field in the kernel's order.
#include "sources/hw/sample_record.h"

#include <gtest/gtest.h>

#include "record_builder.h"
#include "sources/hw/hw_sample.h"

using namespace hpcrun;

namespace {

constexpr uint64_t kPebsType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                               PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT_STRUCT |
                               PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
constexpr uint64_t kDramLoad = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, LOC_RAM) |
                               PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVLNUM, RAM);

std::vector<uint8_t> pebs_record() {
  RecordBuilder b;
  b.put<uint64_t>(0x401234)                   // IP
      .put<uint32_t>(100).put<uint32_t>(101)  // TID: pid, tid
      .put<uint64_t>(555)                     // TIME
      .put<uint64_t>(0x7f0000001000)          // ADDR
      .put<uint32_t>(1).put<uint32_t>(0)      // CPU, reserved
      .put<uint32_t>(187).put<uint16_t>(9).put<uint16_t>(0)  // WEIGHT_STRUCT
      .put<uint64_t>(kDramLoad)               // DATA_SRC
      .put<uint64_t>(0x12345000);             // PHYS_ADDR
  return b.finish();
}

}  // namespace

TEST(SampleRecord, PebsFieldsInKernelOrder) {
  auto r = pebs_record();
  PerfSample s;
  ASSERT_EQ(parse_sample(kPebsType, r.data(), r.size(), &s), SampleParse::Ok);
  EXPECT_EQ(s.ip, 0x401234u);
  EXPECT_EQ(s.pid, 100u);
  EXPECT_EQ(s.tid, 101u);
  EXPECT_EQ(s.time, 555u);
  EXPECT_EQ(s.addr, 0x7f0000001000u);
  EXPECT_EQ(s.cpu, 1u);
  EXPECT_EQ(s.weight_var1, 187u);
  EXPECT_EQ(s.weight_var2, 9u);
  EXPECT_EQ(s.data_src, kDramLoad);
  EXPECT_EQ(s.phys_addr, 0x12345000u);

  HwSample h;
  ASSERT_EQ(hw_sample_from_pebs(s, &h), HwSampleResult::Ok);
  EXPECT_EQ(h.latency, 187u);
  EXPECT_TRUE(h.addr_valid);
  EXPECT_EQ(h.source.level, MemLevel::LocalDram);
  EXPECT_EQ(h.tid, 101u);
}

TEST(SampleRecord, U64WeightOfOlderKernels) {
  RecordBuilder b;
  b.put<uint64_t>(0x401000).put<uint64_t>(0).put<uint64_t>(42).put<uint64_t>(0);
  auto r = b.finish();
  const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
  PerfSample s;
  ASSERT_EQ(parse_sample(st, r.data(), r.size(), &s), SampleParse::Ok);
  HwSample h;
  hw_sample_from_pebs(s, &h);
  EXPECT_EQ(h.latency, 42u);
  EXPECT_FALSE(h.addr_valid);  // address 0: the hardware gave none
}

TEST(SampleRecord, EveryFixedFieldAndTheVariableOnes) {
  const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_STREAM_ID |
                      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
                      PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
                      PERF_SAMPLE_CODE_PAGE_SIZE;
  const uint8_t raw[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  RecordBuilder b;
  b.put<uint64_t>(77).put<uint64_t>(0x400000).put<uint64_t>(88).put<uint64_t>(1000)
      .put<uint64_t>(2).put<uint64_t>(0xaaa).put<uint64_t>(0xbbb)  // callchain
      .put<uint32_t>(12).put_bytes(raw, 12)                        // raw: 4 + 12 = 16, aligned
      .put<uint64_t>(3).put<uint64_t>(4).put<uint64_t>(4096).put<uint64_t>(2u << 20);
  auto r = b.finish();
  PerfSample s;
  ASSERT_EQ(parse_sample(st, r.data(), r.size(), &s), SampleParse::Ok);
  EXPECT_EQ(s.id, 77u);
  EXPECT_EQ(s.stream_id, 88u);
  EXPECT_EQ(s.period, 1000u);
  ASSERT_EQ(s.callchain_nr, 2u);
  uint64_t second;
  memcpy(&second, s.callchain + 8, 8);
  EXPECT_EQ(second, 0xbbbu);
  ASSERT_EQ(s.raw_size, 12u);
  EXPECT_EQ(s.raw[11], 12);
  EXPECT_EQ(s.transaction, 3u);
  EXPECT_EQ(s.cgroup, 4u);
  EXPECT_EQ(s.data_page_size, 4096u);
  EXPECT_EQ(s.code_page_size, 2u << 20);
}

TEST(SampleRecord, TruncatedRecordsAreRejected) {
  auto r = pebs_record();
  PerfSample s;
  // Fewer bytes than the header says.
  EXPECT_EQ(parse_sample(kPebsType, r.data(), r.size() - 1, &s), SampleParse::Truncated);
  EXPECT_EQ(parse_sample(kPebsType, r.data(), 4, &s), SampleParse::Truncated);
  // A header whose size stops before the last field sample_type names.
  auto shortr = r;
  perf_event_header h;
  memcpy(&h, shortr.data(), sizeof h);
  h.size = uint16_t(h.size - 8);
  memcpy(shortr.data(), &h, sizeof h);
  EXPECT_EQ(parse_sample(kPebsType, shortr.data(), shortr.size(), &s), SampleParse::Truncated);
  // A callchain count that would run far past the record (and wrap if multiplied).
  RecordBuilder b;
  b.put<uint64_t>(~0ull / 4).put<uint64_t>(1);
  auto cc = b.finish();
  EXPECT_EQ(parse_sample(PERF_SAMPLE_CALLCHAIN, cc.data(), cc.size(), &s), SampleParse::Truncated);
  // A raw size past the end.
  RecordBuilder rb;
  rb.put<uint32_t>(64).put<uint32_t>(0);
  auto rr = rb.finish();
  EXPECT_EQ(parse_sample(PERF_SAMPLE_RAW, rr.data(), rr.size(), &s), SampleParse::Truncated);
}

TEST(SampleRecord, OtherRecordsAndUnreadableLayouts) {
  auto r = RecordBuilder().put<uint64_t>(1).finish(PERF_RECORD_LOST);
  PerfSample s;
  EXPECT_EQ(parse_sample(PERF_SAMPLE_IP, r.data(), r.size(), &s), SampleParse::NotASample);
  auto ok = RecordBuilder().put<uint64_t>(1).finish();
  EXPECT_EQ(parse_sample(PERF_SAMPLE_IP | PERF_SAMPLE_READ, ok.data(), ok.size(), &s),
            SampleParse::Unsupported);
  EXPECT_EQ(parse_sample(PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER, ok.data(), ok.size(), &s),
            SampleParse::Unsupported);
  EXPECT_STREQ(sample_parse_name(SampleParse::Truncated), "truncated sample record");
}
