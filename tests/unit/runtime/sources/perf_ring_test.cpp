// The perf ring reader on synthetic record streams laid out as the kernel writes them: records
// split across the end of the data area, PERF_RECORD_LOST and THROTTLE counted, an incomplete
// record left for the next drain, a zero-size header stopping the drain; and the page-fault
// source's record parser and attribute (through the perf_open hook, no event opened).
#include "sources/perf_ring.h"
#include "sources/page_faults/fault_record.h"
#include "hpcrun/probe/perf_event.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace hpcrun;

namespace {

// A ring over plain memory: one fake metadata page, `size` data bytes. The writer side plays the
// kernel: it appends records at data_head, wrapping at the end.
struct FakeRing {
  alignas(64) perf_event_mmap_page meta{};
  std::vector<uint8_t> data;
  PerfRing ring;
  explicit FakeRing(size_t size) : data(size) {
    ring.meta = &meta;
    ring.data = data.data();
    ring.data_size = size;
  }
  void put(const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
      data[(meta.data_head + i) % data.size()] = static_cast<const uint8_t*>(p)[i];
    meta.data_head += n;
  }
  void record(uint32_t type, const std::vector<uint64_t>& body) {
    perf_event_header h{type, 0, uint16_t(sizeof h + body.size() * 8)};
    put(&h, sizeof h);
    put(body.data(), body.size() * 8);
  }
  // A fault record for kFaultSampleType: ip, pid|tid, time, addr, cpu.
  void fault(uint64_t ip, uint64_t addr, uint32_t tid = 7, uint32_t cpu = 1) {
    record(PERF_RECORD_SAMPLE, {ip, uint64_t(tid) << 32 | 42, 1000, addr, cpu});
  }
};

struct Seen {
  std::vector<FaultRecord> faults;
};

void collect(const uint8_t* body, size_t size, void* ctx) {
  FaultRecord r;
  ASSERT_TRUE(parse_fault_record(body, size, &r));
  static_cast<Seen*>(ctx)->faults.push_back(r);
}

}  // namespace

TEST(PerfRing, ReadsRecordsAndAdvancesTheTail) {
  FakeRing f(256);
  f.fault(0x401000, 0x7f0000001000);
  f.fault(0x401004, 0x7f0000002000, 8, 0);
  Seen seen;
  RingCounts c;
  EXPECT_EQ(perf_ring_drain(&f.ring, collect, &seen, &c), 2u);
  ASSERT_EQ(seen.faults.size(), 2u);
  EXPECT_EQ(seen.faults[0].ip, 0x401000u);
  EXPECT_EQ(seen.faults[0].addr, 0x7f0000001000u);
  EXPECT_EQ(seen.faults[0].tid, 7u);
  EXPECT_EQ(seen.faults[0].pid, 42u);
  EXPECT_EQ(seen.faults[0].cpu, 1u);
  EXPECT_EQ(seen.faults[1].tid, 8u);
  EXPECT_EQ(c.records, 2u);
  EXPECT_EQ(f.meta.data_tail, f.meta.data_head);
  EXPECT_EQ(perf_ring_drain(&f.ring, collect, &seen, &c), 0u) << "nothing new";
}

TEST(PerfRing, RecordSplitAcrossTheEndIsReadWhole) {
  FakeRing f(128);  // a fault record is 48 bytes: the third wraps
  Seen seen;
  RingCounts c;
  for (int round = 0; round < 20; ++round) {  // every offset of the wrap comes by
    f.fault(0x1000 + round, 0xa000 + uint64_t(round) * 4096);
    f.fault(0x2000 + round, 0xb000);
    perf_ring_drain(&f.ring, collect, &seen, &c);
  }
  ASSERT_EQ(seen.faults.size(), 40u);
  for (int round = 0; round < 20; ++round) {
    EXPECT_EQ(seen.faults[size_t(round) * 2].ip, 0x1000u + unsigned(round));
    EXPECT_EQ(seen.faults[size_t(round) * 2].addr, 0xa000u + uint64_t(round) * 4096);
    EXPECT_EQ(seen.faults[size_t(round) * 2 + 1].addr, 0xb000u);
  }
  EXPECT_EQ(c.malformed, 0u);
}

