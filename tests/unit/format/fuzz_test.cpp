// Damage the reader cannot predict: every truncation of a small file and random bit flips. The
// reader must answer with an error (or, for flips that keep the file valid, a profile that
// re-encodes and reads back the same), never crash or trip ASan/UBSan.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "test_util.h"

namespace hpcl {
namespace {

void expect_named_error(const ReadResult& r, const std::string& context) {
  EXPECT_FALSE(r.ok) << context;
  EXPECT_EQ(r.error.rfind("cut.hpcl: ", 0), 0u) << context << ": " << r.error;
}

TEST(Fuzz, EveryTruncationIsAnError) {
  for (int level : {0, 3}) {
    std::vector<uint8_t> whole = encode_profile(test::small_database(), level);
    for (size_t n = 0; n < whole.size(); ++n) {
      std::vector<uint8_t> cut(whole.begin(), whole.begin() + n);
      expect_named_error(test::read(cut, "cut.hpcl"), "level " + std::to_string(level) + " cut at " + std::to_string(n));
    }
  }
}

// Cut the payload and fix payload_size to match, so that the section parser (not the size check)
// meets the end. Cuts at a section boundary leave a valid shorter process profile; every other cut
// must be reported as a truncation.
TEST(Fuzz, EveryPayloadTruncationIsFoundByTheSectionParser) {
  std::vector<uint8_t> payload = test::payload_of(encode_profile(test::rich_process(), 0));
  std::vector<size_t> boundaries{payload.size()};
  for (const test::RawSection& s : test::split_sections(payload)) boundaries.push_back(s.offset);
  for (size_t n = 0; n < payload.size(); ++n) {
    std::vector<uint8_t> cut(payload.begin(), payload.begin() + n);
    ReadResult r = test::read(test::file_with({}, cut), "cut.hpcl");
    bool boundary = std::find(boundaries.begin(), boundaries.end(), n) != boundaries.end();
    if (boundary) {
      EXPECT_TRUE(r.ok) << "cut at section boundary " << n << ": " << r.error;
    } else {
      expect_named_error(r, "payload cut at " + std::to_string(n));
      EXPECT_NE(r.error.find("truncated"), std::string::npos) << r.error;
    }
  }
}

void flip_loop(const std::vector<uint8_t>& good, int iterations, uint32_t seed) {
  std::mt19937 rng(seed);
  int accepted = 0;
  for (int i = 0; i < iterations; ++i) {
    std::vector<uint8_t> b = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      size_t at = rng() % b.size();
      b[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    ReadResult r = test::read(b, "flip.hpcl");
    if (!r.ok) {
      ASSERT_EQ(r.error.rfind("flip.hpcl: ", 0), 0u) << r.error;
      continue;
    }
    ++accepted;
    // What the reader accepts is valid: it survives another round trip unchanged.
    ReadResult again = test::read(encode_profile(r.profile, 0));
    ASSERT_TRUE(again.ok) << "iteration " << i << ": accepted profile does not re-read: " << again.error;
    ASSERT_EQ(test::dump(again.profile), test::dump(r.profile)) << "iteration " << i;
  }
  ::testing::Test::RecordProperty("accepted", accepted);
}

TEST(Fuzz, BitFlipsUncompressed) { flip_loop(encode_profile(test::rich_database(), 0), 20000, 1); }
TEST(Fuzz, BitFlipsCompressed) { flip_loop(encode_profile(test::rich_process(), 3), 20000, 2); }
TEST(Fuzz, BitFlipsScriptFrames) { flip_loop(encode_profile(test::python_database(), 0), 10000, 4); }
TEST(Fuzz, BitFlipsCompressedLevel1) {
  // Level 1 lays out blocks differently, so flips reach other zstd decoding paths.
  flip_loop(encode_profile(test::rich_database(), 1), 10000, 3);
}

}  // namespace
}  // namespace hpcl
