// The report model at scale (issue 10): access paths share frames, so what the model holds must
// grow with the distinct frames and names, not with paths x depth. Checked by counting interned
// strings and expanded paths, never by timing; and the lazily expanded paths must be exactly
// the eagerly expanded ones, so the JSON report is the same text either way.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "output/formatters.h"
#include "symbols/interned_string.h"
#include "profile_builder.h"
#include "model/report_model.h"
#include "model/report_parts.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

constexpr uint32_t kFunctions = 40;
constexpr int kPaths = 3000;
constexpr int kDepth = 8;

// One heap site and one static; kPaths access paths kDepth frames deep drawn from kFunctions
// symbolized frames (every fifth one a call site whose callee tail-called onward), plus
// unsymbolized frames of a library.
Profile many_paths_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.modules = {{"/opt/scale/bin/app", "", 0}, {"/opt/scale/lib/libsolver.so", "", 0}};
  db.sites = {{AllocApi::Malloc, 0, {{0, 0x100}}, 1, 1 << 20}};
  db.statics = {{0, 0x8000, 4096, 0, "table"}};
  std::map<Frame, Symbolized> syms;
  for (uint32_t f = 0; f < kFunctions; ++f) {
    Frame frame{0, 0x1000 + 0x10 * uint64_t{f}};
    Symbolized s{frame, {{"solver::f" + std::to_string(f), "/src/f" + std::to_string(f % 7) + ".cpp", f + 1}}};
    if (f % 5 == 0) s.callee = {"solver::trampoline", "/src/t.cpp", 3};
    syms.emplace(frame, s);
  }
  syms.emplace(Frame{0, 0x100}, Symbolized{{0, 0x100}, {{"make_table", "/src/main.cpp", 9}}});
  for (auto& [f, s] : syms) db.symbols.push_back(s);
  Tree t = new_tree(0);
  uint64_t x = 12345;
  for (int p = 0; p < kPaths; ++p) {
    std::vector<Frame> frames;
    for (int d = 0; d < kDepth; ++d) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t f = static_cast<uint32_t>(x >> 33);
      frames.push_back(d == kDepth - 1 && p % 3 == 0 ? Frame{1, 0x5000 + (f % 64)}
                                                     : Frame{0, 0x1000 + 0x10 * uint64_t{f % kFunctions}});
    }
    if (p % 2 == 0) heap_sample(t, 0, frames, 1 + p % 17);
    else static_sample(t, 0, frames, 1 + p % 13);
  }
  db.trees = {t};
  return db;
}

std::string json_of(const ReportModel& m) {
  std::ostringstream out;
  ReportOptions o;
  o.top = 0;
  write_json(m, o, out);
  return out.str();
}

TEST(ReportScale, LazilyExpandedPathsAreTheEagerOnes) {
  const Profile db = many_paths_database();
  const ReportModel eager = build_report_model(db);
  ReportModelOptions lazy_options;
  lazy_options.expand_access_paths = 0;
  const ReportModel lazy = build_report_model(db, lazy_options);
  ASSERT_EQ(eager.variables.size(), lazy.variables.size());
  size_t paths = 0;
  std::vector<Location> scratch;
  for (size_t v = 0; v < eager.variables.size(); ++v) {
    const Variable& e = eager.variables[v];
    const Variable& l = lazy.variables[v];
    EXPECT_EQ(e.hottest_access, l.hottest_access);
    ASSERT_EQ(e.accesses.size(), l.accesses.size());
    for (size_t k = 0; k < e.accesses.size(); ++k) {
      EXPECT_TRUE(e.accesses[k].expanded);
      EXPECT_FALSE(l.accesses[k].expanded);
      EXPECT_TRUE(l.accesses[k].path.empty());  // nothing held per path
      const std::vector<Location>& got = lazy.access_path(l.accesses[k], scratch);
      ASSERT_EQ(got.size(), e.accesses[k].path.size());
      for (size_t j = 0; j < got.size(); ++j) {
        EXPECT_EQ(got[j].function, e.accesses[k].path[j].function);
        EXPECT_EQ(got[j].file, e.accesses[k].path[j].file);
        EXPECT_EQ(got[j].line, e.accesses[k].path[j].line);
        EXPECT_EQ(got[j].module, e.accesses[k].path[j].module);
        EXPECT_EQ(got[j].offset, e.accesses[k].path[j].offset);
        EXPECT_EQ(got[j].tail_call, e.accesses[k].path[j].tail_call);
      }
      ++paths;
    }
  }
  EXPECT_GT(paths, 1000u);
  EXPECT_EQ(json_of(eager), json_of(lazy));
}

TEST(ReportScale, NamesAreInternedOncePerDistinctString) {
  const Profile db = many_paths_database();
  const size_t before = InternedString::pool_size();
  const ReportModel m = build_report_model(db);
  const size_t added = InternedString::pool_size() - before;
  size_t frames = 0;
  for (const Variable& v : m.variables)
    for (const AccessPath& a : v.accesses) frames += a.path.size();
  EXPECT_GT(frames, 10000u);
  // 41 functions, 8 files, 2 modules, the trampoline and its file, "malloc": at most these are
  // new (other tests may have interned some already), whatever the number of paths.
  EXPECT_LE(added, kFunctions + 1 + 8 + 2 + 2 + 1);
  build_report_model(db);
  EXPECT_EQ(InternedString::pool_size() - before, added);
  // A frame is a few words: three pointers, the line, the offsets and flags.
  EXPECT_LE(sizeof(Location), 64u);
}

TEST(ReportScale, InternedStringsReadAsTheirText) {
  InternedString a = std::string("solver::f1");
  InternedString b = "solver::f1";
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.data(), b.data());  // one copy
  EXPECT_EQ(a, "solver::f1");
  EXPECT_EQ(a.str() + "()", "solver::f1()");
  EXPECT_LT(InternedString("abc"), InternedString("abd"));
  EXPECT_TRUE(InternedString().empty());
  EXPECT_EQ(InternedString(""), InternedString());
  std::string_view view = a;
  EXPECT_EQ(view, "solver::f1");
}

// The rows are sorted by index and moved into place once (a Variable is 1.3 KB: std::stable_sort's
// buffer of them took 280 MB under --all on CP2K). The order must be std::stable_sort's: ties
// (here 7 values over 2,000 rows, and permutations of many cycles) keep their input order.
TEST(ReportScale, RowsSortLikeStableSortWithoutItsBuffer) {
  std::vector<Variable> rows(2000);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].name = std::to_string(i);
    rows[i].samples = (i * 7919) % 7;
  }
  std::vector<Variable> expected = rows;
  auto less = [](const Variable& x, const Variable& y) { return x.samples > y.samples; };
  std::stable_sort(expected.begin(), expected.end(), less);
  stable_sort_rows(rows, less);
  ASSERT_EQ(rows.size(), expected.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].name, expected[i].name) << i;
    ASSERT_EQ(rows[i].samples, expected[i].samples) << i;
  }
  std::vector<Variable> none;
  stable_sort_rows(none, less);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace hpcl::analysis
