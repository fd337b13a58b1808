// Version rules of docs/FORMAT.md: any minor of major 1 is read (unknown sections skipped, extra
// bytes at the end of a known section ignored); another major is refused in plain words.
#include <gtest/gtest.h>

#include "test_util.h"

namespace hpcl {
namespace {

TEST(Version, WriterStampsTheLowestMinorThatDescribesTheFile) {
  std::vector<uint8_t> b = encode_profile(test::small_process(), 0);
  EXPECT_EQ(b[8] | b[9] << 8, kMajorVersion);
  EXPECT_EQ(test::minor_of(b), 0) << "nothing of a later minor in it: a 1.0 file";
  Profile db = test::rich_database();
  db.symbols[0].callee = {"make_x", "/src/app.cpp", 3};
  b = encode_profile(db, 0);
  EXPECT_EQ(test::minor_of(b), kMinorCallees);
  b = encode_profile(test::small_process_offsets(), 0);
  EXPECT_EQ(test::minor_of(b), kMinorOffsets);
  Profile balanced = test::rich_database();
  balanced.balance.rank_groups = 1;
  balanced.balance.thread_groups = 1;
  b = encode_profile(balanced, 0);
  EXPECT_EQ(test::minor_of(b), kMinorBalance);
  Profile faulted = test::small_process();
  faulted.trees[0].nodes.back().add_metric(kMetricPageFaults, 5);
  b = encode_profile(faulted, 0);
  EXPECT_EQ(test::minor_of(b), kMinorPageFaults);
  Profile measured = test::small_process();
  measured.trees[0].nodes.back().add_metric(kMetricTlbMiss, 2);
  b = encode_profile(measured, 0);
  EXPECT_EQ(test::minor_of(b), kMinorMemoryMetrics);
  Profile touched = test::small_process();
  touched.trees[0].nodes.back().add_metric(kMetricFirstTouchNodeBase + 3, 2);
  b = encode_profile(touched, 0);
  EXPECT_EQ(test::minor_of(b), kMinorMemoryMetrics) << "first touch by node is 1.5";
  b = encode_profile(test::small_database_first_touch(), 0);
  EXPECT_EQ(test::minor_of(b), kMinorMemoryMetrics) << "FIRST_TOUCH is 1.5";
  Profile watched = test::small_process();
  watched.trees[0].nodes.back().add_metric(kMetricWpFalse, 3);
  b = encode_profile(watched, 0);
  EXPECT_EQ(test::minor_of(b), kMinorWatch) << "watchpoint metrics are 1.6";
  EXPECT_EQ(kMinorWatch, 6);
  b = encode_profile(test::small_database_ranks(), 0);
  EXPECT_EQ(test::minor_of(b), kMinorRankValues) << "RANK_VALUES is 1.9";
}

// 1.5: the memory metrics have stable names, and nothing else counts as one.
TEST(Version, MemoryMetricNames) {
  EXPECT_STREQ(metric_name(kMetricLatency), "latency");
  EXPECT_STREQ(metric_name(kMetricDataSrcBase + uint16_t(MemLevel::L1)), "l1");
  EXPECT_STREQ(metric_name(kMetricDataSrcBase + uint16_t(MemLevel::Uncached)), "uncached");
  EXPECT_STREQ(metric_name(kMetricDataSrcBase + uint16_t(MemLevel::Count)), "");
  EXPECT_STREQ(metric_name(kMetricNumaRemote), "numa_remote");
  EXPECT_STREQ(metric_name(kMetricDcMiss), "dc_miss");
  for (uint16_t id : {kMetricSamples, kMetricSamplesEstimated, kMetricSamplesEstimatedVar,
                      kMetricPageFaults})
    EXPECT_FALSE(is_memory_metric(id)) << id;
  for (uint16_t id = kMetricDataSrcBase; id <= kMetricDcMiss; ++id) EXPECT_TRUE(is_memory_metric(id));
}

// 1.4: the page_faults metric survives the round trip beside the samples, which it leaves alone.
TEST(Version, PageFaultsRoundTrip) {
  Profile p = test::small_process();
  Node& leaf = p.trees[0].nodes.back();
  const uint64_t samples = leaf.metric(kMetricSamples);
  leaf.add_metric(kMetricPageFaults, 7);
  ReadResult r = test::read(encode_profile(p, 3));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.profile.trees[0].nodes.back().metric(kMetricPageFaults), 7u);
  EXPECT_EQ(r.profile.trees[0].nodes.back().metric(kMetricSamples), samples);
}

// 1.1: the callee of a call-site frame survives the round trip; one naming no symbol is refused.
TEST(Version, CalleesRoundTripAndMustNameASymbol) {
  Profile db = test::rich_database();
  db.symbols[1].callee = {"make_x(unsigned long)", "/src/app.cpp", 3};
  ReadResult r = test::read(encode_profile(db, 3));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(test::dump(r.profile), test::dump(db));
  EXPECT_EQ(r.profile.symbols[1].callee.function, "make_x(unsigned long)");
  EXPECT_EQ(r.profile.symbols[1].callee.line, 3u);
  EXPECT_TRUE(r.profile.symbols[0].callee.function.empty());

  std::vector<test::RawSection> sections = test::split_sections(test::payload_of(encode_profile(db, 0)));
  test::Bytes payload;
  for (test::RawSection& s : sections) {
    if (s.tag == 7) {  // point the entry at a frame that has no symbol
      test::Bytes body;
      body.u32(1).u32(0).u64(0x999).str("f").str("").u32(0);
      s.body = body.v;
    }
    payload.u32(s.tag).u32(0).u64(s.body.size()).raw(s.body);
  }
  r = test::read(test::file_with({1, 1, 2, 0}, payload.v), "db");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("CALLEES"), std::string::npos) << r.error;
}

