// What the binaries say about sampled accesses (symbols/code_facts.h) on a shared object built
// -O2 -g (access_target.c): each function's loop accesses, found by decoding the function the
// test opened, get their pattern and the DWARF type and offset of the data they read.
#include <dlfcn.h>
#include <link.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/report_model.h"
#include "profile_builder.h"
#include "hpcl/x86/operands.h"
#include "symbols/code_cfg.h"
#include "symbols/code_facts.h"

using namespace hpcl::analysis;

namespace {

struct Target {
  void* handle = nullptr;
  std::vector<hpcl::Module> modules;
  CodeFacts* facts = nullptr;
};

Target& target() {
  static Target t = [] {
    Target x;
    x.handle = dlopen(ACCESS_TARGET, RTLD_NOW | RTLD_LOCAL);
    x.modules.push_back(hpcl::Module{ACCESS_TARGET, "", 0});
    x.facts = new CodeFacts(x.modules);
    return x;
  }();
  return t;
}

// The link-time offsets of the data accesses in function `name`, in code order, with their
// instructions' mnemonics.
std::vector<uint64_t> accesses_of(const char* name) {
  Target& t = target();
  void* sym = dlsym(t.handle, name);
  Dl_info info;
  void* entry = nullptr;
  if (sym == nullptr || dladdr1(sym, &info, &entry, RTLD_DL_SYMENT) == 0 || entry == nullptr) return {};
  const auto* es = static_cast<const ElfW(Sym)*>(entry);
  const auto base = reinterpret_cast<uint64_t>(info.dli_fbase);
  const auto start = reinterpret_cast<uint64_t>(sym);
  FunctionCode f(reinterpret_cast<const uint8_t*>(start), es->st_size, start - base);
  std::vector<uint64_t> out;
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  for (size_t i = 0; i < f.insns().size(); ++i) {
    if (!f.decode(static_cast<int>(i), &in, ops)) continue;
    const int m = hpcl::x86::access_operand(in, ops);
    if (m >= 0 && !hpcl::x86::stack_only(ops[m])) out.push_back(f.insns()[i].addr);
  }
  return out;
}

// The facts of the accesses of `name` that are in a loop.
std::vector<const InstructionFacts*> loop_facts(const char* name) {
  std::vector<const InstructionFacts*> out;
  for (uint64_t a : accesses_of(name)) {
    const InstructionFacts& x = target().facts->at(0, a);
    if (x.pattern.loop_head != 0) out.push_back(&x);
  }
  return out;
}

}  // namespace

TEST(CodeFacts, RecordFieldsFromTheParametersType) {
  ASSERT_NE(target().handle, nullptr) << dlerror();
  const auto facts = loop_facts("sum_records");
  ASSERT_FALSE(facts.empty());
  std::vector<uint64_t> offsets;
  for (const InstructionFacts* x : facts) {
    EXPECT_EQ(x->pattern.kind, PatternKind::Strided);
    EXPECT_EQ(x->pattern.stride, 64);
    ASSERT_TRUE(x->element.has_value()) << x->type_why;
    EXPECT_EQ(x->element->name, "struct rec");
    EXPECT_EQ(x->element->size, 64u);
    EXPECT_EQ(x->holder, "r");
    ASSERT_TRUE(x->offset_known);
    offsets.push_back(x->offset_in_element);
  }
  std::sort(offsets.begin(), offsets.end());
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 56}));  // x and y
  const DataType& t = *facts[0]->element;
  ASSERT_EQ(t.members.size(), 8u);
  EXPECT_EQ(t.members_at(56, 8).at(0)->name, "y");
}

TEST(CodeFacts, StaticArrayGivesItsDimensionsAndPitches) {
  const auto facts = loop_facts("sum_grid_columns");
  ASSERT_FALSE(facts.empty());
  const InstructionFacts& x = *facts[0];
  EXPECT_EQ(x.pattern.kind, PatternKind::Strided);
  EXPECT_EQ(x.pattern.stride, 4096);
  ASSERT_TRUE(x.element.has_value()) << x.type_why;
  EXPECT_EQ(x.element->name, "double");
  EXPECT_EQ(x.element->dims, (std::vector<uint64_t>{512, 512}));
  EXPECT_EQ(x.element->pitches, (std::vector<uint64_t>{4096, 8}));
  EXPECT_TRUE(x.in_static);
}

