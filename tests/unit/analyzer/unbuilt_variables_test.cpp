// Variables with nothing measured are counted, not built (issue 23: CP2K's 290,000 sites without
// a sample took gigabytes): the report model without ReportModelOptions::all_variables must say
// everything the full model says about the variables it lists, the runtime groups and the notes,
// and count the others.
#include <map>
#include <sstream>
#include <utility>

#include <gtest/gtest.h>

#include "model/report_model.h"
#include "output/formatters.h"
#include "profile_builder.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

enum : uint32_t { App = 0, Libc = 1, Gomp = 2 };

Profile make_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.set_meta("min_bytes", "4096");
  db.set_meta("small_every", "auto");
  db.modules = {{"/opt/app/bin/app", "", 0},
                {"/lib/x86_64-linux-gnu/libc.so.6", "", 0},
                {"/lib/x86_64-linux-gnu/libgomp.so.1", "", 0}};
  const Frame malloc_fr{Libc, 0x10}, grid{App, 0x100}, gomp_thread{Gomp, 0x1d000};
  db.sites = {
      {AllocApi::Malloc, 0, {malloc_fr, grid, {App, 0x200}}, 3, 1 << 20},          // 0: sampled
      {AllocApi::Malloc, 0, {malloc_fr, grid, {App, 0x300}}, 5, 1 << 10},          // 1: quiet
      {AllocApi::Malloc, 0, {malloc_fr, gomp_thread}, 7, 4096},                    // 2: quiet, libgomp's
      {AllocApi::Malloc, kSiteSampled, {malloc_fr, {App, 0x400}}, 11, 64},         // 3: quiet, sampled small
      {AllocApi::Malloc, kSiteSampled, {malloc_fr, {App, 0x500}}, 13, 128},        // 4: sampled small, samples
  };
  db.statics = {{App, 0x1000, 800, 0, "hot_table"}, {App, 0x2000, 64, 0, "cold_table"}};
  Tree t = new_tree(0);
  heap_sample(t, 0, {{App, 0x980}}, 40);
  heap_sample(t, 4, {{App, 0x980}}, 5);
  static_sample(t, 0, {{App, 0x990}}, 20);
  db.trees = {t};
  // Sorted by frame, as a database keeps its symbols.
  const std::map<Frame, SourceLoc> syms = {
      {malloc_fr, {"malloc", "", 0}},        {gomp_thread, {"libgomp.so.1!0x1d000", "", 0}},
      {grid, {"make_grid", "/src/grid.c", 4}}, {{App, 0x200}, {"solve", "/src/solve.c", 10}},
      {{App, 0x300}, {"setup", "/src/setup.c", 20}}, {{App, 0x400}, {"small", "/src/small.c", 30}},
      {{App, 0x500}, {"tiny", "/src/tiny.c", 40}},  {{App, 0x980}, {"kernel", "/src/kernel.c", 7}},
      {{App, 0x990}, {"kernel", "/src/kernel.c", 9}}};
  for (const auto& [f, loc] : syms) db.symbols.push_back(Symbolized{f, {loc}});
  return db;
}

const Variable* find(const ReportModel& m, const std::string& name) {
  for (const Variable& v : m.variables)
    if (v.name == name) return &v;
  return nullptr;
}

// The database's model with every variable built (first), and without (second).
std::pair<ReportModel, ReportModel> both_models() {
  const Profile db = make_database();
  ReportModelOptions lean;
  lean.all_variables = false;
  return {build_report_model(db), build_report_model(db, lean)};
}

TEST(UnbuiltVariables, CountedNotBuiltAndTheReportUnchanged) {
  const auto [all, m] = both_models();

  // Site 1 (setup), site 3 (small) and cold_table have nothing measured; libgomp's site 2 is
  // folded into its group row, which keeps its count.
  EXPECT_EQ(m.variables_not_built, 3u);
  EXPECT_EQ(all.variables_not_built, 0u);
  size_t unsampled_rows = 0;
  for (const Variable& v : all.variables)
    if (v.samples == 0 && v.kind != VariableKind::Group) ++unsampled_rows;
  EXPECT_EQ(unsampled_rows, m.variables_not_built);
  for (const Variable& v : m.variables) EXPECT_TRUE(v.samples > 0 || v.kind == VariableKind::Group) << v.name;

  // The rows that are listed say the same, in the same order; the measured site keeps the label
  // its quiet neighbour made distinct ("make_grid ... ← solve").
  ASSERT_EQ(m.variables.size() + m.variables_not_built, all.variables.size());
  for (size_t i = 0; i < m.variables.size(); ++i) {
    const Variable& v = m.variables[i];
    const Variable& w = all.variables[i];
    EXPECT_EQ(v.name, w.name);
    EXPECT_EQ(v.samples, w.samples);
    EXPECT_DOUBLE_EQ(v.share, w.share);
    EXPECT_EQ(v.bytes, w.bytes);
    EXPECT_EQ(v.allocations, w.allocations);
    EXPECT_EQ(v.hottest_access, w.hottest_access);
  }
  EXPECT_NE(find(m, "make_grid (grid.c:4) ← solve (solve.c:10)"), nullptr);

  // The OpenMP group holds only a quiet site: a row without samples, its bytes and allocations.
  const Variable* openmp = find(m, "[OpenMP runtime data]");
  ASSERT_NE(openmp, nullptr);
  EXPECT_EQ(openmp->samples, 0u);
  EXPECT_EQ(openmp->allocations, 7u);
  EXPECT_EQ(openmp->bytes, 4096u);
  ASSERT_EQ(openmp->libraries.size(), 1u);
  EXPECT_EQ(openmp->libraries[0].variables, 1u);
  EXPECT_EQ(m.grouped_variables, all.grouped_variables);
  EXPECT_EQ(m.grouped_variables, 1u);

  // The notes count the quiet sampled-small site too ("2 variables ... tiny ...; and 1 more").
  EXPECT_EQ(m.notes, all.notes);
  bool counted = false;
  for (const std::string& n : m.notes)
    counted |= n.starts_with("Sampled small allocations, 2 variables") && n.find("and 1 more") != std::string::npos;
  EXPECT_TRUE(counted);
}

// What a reader and a script are told of them: the same count as when they were built and hidden.
TEST(UnbuiltVariables, TheReportsCountThem) {
  const auto [all, m] = both_models();
  std::ostringstream text_lean, text_all, json;
  write_text(m, ReportOptions{}, text_lean);
  write_text(all, ReportOptions{}, text_all);
  // The OpenMP group of quiet sites is a row without samples: hidden, and counted with them.
  const std::string line = "(4 variables without samples not shown; --all shows them)";
  EXPECT_NE(text_lean.str().find(line), std::string::npos) << text_lean.str();
  EXPECT_EQ(text_lean.str(), text_all.str());
  write_json(m, ReportOptions{}, json);
  EXPECT_NE(json.str().find("\"unlisted_variables\": 3"), std::string::npos);
}

}  // namespace
}  // namespace hpcl::analysis