TEST(PerfRing, CountsLostAndThrottle) {
  FakeRing f(512);
  f.fault(1, 2);
  f.record(PERF_RECORD_LOST, {99, 17});  // id, lost
  f.record(PERF_RECORD_THROTTLE, {5, 6, 7});
  f.record(PERF_RECORD_UNTHROTTLE, {5, 6, 7});
  f.record(PERF_RECORD_LOST, {99, 3});
  f.fault(3, 4);
  Seen seen;
  RingCounts c;
  EXPECT_EQ(perf_ring_drain(&f.ring, collect, &seen, &c), 6u);
  EXPECT_EQ(c.records, 2u);
  EXPECT_EQ(c.lost, 20u);
  EXPECT_EQ(c.throttled, 1u);
  EXPECT_EQ(seen.faults.size(), 2u);
}

TEST(PerfRing, IncompleteRecordWaitsForTheNextDrain) {
  FakeRing f(256);
  f.fault(1, 2);
  // The kernel has moved data_head past the header of a record whose body is not all there.
  perf_event_header h{PERF_RECORD_SAMPLE, 0, 48};
  f.put(&h, sizeof h);
  Seen seen;
  RingCounts c;
  EXPECT_EQ(perf_ring_drain(&f.ring, collect, &seen, &c), 1u);
  const uint64_t tail = f.meta.data_tail;
  EXPECT_EQ(tail, 48u);
  uint64_t rest[5] = {0x55, 9ull << 32, 1, 0x66, 0};
  f.put(rest, sizeof rest);
  EXPECT_EQ(perf_ring_drain(&f.ring, collect, &seen, &c), 1u);
  ASSERT_EQ(seen.faults.size(), 2u);
  EXPECT_EQ(seen.faults[1].ip, 0x55u);
  EXPECT_EQ(seen.faults[1].addr, 0x66u);
}

TEST(PerfRing, ZeroSizeHeaderEndsTheDrainAsMalformed) {
  FakeRing f(256);
  f.fault(1, 2);
  perf_event_header h{PERF_RECORD_SAMPLE, 0, 0};
  f.put(&h, sizeof h);
  f.fault(3, 4);  // unreachable: nothing says where it starts
  Seen seen;
  RingCounts c;
  perf_ring_drain(&f.ring, collect, &seen, &c);
  EXPECT_EQ(seen.faults.size(), 1u);
  EXPECT_EQ(c.malformed, 1u);
  EXPECT_EQ(f.meta.data_tail, f.meta.data_head) << "the reader must not stay stuck on it";
}

TEST(PerfRing, OversizedRecordIsSkipped) {
  FakeRing f(2048);
  f.record(PERF_RECORD_SAMPLE, std::vector<uint64_t>(kMaxRingRecord / 8 + 4, 0));
  f.fault(5, 6);
  Seen seen;
  RingCounts c;
  EXPECT_EQ(perf_ring_drain(&f.ring, collect, &seen, &c), 2u);
  EXPECT_EQ(c.malformed, 1u);
  ASSERT_EQ(seen.faults.size(), 1u);
  EXPECT_EQ(seen.faults[0].ip, 5u);
}

TEST(FaultRecord, ShortBodyIsRefused) {
  uint8_t body[kFaultRecordBody - 1] = {};
  FaultRecord r;
  EXPECT_FALSE(parse_fault_record(body, sizeof body, &r));
}

namespace {
perf_event_attr g_attr;
int capture(const perf_event_attr& a, pid_t, int, int, unsigned long) {
  g_attr = a;
  return -ENOENT;
}
}  // namespace

TEST(FaultRecord, AttributeAsksForTheDataAddressUserModeAndAWatermark) {
  set_perf_open_hook(capture);
  EXPECT_EQ(perf_open(page_fault_attr(1, 16384), 0, -1, -1, 0), -ENOENT);
  set_perf_open_hook(nullptr);
  EXPECT_EQ(g_attr.type, uint32_t(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(g_attr.config, uint64_t(PERF_COUNT_SW_PAGE_FAULTS));
  EXPECT_EQ(g_attr.sample_period, 1u);
  EXPECT_EQ(g_attr.sample_type, uint64_t(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                         PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU));
  EXPECT_EQ(g_attr.exclude_kernel, 1u);
  EXPECT_EQ(g_attr.disabled, 1u);
  EXPECT_EQ(g_attr.watermark, 1u);
  EXPECT_EQ(g_attr.wakeup_watermark, 16384u);
  EXPECT_EQ(page_fault_attr(0, 1).sample_period, 1u) << "period 0 would never sample";
  EXPECT_EQ(page_fault_attr(64, 1).sample_period, 64u);
}
