// Naming stack variables from DWARF (symbols/stack_locals.h) on real frames: the subjects
// (stack_target.c, stack_target.f90), built -g -O2, print for each case the frame's pc and where
// its arrays lie relative to the frame's CFA, as the unwinder sees them. Slots are then asked
// for at the start, middle and end of each array, with the widths the runtime gives them (8
// bytes up to 256 bytes from the CFA, 1/16 of the distance beyond).
#include "symbols/stack_locals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "symbols/naming.h"
#include "symbols/symbolize.h"

using namespace hpcl::analysis;

namespace {

struct Extent {
  int64_t first = 0, last = 0;  // CFA-relative, inclusive
};

struct Case {
  uint64_t pc = 0;
  std::vector<Extent> arrays;
};

// What the subject prints: "<label> 0x<pc> <first> <last> [<first> <last>]".
std::map<std::string, Case> run(const std::string& path) {
  std::map<std::string, Case> out;
  FILE* p = popen(path.c_str(), "r");
  if (p == nullptr) return out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) {
    std::istringstream line(buf);
    std::string label, pc;
    Case c;
    line >> label >> pc;
    c.pc = std::stoull(pc, nullptr, 16);
    Extent e;
    while (line >> e.first >> e.last) c.arrays.push_back(e);
    out[label] = c;
  }
  pclose(p);
  return out;
}

// The line of `source` holding "DECL: <name>".
uint32_t decl_line(const std::string& source, const std::string& name) {
  std::ifstream in(source);
  std::string text;
  for (uint32_t n = 1; std::getline(in, text); ++n) {
    const size_t at = text.find("DECL: " + name);
    const size_t end = at + 6 + name.size();
    if (at != std::string::npos && (end == text.size() || text[end] == ' ')) return n;
  }
  return 0;
}

struct Subject {
  std::string path, source;
  std::map<std::string, Case> cases;
  std::unique_ptr<ModuleSymbols> symbols;
  std::unique_ptr<StackLocals> locals;
};

Subject* open_subject(const std::string& path, const std::string& source) {
  auto* s =
      new Subject{path, source, run(path), std::make_unique<ModuleSymbols>(path, ""), nullptr};
  if (s->symbols->ok())
    s->locals = std::make_unique<StackLocals>(s->symbols->dwfl_module(), s->symbols->bias());
  return s;
}

Subject& c_subject() {
  static Subject* s = open_subject(STACK_TARGET, STACK_TARGET_SOURCE);
  return *s;
}

uint32_t width_at(int64_t lo) {
  const uint64_t distance = static_cast<uint64_t>(lo < 0 ? -lo : lo);
  return distance <= 256 ? 8 : static_cast<uint32_t>(distance / 16);
}

// The slots at the start, the middle and the end of an array.
std::vector<std::pair<int64_t, uint32_t>> slots_in(const Extent& e) {
  const int64_t mid = e.first + (e.last - e.first) / 2;
  const uint32_t w_end = width_at(e.last);
  return {{e.first, width_at(e.first)},
          {mid - width_at(mid) / 2, width_at(mid)},
          {e.last + 1 - w_end, w_end}};
}

struct Expected {
  StackVarKind kind;
  std::string name, function, type;
  bool fixed = true;  // lo and size are the array's
};

// Every slot of `e` is owned by what `want` says, declared on the DECL line of its name.
void expect_owned(Subject& s, uint64_t pc, const Extent& e, const Expected& want) {
  const uint32_t line = want.name.empty() ? 0 : decl_line(s.source, want.name);
  if (!want.name.empty()) {
    ASSERT_NE(line, 0u) << "no DECL: " << want.name;
  }
  for (auto [lo, width] : slots_in(e)) {
    SCOPED_TRACE("slot [" + std::to_string(lo) + ", +" + std::to_string(width) + ")");
    const std::optional<StackLocal> got = s.locals->at(pc, lo, width);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(stack_var_kind_name(got->kind), std::string(stack_var_kind_name(want.kind)));
    EXPECT_EQ(got->name, want.name);
    EXPECT_EQ(got->function, want.function);
    EXPECT_EQ(got->type, want.type);
    EXPECT_EQ(got->line, line);
    if (!want.name.empty()) {
      EXPECT_EQ(basename_of(got->file), basename_of(s.source));
    }
    if (want.fixed) {
      EXPECT_EQ(got->lo, e.first);
      EXPECT_EQ(got->size, static_cast<uint64_t>(e.last - e.first + 1));
    } else {
      EXPECT_EQ(got->size, 0u);
    }
  }
}

#define REQUIRE_CASE(s, label)                                                       \
  ASSERT_TRUE((s).locals != nullptr) << (s).path << ": " << (s).symbols->error();    \
  ASSERT_TRUE((s).locals->has_dwarf());                                              \
  ASSERT_EQ((s).cases.count(label), 1u) << (s).path << " printed no case " << label; \
  const Case& c = (s).cases.at(label)

}  // namespace

