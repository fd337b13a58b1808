// Writer output fed to the real reader: every feature of the format survives encode + decode, at
// several compression levels and uncompressed.
#include <gtest/gtest.h>

#include "test_util.h"

namespace hpcl {
namespace {

using test::dump;

class RoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(RoundTrip, RichProcess) {
  Profile p = test::rich_process();
  std::vector<uint8_t> bytes = encode_profile(p, GetParam());
  ReadResult r = test::read(bytes);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(dump(r.profile), dump(p));
  EXPECT_EQ(bytes[24] & 1, GetParam() > 0 ? 1 : 0) << "flags bit 0 says whether zstd is used";
}

TEST_P(RoundTrip, RichDatabase) {
  Profile p = test::rich_database();
  ReadResult r = test::read(encode_profile(p, GetParam()));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.profile.kind, FileKind::Database);
  EXPECT_EQ(dump(r.profile), dump(p));
}

TEST_P(RoundTrip, EmptyProcess) {
  Profile p;  // no meta, no threads: a process that ended before any sample
  ReadResult r = test::read(encode_profile(p, GetParam()));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(dump(r.profile), dump(p));
}

TEST_P(RoundTrip, LargeTree) {
  // Big enough to span several zstd blocks and exercise reserve() on real counts.
  Profile p;
  Tree& t = p.trees.emplace_back();
  t.nodes.emplace_back();
  for (uint32_t i = 1; i < 50000; ++i) {
    Node n;
    n.parent = (i - 1) / 3;
    n.kind = NodeKind::Frame;
    n.a = kNoModule;
    n.b = i * 16;
    n.add_metric(kMetricSamples, i % 7);
    t.nodes.push_back(n);
  }
  ReadResult r = test::read(encode_profile(p, GetParam()));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(dump(r.profile), dump(p));
}

INSTANTIATE_TEST_SUITE_P(Levels, RoundTrip, ::testing::Values(0, 1, 3, 19),
                         [](const auto& level) { return "zstd" + std::to_string(level.param); });

TEST(RoundTrip, CompressionShrinksRepetitiveProfiles) {
  Profile p = test::rich_process();
  for (int i = 0; i < 50; ++i) p.trees.push_back(p.trees[0]);
  EXPECT_LT(encode_profile(p, 3).size() * 4, encode_profile(p, 0).size());
}

TEST(RoundTrip, EncodingIsDeterministic) {
  EXPECT_EQ(encode_profile(test::rich_database(), 3), encode_profile(test::rich_database(), 3));
}

}  // namespace
}  // namespace hpcl