TEST(CodeFacts, StaticRecordsGiveTheMemberRead) {
  const auto facts = loop_facts("sum_table");
  ASSERT_FALSE(facts.empty());
  for (const InstructionFacts* x : facts) {
    ASSERT_TRUE(x->element.has_value()) << x->type_why;
    EXPECT_EQ(x->element->name, "struct rec");
    ASSERT_TRUE(x->offset_known);
    EXPECT_EQ(x->offset_in_element % 64, 8u);  // table[i].a
  }
}

// A local array of records: the loop's address is the frame's (entry rsp + a constant), and the
// local whose DWARF location covers it there gives the type and the member read.
TEST(CodeFacts, LocalRecordsGiveTheMemberRead) {
  const auto facts = loop_facts("sum_local_records");
  ASSERT_FALSE(facts.empty());
  std::vector<uint64_t> offsets;
  for (const InstructionFacts* x : facts) {
    if (x->pattern.stride != 64) continue;  // the initialisation's loop may be vectorised
    ASSERT_TRUE(x->element.has_value()) << x->type_why;
    EXPECT_EQ(x->element->name, "struct rec");
    EXPECT_EQ(x->element->dims, std::vector<uint64_t>{256});
    EXPECT_EQ(x->holder, "local");
    ASSERT_TRUE(x->offset_known);
    offsets.push_back(x->offset_in_element);
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 16}));  // x and b
}

// Records inside a local structure: the member array the loop walks gives the element, and the
// offsets count from that array's start (8 bytes into the structure).
TEST(CodeFacts, RecordsInsideALocalStructureAreTheArraysElements) {
  const auto facts = loop_facts("sum_local_box");
  ASSERT_FALSE(facts.empty());
  std::vector<uint64_t> offsets;
  for (const InstructionFacts* x : facts) {
    if (x->pattern.stride != 64) continue;
    ASSERT_TRUE(x->element.has_value()) << x->type_why;
    EXPECT_EQ(x->element->name, "struct rec");
    EXPECT_EQ(x->element->dims, std::vector<uint64_t>{256});
    ASSERT_TRUE(x->offset_known);
    offsets.push_back(x->offset_in_element);
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 56}));  // x and y
}

TEST(CodeFacts, ListNodesAreDependentAndTyped) {
  const auto facts = loop_facts("walk");
  ASSERT_FALSE(facts.empty());
  for (const InstructionFacts* x : facts) {
    EXPECT_EQ(x->pattern.kind, PatternKind::Dependent);
    ASSERT_TRUE(x->element.has_value()) << x->type_why;
    EXPECT_EQ(x->element->name, "struct node");
    EXPECT_EQ(x->holder, "p");
  }
}

TEST(CodeFacts, PointerLoadedFromAMemberIsTypedByTheMember) {
  const auto facts = loop_facts("sum_wrapped");
  ASSERT_FALSE(facts.empty());
  bool data = false;
  for (const InstructionFacts* x : facts)
    if (x->element && x->holder == "w->data") {
      EXPECT_EQ(x->element->name, "double");
      EXPECT_EQ(x->pattern.kind, PatternKind::Sequential);
      data = true;
    }
  EXPECT_TRUE(data) << "w->data[i] typed through the member";
}

TEST(CodeFacts, PointerFromMallocIsTypedByTheVariableHoldingIt) {
  const auto facts = loop_facts("make_ramp");
  ASSERT_FALSE(facts.empty());
  const InstructionFacts& x = *facts[0];
  EXPECT_EQ(x.pattern.kind, PatternKind::Sequential);
  EXPECT_EQ(x.pattern.origin.kind, AddressOrigin::Kind::Returned);
  ASSERT_TRUE(x.element.has_value()) << x.type_why;
  EXPECT_EQ(x.element->name, "double");
  EXPECT_EQ(x.holder, "p");
}

TEST(CodeFacts, RunTimeStrideNamesTheParameter) {
  const auto facts = loop_facts("sum_columns_of");
  ASSERT_FALSE(facts.empty());
  bool named = false;
  for (const InstructionFacts* x : facts)
    if (x->pattern.kind == PatternKind::Unknown && x->why.find("n (the parameter in %rsi)") != std::string::npos)
      named = true;
  EXPECT_TRUE(named) << facts[0]->why;
}