TEST(StackLocals, ArraysOfThreeFrameSizes) {
  const struct {
    const char *label, *name, *function, *type;
  } frames[] = {{"huge", "huge", "huge_frame", "double[16384]"},
                {"medium", "medium", "medium_frame", "double[2048]"},
                {"small", "small", "small_frame", "double[24]"}};
  for (const auto& f : frames) {
    SCOPED_TRACE(f.label);
    REQUIRE_CASE(c_subject(), f.label);
    ASSERT_EQ(c.arrays.size(), 1u);
    expect_owned(c_subject(), c.pc, c.arrays[0],
                 {StackVarKind::Local, f.name, f.function, f.type});
  }
}

TEST(StackLocals, SlotAcrossTwoVariablesGoesToTheLargerOverlap) {
  REQUIRE_CASE(c_subject(), "struct");
  ASSERT_EQ(c.arrays.size(), 2u);
  Subject& s = c_subject();
  expect_owned(s, c.pc, c.arrays[0],
               {StackVarKind::Local, "p", "struct_frame", "struct particle"});
  expect_owned(s, c.pc, c.arrays[1], {StackVarKind::Local, "hist", "struct_frame", "double[12]"});
  // Wherever GCC put them, one lies below the other: 2 bytes of one and 6 of the other, then
  // the reverse.
  const bool p_below = c.arrays[0].first < c.arrays[1].first;
  const Extent& below = c.arrays[p_below ? 0 : 1];
  const Extent& above = c.arrays[p_below ? 1 : 0];
  const uint32_t gap = static_cast<uint32_t>(above.first - below.last - 1);
  const std::optional<StackLocal> more_above = s.locals->at(c.pc, below.last - 1, 2 + gap + 6);
  const std::optional<StackLocal> more_below = s.locals->at(c.pc, below.last - 5, 6 + gap + 2);
  ASSERT_TRUE(more_above && more_below);
  EXPECT_EQ(more_above->name, p_below ? "hist" : "p");
  EXPECT_EQ(more_below->name, p_below ? "p" : "hist");
}

TEST(StackLocals, FrameBytesNoVariableCovers) {
  REQUIRE_CASE(c_subject(), "small");
  // The return address, and below the lowest array of a frame without a frame pointer (the
  // callee's side: outgoing arguments), are the frame's own bytes, never a dynamic area.
  for (int64_t lo : {int64_t{-8}, c.arrays[0].first - 8, c.arrays[0].first - 64}) {
    const std::optional<StackLocal> got = c_subject().locals->at(c.pc, lo, 8);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->kind, StackVarKind::Frame) << lo;
    EXPECT_EQ(got->name, "");
    EXPECT_EQ(got->function, "small_frame");
  }
}

TEST(StackLocals, VariableLengthArrayOwnsTheDynamicArea) {
  REQUIRE_CASE(c_subject(), "vla");
  ASSERT_EQ(c.arrays.size(), 2u);
  Subject& s = c_subject();
  expect_owned(s, c.pc, c.arrays[0],
               {StackVarKind::Automatic, "vla", "vla_frame", "double[]", false});
  expect_owned(s, c.pc, c.arrays[1], {StackVarKind::Local, "fixed", "vla_frame", "double[6]"});
  // The saved rbp of this frame-pointer frame is above the fixed variables: frame bytes.
  const std::optional<StackLocal> saved = s.locals->at(c.pc, -16, 8);
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->kind, StackVarKind::Frame);
}

TEST(StackLocals, AllocaStorageIsATemporary) {
  REQUIRE_CASE(c_subject(), "alloca");
  expect_owned(c_subject(), c.pc, c.arrays[0],
               {StackVarKind::Temporary, "", "alloca_frame", "", false});
  // No variable is in the frame: the return address and the saved rbp, which the call-frame
  // information places, are what bounds the fixed frame from the dynamic area.
  for (int64_t lo : {-8, -16}) {
    const std::optional<StackLocal> got = c_subject().locals->at(c.pc, lo, 8);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->kind, StackVarKind::Frame) << lo;
  }
}

TEST(StackLocals, InlinedFunctionsArrayNamesTheInlinedFunction) {
  REQUIRE_CASE(c_subject(), "inlined");
  expect_owned(c_subject(), c.pc, c.arrays[0],
               {StackVarKind::Local, "scratch", "inlined_scratch", "double[40]"});
  // The frame itself is the function it was inlined into.
  const std::optional<StackLocal> frame = c_subject().locals->at(c.pc, -8, 8);
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->function, "inlining_frame");
}

TEST(StackLocals, OpenMpPrivateArrayBelongsToTheOutlinedRegion) {
  REQUIRE_CASE(c_subject(), "omp");
  expect_owned(c_subject(), c.pc, c.arrays[0],
               {StackVarKind::Local, "priv", "omp_frame._omp_fn.0", "double[300]"});
}

