// What to try (model/advice.h): each rule speaks only from its evidence, and only past its
// thresholds; its text names the evidence.
#include <gtest/gtest.h>

#include <string>

#include "model/advice.h"
#include "model/report_model.h"
#include "output/text_evidence.h"

using namespace hpcl::analysis;

namespace {

LinePattern line(const char* label, uint64_t samples, PatternKind kind, int64_t stride = 0, double line_use = 0) {
  LinePattern l;
  l.label = label;
  l.samples = samples;
  l.pattern.analysed = true;
  l.pattern.kind = kind;
  if (kind == PatternKind::Strided || kind == PatternKind::Sequential) {
    l.pattern.has_stride = true;
    l.pattern.stride = stride;
    l.pattern.has_line_use = true;
    l.pattern.line_use = line_use;
  }
  return l;
}

Variable heap(uint64_t samples) {
  Variable v;
  v.kind = VariableKind::Heap;
  v.name = "alloc_field";
  v.samples = samples;
  v.bytes = 64 << 20;
  v.evidence.analysed = true;
  return v;
}

std::vector<std::string> kinds(const Variable& v) {
  ReportModel m;
  std::vector<std::string> out;
  for (const Advice& a : advise(v, m)) out.push_back(a.kind);
  return out;
}

std::string text(const Variable& v, const ReportModel& m = {}) {
  const std::vector<Advice> a = advise(v, m);
  return a.empty() ? std::string() : a[0].text;
}

}  // namespace

TEST(Advice, LargeStrideOnATwoDimensionalWalkSaysStorageOrder) {
  Variable v = heap(100);
  LinePattern l = line("column_means_bad (heat2d.c:101)", 80, PatternKind::Strided, 16384, 0.125);
  l.pattern.has_outer_stride = true;
  l.pattern.outer_stride = 8;
  v.evidence.lines = {l};
  const std::string t = text(v);
  EXPECT_EQ(kinds(v), std::vector<std::string>{"storage_order"});
  EXPECT_NE(t.find("column_means_bad (heat2d.c:101) walks it with a constant stride of 16,384 bytes"), std::string::npos) << t;
  EXPECT_NE(t.find("using 8 of each 64-byte line"), std::string::npos) << t;
  EXPECT_NE(t.find("(80% of its samples)"), std::string::npos) << t;
  EXPECT_NE(t.find("a row of 2,048 elements"), std::string::npos) << t;
  EXPECT_NE(t.find("interchange the two loops"), std::string::npos) << t;
}

TEST(Advice, StrideWithoutANestDoesNotSayInterchange) {
  Variable v = heap(100);
  v.evidence.lines = {line("f (a.c:3)", 80, PatternKind::Strided, 4096, 0.125)};
  const std::string t = text(v);
  EXPECT_NE(t.find("Traverse it in storage order"), std::string::npos) << t;
  EXPECT_EQ(t.find("interchange"), std::string::npos) << t;
}

TEST(Advice, DataThatStaysInCacheGetsNoTraversalAdvice) {
  Variable v = heap(100);
  v.bytes = 64;  // LAMMPS's pair coefficient tables, read through the atoms' types
  v.evidence.lines = {line("compute", 100, PatternKind::Indirect)};
  EXPECT_TRUE(kinds(v).empty());
  v.evidence.lines = {line("f", 80, PatternKind::Strided, 16384, 0.125)};
  EXPECT_TRUE(kinds(v).empty());
  v.bytes = 64 * 1024;
  EXPECT_EQ(kinds(v), std::vector<std::string>{"storage_order"});
}

TEST(Advice, StrideBelowItsThresholdsSaysNothing) {
  Variable few = heap(100);
  few.evidence.lines = {line("f", 9, PatternKind::Strided, 16384, 0.125)};  // 9% of its samples
  EXPECT_TRUE(kinds(few).empty());
  Variable line_sized = heap(100);
  line_sized.evidence.lines = {line("f", 90, PatternKind::Strided, 64, 0.125)};  // not beyond a line
  EXPECT_TRUE(kinds(line_sized).empty());
  Variable seq = heap(100);
  seq.evidence.lines = {line("f", 90, PatternKind::Sequential, 8, 1.0)};
  EXPECT_TRUE(kinds(seq).empty());
}