TEST(CodeFacts, MissingModuleSaysSo) {
  std::vector<hpcl::Module> modules{{"/nonexistent/hpcl/lib.so", "", 0}};
  CodeFacts facts(modules);
  const InstructionFacts& x = facts.at(0, 0x1000);
  EXPECT_TRUE(x.unreadable);
  EXPECT_NE(x.why.find("not found"), std::string::npos) << x.why;
  EXPECT_EQ(facts.unreadable(), (std::vector<std::string>{"lib.so (not found)"}));
}

namespace {

uint64_t link_address(const char* name, size_t* size) {
  void* sym = dlsym(target().handle, name);
  Dl_info info;
  void* entry = nullptr;
  if (sym == nullptr || dladdr1(sym, &info, &entry, RTLD_DL_SYMENT) == 0 || entry == nullptr) return 0;
  *size = static_cast<const ElfW(Sym)*>(entry)->st_size;
  return reinterpret_cast<uint64_t>(sym) - reinterpret_cast<uint64_t>(info.dli_fbase);
}

// A database whose samples sit on the target's instructions: a heap block read by sum_records
// (30 samples on the x load, 10 on the y load) and the static grid walked by columns.
hpcl::Profile evidence_database() {
  using namespace hpcl;
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.modules = {{ACCESS_TARGET, "", 0}};
  const std::vector<uint64_t> recs = accesses_of("sum_records");
  std::vector<uint64_t> grid;  // the column walk's load (not the GOT load before the loop)
  for (uint64_t a : accesses_of("sum_grid_columns"))
    if (target().facts->at(0, a).pattern.loop_head != 0) grid.push_back(a);
  size_t grid_size = 0;
  const uint64_t grid_at = link_address("grid", &grid_size);
  db.sites = {{AllocApi::Malloc, 0, {{0, recs.empty() ? 0 : recs[0] - 1}}, 1, 64 * 1024}};
  db.statics = {{0, grid_at, grid_size, 0, "grid"}};
  Tree t = hpcl::testing::new_tree(0);
  if (recs.size() >= 2) {
    hpcl::testing::heap_sample(t, 0, {{0, recs[0]}}, 30);
    hpcl::testing::heap_sample(t, 0, {{0, recs[1]}}, 10);
  }
  if (!grid.empty()) hpcl::testing::static_sample(t, 0, {{0, grid[0]}}, 50);
  db.trees = {t};
  return db;
}

const Variable* named(const ReportModel& m, VariableKind kind) {
  for (const Variable& v : m.variables)
    if (v.kind == kind) return &v;
  return nullptr;
}

}  // namespace

TEST(AccessEvidence, FieldsShareTheirLoopsSamplesAndAdviceNamesThem) {
  const hpcl::Profile db = evidence_database();
  ASSERT_EQ(db.trees[0].nodes.empty(), false);
  const ReportModel m = build_report_model(db);
  const Variable* recs = named(m, VariableKind::Heap);
  ASSERT_NE(recs, nullptr);
  const AccessEvidence& e = recs->evidence;
  ASSERT_TRUE(e.analysed);
  EXPECT_EQ(e.element_type, "struct rec");
  EXPECT_EQ(e.element_size, 64u);
  // Each instruction's samples spread over the 16 bytes its loop reads: 20 and 20.
  ASSERT_EQ(e.fields.size(), 2u);
  EXPECT_EQ(e.fields[0].name, "x");
  EXPECT_EQ(e.fields[1].name, "y");
  EXPECT_DOUBLE_EQ(e.fields[0].samples, 20.0);
  EXPECT_DOUBLE_EQ(e.fields[1].samples, 20.0);
  EXPECT_EQ(e.hot_bytes, 16u);
  EXPECT_DOUBLE_EQ(e.hot_share, 1.0);
  EXPECT_EQ(hot_bytes_text(e), "16 of 64 bytes take 100% of the samples");
  ASSERT_FALSE(e.advice.empty());
  EXPECT_EQ(e.advice[0].kind, "split_structure");
  EXPECT_NE(e.advice[0].text.find("Fields x and y (16 of the 64 bytes of struct rec)"), std::string::npos)
      << e.advice[0].text;
  for (const AccessPath& a : recs->accesses) EXPECT_EQ(a.pattern.kind, PatternKind::Strided);
}

