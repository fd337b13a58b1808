// Format 1.10: stack slots (node kinds StackOwner and StackSlot) and STACK_NAMES, the locals a
// merge found for them. The slot rule is checked for tiling, the section against hand-built
// bytes (docs/FORMAT.md), every refusal by its words, and both readers on every input.
#include <gtest/gtest.h>

#include "hpcl/stack_slot.h"
#include "test_util.h"

namespace hpcl {
namespace {

using test::Bytes;
using test::minor_of;

TEST(StackNames, Version) {
  EXPECT_EQ(kMinorStack, 10);
  EXPECT_GE(kMinorVersion, 10);
}

TEST(StackSlot, ValuesOfTheSpec) {
  EXPECT_EQ(stack_slot(-1).lo, -8);
  EXPECT_EQ(stack_slot(-1).width, 8u);
  EXPECT_EQ(stack_slot(-8).lo, -8);
  EXPECT_EQ(stack_slot(-9).lo, -16);
  EXPECT_EQ(stack_slot(-256).lo, -256);
  EXPECT_EQ(stack_slot(-256).width, 8u);
  EXPECT_EQ(stack_slot(-257).lo, -272);
  EXPECT_EQ(stack_slot(-257).width, 16u);
  EXPECT_EQ(stack_slot(-512).lo, -512);
  EXPECT_EQ(stack_slot(-513).lo, -544);
  EXPECT_EQ(stack_slot(-513).width, 32u);
  EXPECT_EQ(stack_slot(-131072).width, 4096u);
  EXPECT_EQ(stack_slot(0).width, 0u) << "the CFA itself is the caller's";
  EXPECT_EQ(stack_slot(5).width, 0u);
}

// Every byte below the CFA is in exactly one slot, slots are aligned to their width and at most
// 1/16 of their distance from the CFA, and a 128 KiB array is 176 of them.
TEST(StackSlot, SlotsTileTheFrame) {
  int64_t lo = 0;  // of the slot the last byte was in
  int slots = 0;
  for (int64_t d = -1; d >= -(int64_t{1} << 20); --d) {
    const StackSlotRange s = stack_slot(d);
    ASSERT_GT(s.width, 0u);
    ASSERT_LE(s.lo, d);
    ASSERT_GT(s.lo + int64_t(s.width), d);
    ASSERT_EQ(s.lo % int64_t(s.width), 0);
    if (-d > 256) {
      ASSERT_LE(int64_t(s.width) * 16, -d);
    }
    if (s.lo != lo) {  // a new slot starts right below the last one
      ASSERT_EQ(s.lo + int64_t(s.width), lo) << "at " << d;
      lo = s.lo;
      if (-d <= 128 * 1024) ++slots;
    }
  }
  EXPECT_EQ(slots, 176);
}

// A process tree with a placed stack sample and one that could not be placed.
Profile stack_process() {
  Profile p = test::small_process();
  Tree& t = p.trees[0];
  uint32_t unknown = test::add(t, 0, NodeKind::UnknownRoot, 0, 0);
  uint32_t stack = test::add(t, unknown, NodeKind::UnknownClass, 0, 0);
  uint32_t owner = test::add(t, stack, NodeKind::StackOwner, 0, 0x40);
  uint32_t slot = test::add(t, owner, NodeKind::StackSlot, 8, static_cast<uint64_t>(int64_t{-24}));
  test::add(t, slot, NodeKind::Frame, 0, 0x44, {{kMetricSamples, 3}});
  test::add(t, stack, NodeKind::Frame, 0, 0x48, {{kMetricSamples, 1}});
  return p;
}

Profile stack_database() {
  Profile p = stack_process();
  p.kind = FileKind::Database;
  p.meta = {{"tool", "hpcprof-lite"}, {"processes", "1"}};
  p.trees[0].tid = 0;
  p.stack_vars = {{StackVarKind::Local, "acc", "kernel", "k.c", 14, -32, 16, "double[2]"},
                  {StackVarKind::Temporary, "", "kernel", "", 0, 0, 0, ""}};
  p.stack_slots = {{{0, 0x40}, -24, 8, 0}, {{0, 0x40}, -8, 8, 1}};
  return p;
}

std::vector<uint8_t> section_body(const Profile& p) {
  Bytes b;
  b.u32(static_cast<uint32_t>(p.stack_vars.size()));
  for (const StackVar& v : p.stack_vars)
    b.u8(static_cast<uint8_t>(v.kind)).str(v.name).str(v.function).str(v.file).u32(v.line)
        .u64(static_cast<uint64_t>(v.lo)).u64(v.size).str(v.type);
  b.u32(static_cast<uint32_t>(p.stack_slots.size()));
  for (const StackSlotName& s : p.stack_slots)
    b.u32(s.owner.module).u64(s.owner.offset).u64(static_cast<uint64_t>(s.lo)).u32(s.width).u32(s.var);
  return b.v;
}

std::vector<uint8_t> with_section(Profile p, const std::vector<uint8_t>& body) {
  p.stack_vars.clear();
  p.stack_slots.clear();
  return test::with_last_section(p, 10, 14, body);
}

TEST(StackNames, ProcessTreeRoundTripsAtMinorTen) {
  const Profile p = stack_process();
  std::vector<uint8_t> b = encode_profile(p, 0);
  EXPECT_EQ(minor_of(b), kMinorStack);
  ReadResult r = test::read(b);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(test::dump(r.profile), test::dump(p));
  EXPECT_EQ(minor_of(encode_profile(test::small_process(), 0)), 0) << "no stack node, no minor 10";
}

TEST(StackNames, DatabaseRoundTrip) {
  const Profile p = stack_database();
  for (int level : {0, 3}) {
    std::vector<uint8_t> b = encode_profile(p, level);
    EXPECT_EQ(minor_of(b), kMinorStack);
    ReadResult r = test::read(b);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.profile.stack_vars, p.stack_vars);
    EXPECT_EQ(r.profile.stack_slots, p.stack_slots);
  }
}

TEST(StackNames, LastSectionInTheSpecsBytes) {
  const Profile p = stack_database();
  std::vector<test::RawSection> sections = test::split_sections(test::payload_of(encode_profile(p, 0)));
  ASSERT_FALSE(sections.empty());
  EXPECT_EQ(sections.back().tag, 14u);
  EXPECT_EQ(sections.back().body, section_body(p));
  EXPECT_EQ(encode_profile(p, 0), with_section(p, section_body(p)));
}

std::string error_of(const Profile& p) { return test::read(with_section(p, section_body(p)), "db").error; }

TEST(StackNames, DamageIsRefusedInPlainWords) {
  Profile p = stack_database();
  p.stack_vars[1].kind = static_cast<StackVarKind>(6);
  EXPECT_EQ(error_of(p), "db: section STACK_NAMES variable 1: unknown kind 6");
  p = stack_database();
  p.stack_slots[1].var = 2;
  EXPECT_EQ(error_of(p), "db: section STACK_NAMES slot 1: variable 2 out of range (2 variables)");
  p = stack_database();
  std::swap(p.stack_slots[0], p.stack_slots[1]);
  EXPECT_EQ(error_of(p), "db: section STACK_NAMES slot 1: out of order (slots are sorted by owner and lo, each once)");
  p = stack_database();
  p.stack_slots[0].width = 0;
  EXPECT_EQ(error_of(p), "db: section STACK_NAMES slot 0: width 0");
  p = stack_database();
  p.stack_slots[0].owner.module = 3;
  EXPECT_NE(error_of(p).find("db: section STACK_NAMES slot 0: "), std::string::npos) << error_of(p);
  Bytes too_many;
  too_many.u32(1000).u8(1);
  EXPECT_NE(test::read(with_section(stack_database(), too_many.v), "db").error.find("1000 stack variables cannot fit"),
            std::string::npos);
  // Only a merge names slots.
  EXPECT_NE(test::read(with_section(stack_process(), section_body(stack_database())), "p")
                .error.find("section STACK_NAMES at payload byte "),
            std::string::npos);
}

TEST(StackNames, BadStackNodesAreRefused) {
  Profile p = stack_process();
  p.trees[0].nodes[p.trees[0].nodes.size() - 3].a = 0;  // the slot's width
  EXPECT_NE(test::read(encode_profile(p, 0), "p").error.find("a stack slot of width 0"), std::string::npos);
  p = stack_process();
  p.trees[0].nodes[p.trees[0].nodes.size() - 4].a = 9;  // the owner's module
  EXPECT_NE(test::read(encode_profile(p, 0), "p").error.find("node "), std::string::npos);
}

TEST(StackNames, EncoderRefusesThemInAProcessProfile) {
  Profile p = stack_process();
  p.stack_vars = stack_database().stack_vars;
  const std::string path = ::testing::TempDir() + "/stack_names_process.hpcl";
  std::string error;
  EXPECT_FALSE(write_profile_file(p, path, &error));
  EXPECT_NE(error.find("STACK_NAMES in a process profile"), std::string::npos) << error;
}

}  // namespace
}  // namespace hpcl