TEST(Advice, FewHotFieldsOfALargeElementSaySplit) {
  Variable v = heap(100);
  AccessEvidence& e = v.evidence;
  e.lines = {line("decay (r.c:9)", 100, PatternKind::Strided, 64, 0.25)};
  e.has_element = true;
  e.element_type = "struct rec";
  e.element_size = 64;
  e.fields = {{"x", 0, 8, 50}, {"y", 56, 8, 47}};
  e.hot_fields = {"x", "y"};
  e.hot_bytes = 16;
  e.hot_share = 0.97;
  e.hot_loop_share = 1.0;
  // A walk over whole records is the split's case, not storage order's.
  EXPECT_EQ(kinds(v), std::vector<std::string>{"split_structure"});
  const std::string t = text(v);
  EXPECT_NE(t.find("Fields x and y (16 of the 64 bytes of struct rec) take 97% of its samples"), std::string::npos) << t;
  EXPECT_NE(t.find("structure of arrays"), std::string::npos) << t;
  // Judged on the loop that matters: an initialisation elsewhere that writes every field (a
  // loop of its own) leaves the advice, and the text says whose samples they are.
  e.hot_loop = "move (p.c:40)";
  e.hot_loop_share = 0.6;
  EXPECT_EQ(kinds(v), std::vector<std::string>{"split_structure"});
  EXPECT_NE(text(v).find("take 97% of the samples of its hottest loop, move (p.c:40), which has 60% of its samples"),
            std::string::npos)
      << text(v);
  e.hot_loop_share = 0.2;  // a loop that hardly matters to the variable
  EXPECT_TRUE(kinds(v).empty());
  e.hot_loop.clear();
  e.hot_loop_share = 1.0;
  e.hot_bytes = 40;  // more than half the element
  EXPECT_TRUE(kinds(v).empty());
  e.hot_bytes = 8;
  e.element_size = 16;  // a small element
  EXPECT_TRUE(kinds(v).empty());
}

TEST(Advice, PointerChasingOverManySmallBlocksSaysAllocateContiguously) {
  Variable v = heap(100);
  v.allocations = 100000;
  v.bytes = 4800000;
  v.evidence.lines = {line("walk (l.c:20)", 90, PatternKind::Dependent)};
  EXPECT_EQ(kinds(v), std::vector<std::string>{"contiguous_allocation"});
  EXPECT_NE(text(v).find("100,000 blocks of 48 bytes"), std::string::npos) << text(v);
  v.allocations = 10;  // one block or a few: no pool to make
  EXPECT_TRUE(kinds(v).empty());
  v.allocations = 100;
  v.bytes = 100 * 8192;  // large blocks
  EXPECT_TRUE(kinds(v).empty());
}

TEST(Advice, IndirectAccessesSaySortTheIndex) {
  Variable v = heap(100);
  v.evidence.lines = {line("gather (g.c:7)", 40, PatternKind::Indirect), line("init", 60, PatternKind::Sequential, 8, 1)};
  EXPECT_EQ(kinds(v), std::vector<std::string>{"sort_index"});
  EXPECT_NE(text(v).find("gather (g.c:7) reads it through indices or pointers loaded in the loop (indirect, 40%"),
            std::string::npos) << text(v);
  v.evidence.lines[0].samples = 20;
  v.evidence.lines[1].samples = 80;
  EXPECT_TRUE(kinds(v).empty());
}

TEST(Advice, FalseSharingSaysPadAndNamesTheOffsets) {
  Variable v = heap(100);
  v.watch.sharing.present = true;
  v.watch.sharing.false_sharing = true;
  v.watch.sharing.false_traps = 40;
  v.watch.sharing.offsets = {0, 8};
  EXPECT_EQ(kinds(v), std::vector<std::string>{"pad_shared_fields"});
  EXPECT_NE(text(v).find("at byte offsets 0, 8 of the line"), std::string::npos) << text(v);
}

TEST(Advice, SerialFirstTouchOfSharedDataSaysInitialiseInParallel) {
  Variable v = heap(100);
  v.page_faults = 2048;
  v.first_touch.serial = true;
  v.has_balance = true;
  v.threads.with = 4;
  EXPECT_EQ(kinds(v), std::vector<std::string>{"parallel_first_touch"});
  ReportModel one_node;
  one_node.numa_nodes = 1;
  EXPECT_NE(text(v, one_node).find("this machine has one NUMA node"), std::string::npos);
  v.threads.with = 1;  // used by one thread only
  EXPECT_TRUE(kinds(v).empty());
}

TEST(Advice, PatternAndFieldsTexts) {
  PatternView p = line("", 0, PatternKind::Strided, 16384, 0.125).pattern;
  EXPECT_EQ(pattern_text(p, true), "strided 16384 B, 8 of 64 B per line");
  p.kind = PatternKind::Unknown;
  p.why = "it is in no loop of its function";
  EXPECT_EQ(pattern_text(p, true), "unknown: it is in no loop of its function");
  EXPECT_EQ(pattern_text(PatternView{}, true), "-");
  Variable v = heap(100);
  v.evidence.element_type = "struct rec";
  v.evidence.element_size = 64;
  v.evidence.fields = {{"x", 0, 8, 48}, {"y", 56, 8, 47}};
  v.evidence.hot_bytes = 16;
  v.evidence.hot_share = 0.95;
  EXPECT_EQ(fields_text(v), "struct rec, 64 bytes: x 48%, y 47% (16 of 64 bytes take 95% of the samples)");
}
