// Format 1.11: STACK_THREADS, a database's stack samples per node and thread. The section is
// checked against hand-built bytes (docs/FORMAT.md), every refusal by its words, and both
// readers on every input.
#include <gtest/gtest.h>

#include "test_util.h"

namespace hpcl {
namespace {

using test::Bytes;
using test::minor_of;

// A database whose tree has a stack owner (node 3) and slot (node 4) below the stack class.
Profile stack_database() {
  Profile p = test::small_process();
  p.kind = FileKind::Database;
  p.meta = {{"tool", "hpcprof-lite"}, {"processes", "2"}};
  Tree& t = p.trees[0];
  t.tid = 0;
  uint32_t unknown = test::add(t, 0, NodeKind::UnknownRoot, 0, 0);
  uint32_t stack = test::add(t, unknown, NodeKind::UnknownClass, 0, 0);
  uint32_t owner = test::add(t, stack, NodeKind::StackOwner, 0, 0x40);
  uint32_t slot = test::add(t, owner, NodeKind::StackSlot, 8, static_cast<uint64_t>(int64_t{-24}));
  test::add(t, slot, NodeKind::Frame, 0, 0x44, {{kMetricSamples, 7}});
  // The slot's 7 samples: 3 on rank 0's thread 0, 4 on rank 1's thread 2.
  p.stack_threads = {{slot, {0, 100, 0}, 3}, {slot, {1, 101, 2}, 4}};
  p.stack_threads.insert(p.stack_threads.begin(), {owner, {-1, 7, 0}, 1});
  return p;
}

std::vector<uint8_t> section_body(const Profile& p) {
  Bytes b;
  b.u32(static_cast<uint32_t>(p.stack_threads.size()));
  for (const StackThreadValue& v : p.stack_threads)
    b.u32(v.node).u64(static_cast<uint64_t>(v.thread.rank)).u64(v.thread.pid).u32(v.thread.thread).u64(v.samples);
  return b.v;
}

std::vector<uint8_t> with_section(Profile p, const std::vector<uint8_t>& body) {
  p.stack_threads.clear();
  return test::with_last_section(p, 11, 15, body);
}

std::string error_of(const Profile& p) { return test::read(with_section(p, section_body(p)), "db").error; }

TEST(StackThreads, Version) {
  EXPECT_EQ(kMinorStackThreads, 11);
  EXPECT_GE(kMinorVersion, 11);
}

TEST(StackThreads, RoundTripAtMinorEleven) {
  const Profile p = stack_database();
  for (int level : {0, 3}) {
    std::vector<uint8_t> b = encode_profile(p, level);
    EXPECT_EQ(minor_of(b), kMinorStackThreads);
    ReadResult r = test::read(b);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.profile.stack_threads, p.stack_threads);
  }
  Profile without = p;
  without.stack_threads.clear();
  EXPECT_EQ(minor_of(encode_profile(without, 0)), kMinorStack) << "no entries, no minor 11";
}

TEST(StackThreads, LastSectionInTheSpecsBytes) {
  const Profile p = stack_database();
  std::vector<test::RawSection> sections = test::split_sections(test::payload_of(encode_profile(p, 0)));
  ASSERT_FALSE(sections.empty());
  EXPECT_EQ(sections.back().tag, 15u);
  EXPECT_EQ(sections.back().body, section_body(p));
  EXPECT_EQ(encode_profile(p, 0), with_section(p, section_body(p)));
}

TEST(StackThreads, DamageIsRefusedInPlainWords) {
  Profile p = stack_database();
  p.stack_threads[1].node = 99;
  EXPECT_NE(error_of(p).find("db: section STACK_THREADS entry 1: node 99 out of range ("), std::string::npos)
      << error_of(p);
  p = stack_database();
  const uint32_t stack_class = p.stack_threads[0].node - 1;
  p.stack_threads[1].node = stack_class;
  EXPECT_EQ(error_of(p), "db: section STACK_THREADS entry 1: node " + std::to_string(stack_class) +
                             " is of kind 8, not a stack owner or slot");
  p = stack_database();
  p.stack_threads[2].samples = 0;
  EXPECT_EQ(error_of(p), "db: section STACK_THREADS entry 2: a zero value (a thread without samples has no entry)");
  p = stack_database();
  p.stack_threads[0].thread.rank = -2;
  EXPECT_EQ(error_of(p), "db: section STACK_THREADS entry 0: rank -2 (ranks are -1 or more)");
  p = stack_database();
  std::swap(p.stack_threads[1], p.stack_threads[2]);
  EXPECT_EQ(error_of(p),
            "db: section STACK_THREADS entry 2: out of order (entries are sorted by node and thread, each pair once)");
  p = stack_database();
  p.stack_threads[2] = p.stack_threads[1];
  EXPECT_NE(error_of(p).find("entry 2: out of order"), std::string::npos);
  Bytes too_many;
  too_many.u32(1000).u32(1);
  EXPECT_NE(test::read(with_section(stack_database(), too_many.v), "db").error.find("1000 stack thread values cannot fit"),
            std::string::npos);
  // Only a merge sums threads.
  Profile process = stack_database();
  process.kind = FileKind::Process;
  process.meta = test::small_process().meta;
  EXPECT_NE(test::read(with_section(process, section_body(stack_database())), "p")
                .error.find("section STACK_THREADS at payload byte "),
            std::string::npos);
}

TEST(StackThreads, EncoderRefusesThemInAProcessProfile) {
  Profile p = stack_database();
  p.kind = FileKind::Process;
  p.meta = test::small_process().meta;
  const std::string path = ::testing::TempDir() + "/stack_threads_process.hpcl";
  std::string error;
  EXPECT_FALSE(write_profile_file(p, path, &error));
  EXPECT_NE(error.find("STACK_THREADS in a process profile"), std::string::npos) << error;
}

}  // namespace
}  // namespace hpcl