TEST(StackLocals, BlocksSharingAStackSlotAreToldApartByThePc) {
  Subject& s = c_subject();
  REQUIRE_CASE(s, "block1");
  ASSERT_EQ(s.cases.count("block2"), 1u);
  const Case& other = s.cases.at("block2");
  expect_owned(s, c.pc, c.arrays[0],
               {StackVarKind::Local, "first", "blocks_frame", "double[32]"});
  expect_owned(s, other.pc, other.arrays[0],
               {StackVarKind::Local, "second", "blocks_frame", "double[32]"});
}

namespace {

// Where a layout is cached for more pcs than it holds for, an instance that has seen other pcs
// answers differently from a fresh one: every pc of the subject's functions, in both orders,
// with slots down to 1 KiB below the CFA in 4- and 8-byte widths (the shared slot of the two
// blocks, the vla's frame rows and its dynamic area, spilled parameters).
void expect_same_as_fresh(Subject& s, uint64_t from, uint64_t to, bool upward) {
  StackLocals shared(s.symbols->dwfl_module(), s.symbols->bias());
  for (uint64_t i = 0; i < to - from; ++i) {
    const uint64_t pc = upward ? from + i : to - 1 - i;
    StackLocals fresh(s.symbols->dwfl_module(), s.symbols->bias());
    for (int64_t lo = -1024; lo < 0; lo += 4) {
      const uint32_t width = lo % 8 == 0 ? 8 : 4;
      const std::optional<StackLocal> a = shared.at(pc, lo, width), b = fresh.at(pc, lo, width);
      ASSERT_EQ(a.has_value(), b.has_value()) << "pc 0x" << std::hex << pc;
      if (!a) break;  // no function here
      ASSERT_TRUE(a->kind == b->kind && a->name == b->name && a->function == b->function)
          << "pc 0x" << std::hex << pc << std::dec << " slot " << lo << ": " << a->name << " ("
          << stack_var_kind_name(a->kind) << ") cached, " << b->name << " ("
          << stack_var_kind_name(b->kind) << ") fresh";
    }
  }
}

}  // namespace

TEST(StackLocals, CachedStretchesAnswerAsAFreshLookup) {
  Subject& s = c_subject();
  ASSERT_TRUE(s.locals != nullptr);
  ASSERT_FALSE(s.cases.empty());
  uint64_t from = UINT64_MAX, to = 0;
  for (const auto& [label, c] : s.cases) {
    from = std::min(from, c.pc);
    to = std::max(to, c.pc);
  }
  // From before the first case's function to past the last one's.
  from = from > 0x400 ? from - 0x400 : 0;
  to += 0x100;
  expect_same_as_fresh(s, from, to, true);
  expect_same_as_fresh(s, from, to, false);
}

TEST(StackLocals, NothingWithoutDwarf) {
  ModuleSymbols stripped(INLINE_TARGET_STRIPPED, "");
  ASSERT_TRUE(stripped.ok()) << stripped.error();
  StackLocals none(stripped.dwfl_module(), stripped.bias());
  EXPECT_FALSE(none.has_dwarf());
  EXPECT_FALSE(none.at(0x1139, -8, 8).has_value());
  // A pc no compile unit covers.
  ASSERT_TRUE(c_subject().locals != nullptr);
  EXPECT_FALSE(c_subject().locals->at(0, -8, 8).has_value());
}

namespace {

Subject* fortran_subject() {
  static Subject* s = std::string(STACK_TARGET_F).empty()
                          ? nullptr
                          : open_subject(STACK_TARGET_F, STACK_TARGET_F_SOURCE);
  return s;
}

}  // namespace

TEST(StackLocals, FortranAutomaticArrayBesideAFixedOne) {
  if (fortran_subject() == nullptr)
    GTEST_SKIP() << "no Fortran compiler with OpenMP: stack_target.f90 was not built";
  Subject& s = *fortran_subject();
  REQUIRE_CASE(s, "automatic");
  ASSERT_EQ(c.arrays.size(), 2u);
  const std::string function = s.symbols->lookup(c.pc).back().function;
  EXPECT_EQ(display_function_name(function).name, "stack_cases::automatic");
  expect_owned(s, c.pc, c.arrays[0],
               {StackVarKind::Automatic, "tmp", function, "real(kind=8)(:)", false});
  expect_owned(s, c.pc, c.arrays[1],
               {StackVarKind::Local, "loc", function, "real(kind=8)(4096)"});
}

TEST(StackLocals, FortranArrayTemporaryIsATemporary) {
  if (fortran_subject() == nullptr)
    GTEST_SKIP() << "no Fortran compiler with OpenMP: stack_target.f90 was not built";
  Subject& s = *fortran_subject();
  REQUIRE_CASE(s, "temporary");
  const std::string function = s.symbols->lookup(c.pc).back().function;
  EXPECT_EQ(display_function_name(function).name, "stack_cases::temporary");
  expect_owned(s, c.pc, c.arrays[0], {StackVarKind::Temporary, "", function, "", false});
}
