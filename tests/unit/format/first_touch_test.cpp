// The FIRST_TOUCH section (format 1.5): the writer's bytes against the spec written out by hand,
// the round trip, a reader that refuses a damaged section naming the entry, and the section
// skipped by a reader that does not know it (it is a section of its own, after BALANCE).
#include <gtest/gtest.h>

#include "test_util.h"

namespace hpcl {
namespace {

using test::Bytes;

TEST(FirstTouch, WriterMatchesTheSpecByHand) {
  Bytes body;
  body.u32(2);
  body.u8(1).u32(0);  // site 0: one thread (rank 1, pid 42, tree 0) with all 6 faults
  body.u64(1).u64(6).u64(36).u64(0).u64(6).u64(6).u64(1).u64(42).u32(0);
  body.u8(2).u32(0);  // static 0: 3 and 1 faults on two threads, the max on pid 41's tree 1
  body.u64(2).u64(4).u64(10).u64(0).u64(1).u64(3).u64(0).u64(41).u32(1);
  std::vector<uint8_t> file = encode_profile(test::small_database_first_touch(), 0);
  EXPECT_EQ(file[10] | file[11] << 8, kMinorMemoryMetrics);
  std::vector<test::RawSection> sections = test::split_sections(test::payload_of(file));
  ASSERT_GE(sections.size(), 2u);
  EXPECT_EQ(sections[sections.size() - 2].tag, 9u) << "BALANCE before FIRST_TOUCH";
  EXPECT_EQ(sections.back().tag, 10u) << "FIRST_TOUCH is the last section";
  EXPECT_EQ(sections.back().body, body.v);
  EXPECT_EQ(body.v.size(), 4u + 73u * 2);  // the size docs/FORMAT.md gives
}

TEST(FirstTouch, RoundTrip) {
  Profile p = test::small_database_first_touch();
  for (int level : {0, 3}) {
    ReadResult r = test::read(encode_profile(p, level));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.profile.balance, p.balance);
    EXPECT_EQ(r.profile.trees[0].nodes.back().metric(kMetricFirstTouchNodeBase + 1), 6u);
  }
  // Without page faults there is no section, and the file keeps its earlier minor.
  std::vector<uint8_t> plain = encode_profile(test::small_database_balance(), 0);
  EXPECT_EQ(test::split_sections(test::payload_of(plain)).back().tag, 9u);
  EXPECT_EQ(plain[10] | plain[11] << 8, kMinorBalance);
}

// What a 1.3 or 1.4 reader does with a 1.5 database: FIRST_TOUCH has a tag it does not know and
// is skipped whole. Here the same is seen from this reader with the section's tag moved to one
// no version knows: the rest of the database reads the same, without first touches.
TEST(FirstTouch, ReaderWithoutItSkipsTheSection) {
  std::vector<uint8_t> payload = test::payload_of(encode_profile(test::small_database_first_touch(), 0));
  std::vector<test::RawSection> sections = test::split_sections(payload);
  payload[sections.back().offset] = 200;  // the tag's low byte
  ReadResult r = test::read(test::file_with({1, 5, 2, 0}, payload), "db.hpcdb");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.profile.balance.first_touch.empty());
  EXPECT_EQ(r.profile.balance.variables, test::small_database_balance().balance.variables);
}

std::string error_of(const Profile& p) {
  ReadResult r = test::read(encode_profile(p, 0), "db.hpcdb");
  EXPECT_FALSE(r.ok);
  return r.error;
}

TEST(FirstTouch, DamagedEntriesAreRefusedByName) {
  struct Case {
    const char* what;
    void (*damage)(Balance&);
    const char* message;
  };
  const Case cases[] = {
      {"owner", [](Balance& b) { b.first_touch[0].owner = static_cast<BalanceOwner>(9); },
       "section FIRST_TOUCH entry 0: unknown owner 9"},
      {"order", [](Balance& b) { std::swap(b.first_touch[0], b.first_touch[1]); },
       "section FIRST_TOUCH entry 1: out of order"},
      {"index", [](Balance& b) { b.first_touch[0].index = 4; },
       "section FIRST_TOUCH entry 0: site index 4 out of range"},
      {"threads", [](Balance& b) { b.first_touch[1].threads.groups = 4; },
       "section FIRST_TOUCH entry 1: threads: 4 with samples, but the run has 3"},
      {"no faults", [](Balance& b) { b.first_touch[0].threads = Spread{}; },
       "section FIRST_TOUCH entry 0: a variable without page faults"},
      {"max above sum", [](Balance& b) { b.first_touch[0].threads.max = 7; },
       "section FIRST_TOUCH entry 0: threads: min 6, max 7, sum 6"},
      {"no balance", [](Balance& b) { b.rank_groups = b.thread_groups = 0, b.variables.clear(); },
       "section FIRST_TOUCH without BALANCE"},
  };
  for (const Case& c : cases) {
    Profile p = test::small_database_first_touch();
    c.damage(p.balance);
    std::string error = error_of(p);
    EXPECT_TRUE(error.starts_with(std::string("db.hpcdb: ") + c.message)) << c.what << ": " << error;
  }
}

TEST(FirstTouch, DamagedBytesAreRefused) {
  std::vector<uint8_t> payload = test::payload_of(encode_profile(test::small_database_first_touch(), 0));
  const test::RawSection ft = test::split_sections(payload).back();
  std::vector<uint8_t> bad = payload;
  bad[ft.offset + 16] = 100;  // the entry count
  ReadResult r = test::read(test::file_with({1, 5, 2, 0}, bad), "db.hpcdb");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("section FIRST_TOUCH at payload byte"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("100 first-touch entries cannot fit"), std::string::npos) << r.error;
  // Only databases have it: the merge knows the threads of a run.
  Bytes process;
  process.raw(test::payload_of(encode_profile(test::small_process(), 0))).section(10, ft.body);
  r = test::read(test::file_with({1, 5, 1, 0}, process.v), "p.hpcl");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("p.hpcl: section FIRST_TOUCH at payload byte"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace hpcl