TEST(Version, NewerMajorIsRefusedInPlainWords) {
  std::vector<uint8_t> payload = test::payload_of(encode_profile(test::small_process(), 0));
  ReadResult r = test::read(test::file_with({2, 0, 1, 0}, payload), "run/p.hpcl");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "run/p.hpcl: written by a newer hpcrun-lite (format 2.0); this reader understands format 1.x");

  r = test::read(test::file_with({7, 3, 1, 0}, payload), "x");
  EXPECT_EQ(r.error, "x: written by a newer hpcrun-lite (format 7.3); this reader understands format 1.x");
}

TEST(Version, OlderMajorIsRefused) {
  ReadResult r = test::read(test::file_with({0, 9, 1, 0}, {}), "old.hpcl");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "old.hpcl: format 0.9 is not supported; this reader understands format 1.x");
}

// A file as a later 1.x writer might produce it: a new section before TREE and after the last
// known one, a new field at the end of META and of TREE, and a non-zero reserved word.
TEST(Version, NewerMinorWithUnknownSectionsAndExtraBytesIsRead) {
  Profile p = test::small_process();
  std::vector<test::RawSection> sections = test::split_sections(test::payload_of(encode_profile(p, 0)));
  test::Bytes payload;
  for (test::RawSection& s : sections) {
    if (s.tag == 1 || s.tag == 5) s.body.insert(s.body.end(), {0xde, 0xad, 0xbe, 0xef, 0, 1, 2});
    if (s.tag == 5) payload.u32(42).u32(0).u64(5).raw({1, 2, 3, 4, 5});
    payload.u32(s.tag).u32(s.tag == 2 ? 0x1234 : 0).u64(s.body.size()).raw(s.body);
  }
  payload.section(99, std::vector<uint8_t>(100, 0xff));
  payload.section(0, {});  // tag 0 is not a known section either

  ReadResult r = test::read(test::file_with({1, 5, 1, 0}, payload.v));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(test::dump(r.profile), test::dump(p));
}

TEST(Version, NewerMinorCompressed) {
  // Same rules through zstd: re-compressing is done by the writer, so patch the minor in place.
  std::vector<uint8_t> b = encode_profile(test::rich_process(), 3);
  b[10] = 2;
  ReadResult r = test::read(b);
  ASSERT_TRUE(r.ok) << r.error;
}

}  // namespace
}  // namespace hpcl