// The fields of the loop that matters (issue 38): an initialisation that writes every field of
// the records, with more samples than the loop that reads x and y, neither hides the two hot
// fields nor keeps the advice to split, which says whose samples they are.
TEST(AccessEvidence, AnInitialisationDoesNotDiluteTheReadingLoopsFields) {
  hpcl::Profile db = evidence_database();
  const std::vector<uint64_t> init = accesses_of("init_records");
  ASSERT_FALSE(init.empty());
  for (uint64_t a : init) hpcl::testing::heap_sample(db.trees[0], 0, {{0, a}}, 60 / init.size() + 1);
  const ReportModel m = build_report_model(db);
  const Variable* recs = named(m, VariableKind::Heap);
  ASSERT_NE(recs, nullptr);
  const AccessEvidence& e = recs->evidence;
  ASSERT_TRUE(e.analysed);
  EXPECT_EQ(e.hot_fields, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(e.hot_bytes, 16u);
  EXPECT_DOUBLE_EQ(e.hot_share, 1.0);
  EXPECT_LT(e.hot_loop_share, 0.5) << "the reading loop has 40 of the ~100 samples";
  ASSERT_FALSE(e.advice.empty());
  EXPECT_EQ(e.advice[0].kind, "split_structure");
  EXPECT_NE(e.advice[0].text.find("Fields x and y (16 of the 64 bytes of struct rec) take 100% of the samples of"),
            std::string::npos)
      << e.advice[0].text;
}

TEST(AccessEvidence, StaticArrayStrideIsNamedAsItsPitch) {
  const ReportModel m = build_report_model(evidence_database());
  const Variable* grid = named(m, VariableKind::Static);
  ASSERT_NE(grid, nullptr);
  const AccessEvidence& e = grid->evidence;
  ASSERT_FALSE(e.lines.empty());
  EXPECT_EQ(e.lines[0].pattern.kind, PatternKind::Strided);
  EXPECT_EQ(e.lines[0].pattern.stride, 4096);
  EXPECT_EQ(e.dims, (std::vector<uint64_t>{512, 512}));
  EXPECT_EQ(e.fields_note, "no fields: its elements are double (8 bytes)");
  ASSERT_EQ(e.advice.size(), 1u);
  EXPECT_EQ(e.advice[0].kind, "storage_order");
  EXPECT_NE(e.advice[0].text.find("the pitch of its first index (double [512][512]: a row)"), std::string::npos)
      << e.advice[0].text;
  EXPECT_NE(e.advice[0].text.find("interchange the two loops"), std::string::npos);
}

// A local array of records (issue 38): a stack row gets its element and fields from the local's
// own DWARF type, as a heap block gets them from the pointer's.
TEST(AccessEvidence, LocalArrayOfRecordsGetsItsFieldsAndAdvice) {
  using namespace hpcl;
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.modules = {{ACCESS_TARGET, "", 0}};
  std::vector<uint64_t> loop;
  for (uint64_t a : accesses_of("sum_local_records"))
    if (target().facts->at(0, a).pattern.stride == 64) loop.push_back(a);
  ASSERT_GE(loop.size(), 2u);
  Tree t = hpcl::testing::new_tree(0);
  const Frame owner{0, loop[0]};
  hpcl::testing::stack_sample(t, owner, -4096, 256, {{0, loop[0]}}, 30);
  hpcl::testing::stack_sample(t, owner, -4096, 256, {{0, loop[1]}}, 10);
  db.trees = {t};
  db.stack_vars = {{StackVarKind::Local, "local", "sum_local_records", "access_target.c", 62, -16400, 16384,
                    "struct rec[256]"}};
  db.stack_slots = {{owner, -4096, 256, 0}};
  const ReportModel m = build_report_model(db);
  const Variable* local = named(m, VariableKind::Stack);
  ASSERT_NE(local, nullptr);
  const AccessEvidence& e = local->evidence;
  ASSERT_TRUE(e.analysed);
  EXPECT_EQ(e.element_type, "struct rec");
  ASSERT_EQ(e.fields.size(), 2u) << e.fields_note;
  EXPECT_EQ(e.fields[0].name, "x");
  EXPECT_EQ(e.fields[1].name, "b");
  EXPECT_EQ(e.hot_bytes, 16u);
  EXPECT_EQ(hot_bytes_text(e), "16 of 64 bytes take 100% of the samples");
  EXPECT_TRUE(e.advice.empty()) << "16 KiB stays in the caches: no split is worth it";
}
