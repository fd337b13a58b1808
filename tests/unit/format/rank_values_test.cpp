// Format 1.9: RANK_VALUES, a database's metrics per tree node and rank (merge --per-rank). The
// section is checked against hand-built bytes (docs/FORMAT.md), every refusal by its words, and
// both readers on every input (test::read).
#include <gtest/gtest.h>

#include "test_util.h"

namespace hpcl {
namespace {

using test::Bytes;
using test::minor_of;

// The body of a RANK_VALUES section as docs/FORMAT.md spells it.
std::vector<uint8_t> section_body(const std::vector<RankValue>& values) {
  Bytes b;
  b.u32(static_cast<uint32_t>(values.size()));
  for (const RankValue& v : values) b.u32(v.node).u64(static_cast<uint64_t>(v.rank)).u16(v.metric).u64(v.value);
  return b.v;
}

// The payload of `p` written without its rank values, then `body` as a last section.
std::vector<uint8_t> with_section(Profile p, const std::vector<uint8_t>& body) {
  p.rank_values.clear();
  return test::with_last_section(p, 9, 13, body);
}

std::string error_of(const std::vector<RankValue>& values) {
  Profile p = test::small_database();
  return test::read(with_section(p, section_body(values)), "db").error;
}

TEST(RankValues, Version) {
  EXPECT_EQ(kMinorRankValues, 9);
  EXPECT_GE(kMinorVersion, 9);
}

TEST(RankValues, RoundTrip) {
  const Profile p = test::small_database_ranks();
  for (int level : {0, 3}) {
    std::vector<uint8_t> b = encode_profile(p, level);
    EXPECT_EQ(minor_of(b), kMinorRankValues);
    ReadResult r = test::read(b);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.profile.rank_values, p.rank_values);
    EXPECT_EQ(test::dump(r.profile), test::dump(p));
  }
}

// Written only when the merge kept them: every other database keeps its minor and its bytes.
TEST(RankValues, MinorNineOnlyWithTheSection) {
  Profile p = test::small_database_ranks();
  p.rank_values.clear();
  EXPECT_EQ(encode_profile(p, 0), encode_profile(test::small_database(), 0));
  EXPECT_EQ(minor_of(encode_profile(p, 0)), 0);
}

// The last section of the payload, after SCRIPT_FRAMES, in the bytes of docs/FORMAT.md.
TEST(RankValues, LastSectionInTheSpecsBytes) {
  Profile p = test::python_database();
  p.rank_values = {{3, -1, kMetricSamples, 5}, {3, 0, kMetricSamples, 7}};
  std::vector<test::RawSection> sections = test::split_sections(test::payload_of(encode_profile(p, 0)));
  ASSERT_GE(sections.size(), 2u);
  EXPECT_EQ(sections[sections.size() - 2].tag, 12u);
  EXPECT_EQ(sections.back().tag, 13u);
  EXPECT_EQ(sections.back().body, section_body(p.rank_values));
  const Profile q = test::small_database_ranks();
  EXPECT_EQ(encode_profile(q, 0), with_section(q, section_body(q.rank_values)));
}

TEST(RankValues, HandBuiltSectionIsRead) {
  ReadResult r = test::read(with_section(test::small_database(), section_body({{6, -1, 0, 1}, {6, 4, 0, 9}})));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.profile.rank_values.size(), 2u);
  EXPECT_EQ(r.profile.rank_values[0], (RankValue{6, -1, 0, 1})) << "rank -1: processes without a rank";
  EXPECT_EQ(r.profile.rank_values[1], (RankValue{6, 4, 0, 9}));
}

TEST(RankValues, DamageIsRefusedInPlainWords) {
  EXPECT_EQ(error_of({{7, 0, 0, 1}}), "db: section RANK_VALUES entry 0: node 7 out of range (7 nodes)");
  EXPECT_EQ(error_of({{3, -2, 0, 1}}), "db: section RANK_VALUES entry 0: rank -2 (ranks are -1 or more)");
  EXPECT_EQ(error_of({{3, 0, 0, 0}}),
            "db: section RANK_VALUES entry 0: a zero value (a rank without the metric has no entry)");
  const std::string order =
      "db: section RANK_VALUES entry 1: out of order (entries are sorted by node, rank and metric, each once)";
  EXPECT_EQ(error_of({{3, 1, 0, 1}, {3, 0, 0, 1}}), order);
  EXPECT_EQ(error_of({{3, 0, 1, 1}, {3, 0, 0, 1}}), order);
  EXPECT_EQ(error_of({{6, 0, 0, 1}, {3, 0, 0, 1}}), order);
  EXPECT_EQ(error_of({{3, 0, 0, 1}, {3, 0, 0, 1}}), order) << "a triple twice";
  Bytes too_many;
  too_many.u32(1000).u32(3).u64(0).u16(0).u64(1);
  EXPECT_NE(test::read(with_section(test::small_database(), too_many.v), "db").error.find("1000 rank values cannot fit"),
            std::string::npos);
  // A process profile: only a merge sums ranks.
  EXPECT_NE(test::read(with_section(test::small_process(), section_body({{3, 0, 0, 1}})), "p")
                .error.find("section RANK_VALUES at payload byte "),
            std::string::npos);
}

// The encoder refuses them in a process profile too, so no writer can make a file a reader refuses.
TEST(RankValues, EncoderRefusesThemInAProcessProfile) {
  Profile p = test::small_process();
  p.rank_values = {{3, 0, 0, 1}};
  const std::string path = ::testing::TempDir() + "/rank_values_process.hpcl";
  std::string error;
  EXPECT_FALSE(write_profile_file(p, path, &error));
  EXPECT_NE(error.find("RANK_VALUES in a process profile"), std::string::npos) << error;
}

}  // namespace
}  // namespace hpcl
