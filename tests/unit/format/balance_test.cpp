// The BALANCE section (format 1.3): the writer's bytes against the spec written out by hand, the
// round trip, and a reader that refuses a damaged section with a message naming the section, the
// entry and what is wrong.
#include <gtest/gtest.h>

#include "test_util.h"

namespace hpcl {
namespace {

using test::Bytes;

void spread(Bytes& b, uint64_t groups, uint64_t sum, uint64_t sumsq, uint64_t min, uint64_t max,
            int64_t rank, uint64_t pid, uint32_t thread) {
  b.u64(groups).u64(sum).u64(sumsq).u64(0).u64(min).u64(max);
  b.u64(static_cast<uint64_t>(rank)).u64(pid).u32(thread);
}

TEST(Balance, WriterMatchesTheSpecByHand) {
  Bytes body;
  body.u64(2).u64(3).u32(3);
  body.u8(1).u32(0);
  spread(body, 2, 5, 13, 2, 3, 1, 0, 0);
  spread(body, 2, 5, 13, 2, 3, 1, 42, 0);
  body.u8(2).u32(0);
  spread(body, 1, 1, 1, 1, 1, 0, 0, 0);
  spread(body, 1, 1, 1, 1, 1, 0, 41, 1);
  body.u8(3).u32(0);
  spread(body, 1, 2, 4, 2, 2, -1, 99, 0);
  spread(body, 1, 2, 4, 2, 2, -1, 99, 0);
  std::vector<uint8_t> file = encode_profile(test::small_database_balance(), 0);
  EXPECT_EQ(file[10] | file[11] << 8, kMinorBalance);
  std::vector<test::RawSection> sections = test::split_sections(test::payload_of(file));
  ASSERT_FALSE(sections.empty());
  EXPECT_EQ(sections.back().tag, 9u) << "BALANCE is the last section";
  EXPECT_EQ(sections.back().body, body.v);
}

TEST(Balance, RoundTrip) {
  Profile p = test::small_database_balance();
  p.balance.variables[0].ranks.sumsq_hi = 7;  // the high half of the 128-bit sum of squares
  p.balance.variables[0].threads.sumsq_hi = 7;
  for (int level : {0, 3}) {
    ReadResult r = test::read(encode_profile(p, level));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(test::dump(r.profile), test::dump(p));
    EXPECT_EQ(r.profile.balance, p.balance);
  }
}

// A database without the section (older merges) reads as "no balance"; with it but no variable
// (nothing sampled) it is still written, so a report can say every variable is at zero.
TEST(Balance, AbsentAndEmpty) {
  ReadResult r = test::read(encode_profile(test::small_database(), 0));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.profile.balance.present());
  Profile p = test::small_database();
  p.balance.rank_groups = 4;
  p.balance.thread_groups = 8;
  r = test::read(encode_profile(p, 0));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.profile.balance.rank_groups, 4u);
  EXPECT_EQ(r.profile.balance.thread_groups, 8u);
}

std::string error_of(const Profile& p) {
  ReadResult r = test::read(encode_profile(p, 0), "db.hpcdb");
  EXPECT_FALSE(r.ok);
  return r.error;
}

TEST(Balance, DamagedEntriesAreRefusedByName) {
  struct Case {
    const char* what;
    void (*damage)(Balance&);
    const char* message;
  };
  const Case cases[] = {
      {"owner", [](Balance& b) { b.variables[0].owner = static_cast<BalanceOwner>(7); },
       "section BALANCE entry 0: unknown owner 7"},
      {"order", [](Balance& b) { std::swap(b.variables[0], b.variables[1]); },
       "section BALANCE entry 1: out of order"},
      {"index", [](Balance& b) { b.variables[1].index = 5; },
       "section BALANCE entry 1: static index 5 out of range (1 statics)"},
      {"groups", [](Balance& b) { b.variables[0].ranks.groups = 3; },
       "section BALANCE entry 0: ranks: 3 with samples, but the run has 2"},
      {"min above max", [](Balance& b) { b.variables[0].threads.min = 4; },
       "section BALANCE entry 0: threads: min 4, max 3, sum 5"},
      {"max above groups", [](Balance& b) { b.variables[2].ranks.sum = b.variables[2].threads.sum = 9; },
       "section BALANCE entry 2: ranks: sum 9 above 1 groups times the max 2"},
      {"sums differ", [](Balance& b) { b.variables[0].threads.sum = 6; },
       "section BALANCE entry 0: ranks sum to 5 samples, threads to 6"},
      {"values without groups", [](Balance& b) { b.variables[1].ranks.groups = 0; },
       "section BALANCE entry 1: ranks: values without any group"},
  };
  for (const Case& c : cases) {
    Profile p = test::small_database_balance();
    c.damage(p.balance);
    std::string error = error_of(p);
    EXPECT_TRUE(error.starts_with(std::string("db.hpcdb: ") + c.message)) << c.what << ": " << error;
  }
}

TEST(Balance, DamagedBytesAreRefused) {
  std::vector<uint8_t> payload = test::payload_of(encode_profile(test::small_database_balance(), 0));
  std::vector<test::RawSection> sections = test::split_sections(payload);
  const test::RawSection& balance = sections.back();
  // The entry count claims more entries than the section holds.
  std::vector<uint8_t> bad = payload;
  size_t count_at = balance.offset + 16 + 16;
  bad[count_at] = 200;
  ReadResult r = test::read(test::file_with({1, 3, 2, 0}, bad), "db.hpcdb");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("section BALANCE at payload byte"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("200 balance entries cannot fit"), std::string::npos) << r.error;

  // A process profile has no balance: only the merge knows the ranks and threads of a run.
  Bytes process;
  process.raw(test::payload_of(encode_profile(test::small_process(), 0))).section(9, balance.body);
  r = test::read(test::file_with({1, 3, 1, 0}, process.v), "p.hpcl");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("p.hpcl: section BALANCE at payload byte"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("in a process profile"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace hpcl
