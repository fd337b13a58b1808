// Heap and static names in the report model on a synthetic database: allocation wrappers
// skipped (and marked in JSON with label_frame), libstdc++ frames without sources skipped,
// distinct labels for distinct sites, Fortran module variables, COMMON blocks and OpenMP regions.
#include <unistd.h>

#include <map>
#include <set>
#include <sstream>

#include "output/formatters.h"
#include "symbols/naming.h"
#include "profile_builder.h"
#include "model/report_model.h"

#include <nlohmann/json.hpp>

// Reports are read back with nlohmann-json, which refuses what RFC 8259 refuses.
using Json = nlohmann::json;

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

const std::string kApp = "/opt/app/bin/app";
const std::string kLibc = "/lib/x86_64-linux-gnu/libc.so.6";
const std::string kStdcxx = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
const std::string kFortran = "/opt/app/bin/fprog";
enum : uint32_t { App = 0, Libc = 1, Stdcxx = 2, Fort = 3 };

Profile make_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.modules = {{kApp, "", 0}, {kLibc, "", 0}, {kStdcxx, "", 0}, {kFortran, "", 0}};
  const Frame malloc_fr{Libc, 0x10}, new_fr{Stdcxx, 0x20}, smalloc{App, 0x100}, main_fr{App, 0x990};
  db.sites = {
      {AllocApi::Malloc, 0, {malloc_fr, smalloc, {App, 0x200}, main_fr}, 1, 8192},     // 0
      {AllocApi::Malloc, 0, {malloc_fr, smalloc, {App, 0x210}, main_fr}, 1, 8192},     // 1
      {AllocApi::Malloc, 0, {malloc_fr, smalloc, {App, 0x300}, main_fr}, 1, 8192},     // 2
      {AllocApi::New, 0, {new_fr, {App, 0x400}, {App, 0x500}, main_fr}, 1, 8192},      // 3
      {AllocApi::Malloc, 0, {malloc_fr, {App, 0x600}, main_fr}, 1, 8192},              // 4
      {AllocApi::Malloc, 0, {malloc_fr, {App, 0x610}, main_fr}, 1, 8192},              // 5
      {AllocApi::Malloc, 0, {malloc_fr, {App, 0x800}, {App, 0x900}, main_fr}, 1, 8192},  // 6
      {AllocApi::Malloc, 0, {malloc_fr, {App, 0x800}, {App, 0x910}, main_fr}, 1, 8192},  // 7
      {AllocApi::Malloc, 0, {malloc_fr, {Fort, 0x40}, {Fort, 0x60}}, 1, 8192},           // 8
  };
  db.statics = {{Fort, 0x1000, 800, 0, "__fields_MOD_mod_table"},
                {Fort, 0x2000, 800, 0, "legacy_"},
                {App, 0x3000, 8, 0, "legacy_"}};
  Tree t = new_tree(0);
  for (uint32_t s = 0; s < db.sites.size(); ++s) heap_sample(t, s, {{App, 0x980}}, 100 - s);
  static_sample(t, 1, {{Fort, 0x50}, {Fort, 0x70}}, 50);  // outermost first
  db.trees = {t};

  std::map<Frame, std::vector<SourceLoc>> syms = {
      {malloc_fr, {{"malloc", "", 0}}},
      {new_fr, {{"operator new(unsigned long)", "", 0}}},
      {smalloc, {{"Memory::smalloc(unsigned long, char const*)", "/src/memory.cpp", 12}}},
      {{App, 0x200}, {{"setup_tables()", "/src/tables.cpp", 10}}},
      {{App, 0x210}, {{"setup_tables()", "/src/tables.cpp", 11}}},
      {{App, 0x300}, {{"Pair::init()", "/src/pair.cpp", 20}}},
      // libstdc++ growth compiled into the program, without DWARF.
      {{App, 0x400},
       {{"void std::vector<double, std::allocator<double> >::_M_realloc_insert<double>("
         "__gnu_cxx::__normal_iterator<double*, std::vector<double, std::allocator<double> > >, "
         "double&&)", "", 0}}},
      {{App, 0x500}, {{"fill_list(int)", "/src/list.cpp", 5}}},
      {{App, 0x600}, {{"make_block", "", 0}}},
      {{App, 0x610}, {{"make_block", "", 0}}},
      {{App, 0x800}, {{"build_grid", "/src/grid.c", 9}}},
      {{App, 0x900}, {{"x", "/src/x.c", 1}}},
      {{App, 0x910}, {{"y", "/src/y.c", 2}}},
      {main_fr, {{"main", "/src/main.c", 3}}},
      {{App, 0x980}, {{"kernel", "/src/kernel.c", 7}}},
      {{Fort, 0x40}, {{"__fields_MOD_fill_grid", "/src/prog.f90", 9}}},
      {{Fort, 0x50}, {{"__fields_MOD_total", "/src/prog.f90", 18}}},
      {{Fort, 0x60}, {{"naming_demo", "/src/prog.f90", 30}}},
      {{Fort, 0x70}, {{"__fields_MOD_total._omp_fn.0", "/src/prog.f90", 20}}},
  };
  for (auto& [f, locs] : syms) db.symbols.push_back(Symbolized{f, locs});
  return db;
}

const Variable& find(const ReportModel& m, const std::string& symbol_or_name) {
  for (const Variable& v : m.variables)
    if (v.name == symbol_or_name || (!v.symbol.empty() && v.symbol == symbol_or_name &&
                                     v.module == kApp))
      return v;
  static const Variable none;
  ADD_FAILURE() << "no variable " << symbol_or_name;
  return none;
}

// Heap variables in site order (sites got 100, 99, ... samples).
std::vector<std::string> heap_names(const ReportModel& m) {
  std::vector<std::string> names;
  for (const Variable& v : m.variables)
    if (v.kind == VariableKind::Heap) names.push_back(v.name);
  return names;
}

TEST(ReportNaming, HeapLabels) {
  ReportModel m = build_report_model(make_database());
  EXPECT_EQ(heap_names(m), (std::vector<std::string>{
                               "setup_tables() (tables.cpp:10)",  // past the Memory::smalloc wrapper
                               "setup_tables() (tables.cpp:11)",
                               "Pair::init() (pair.cpp:20)",
                               "fill_list(int) (list.cpp:5)",  // past std::vector growth
                               "make_block (app+0x600)",  // no line: the offset tells them apart
                               "make_block (app+0x610)",
                               // Not a wrapper (no allocating name): named, told apart by caller.
                               "build_grid (grid.c:9) \u2190 x (x.c:1)",
                               "build_grid (grid.c:9) \u2190 y (y.c:2)",
                               "fields::fill_grid (prog.f90:9)"}));
  const Variable& v = m.variables[0];
  EXPECT_EQ(v.allocation_site, "malloc in setup_tables() (tables.cpp:10)");
  ASSERT_EQ(v.allocation_path.size(), 5u);  // the path stays complete
  EXPECT_EQ(v.label_frame, 3u);
  EXPECT_EQ(v.allocation_path[3].function, "setup_tables()");
  EXPECT_FALSE(v.allocation_path[1].wrapper);  // malloc is the allocator, not a wrapper
  EXPECT_TRUE(v.allocation_path[2].wrapper);
  EXPECT_FALSE(v.allocation_path[3].wrapper);
  EXPECT_EQ(m.variables[3].label_frame, 3u);
  EXPECT_FALSE(m.variables[3].allocation_path[2].wrapper);  // std:: is runtime, not a wrapper
}

TEST(ReportNaming, UserWrapperPatternsAndAutomaticDetectionOff) {
  ReportModelOptions options;
  options.alloc_wrappers.emplace_back("^build_grid$");
  ReportModel m = build_report_model(make_database(), options);
  std::vector<std::string> names = heap_names(m);
  EXPECT_EQ(names[6], "x (x.c:1)");
  EXPECT_EQ(names[7], "y (y.c:2)");

  ReportModelOptions manual;
  manual.detect_alloc_wrappers = false;
  names = heap_names(build_report_model(make_database(), manual));
  EXPECT_EQ(names[0], "Memory::smalloc(unsigned long, char const*) (memory.cpp:12) \u2190 setup_tables() (tables.cpp:10)");
  EXPECT_EQ(names[3], "fill_list(int) (list.cpp:5)");
}

TEST(ReportNaming, FortranStaticsAndOpenMpRegions) {
  ReportModel m = build_report_model(make_database());
  EXPECT_EQ(find(m, "fields::mod_table").symbol, "__fields_MOD_mod_table");
  EXPECT_EQ(find(m, "/legacy/").symbol, "legacy_");
  // The same symbol in a C module is not a COMMON block.
  EXPECT_EQ(find(m, "legacy_").module, kApp);
  const Variable& common = find(m, "/legacy/");
  ASSERT_FALSE(common.accesses.empty());
  EXPECT_EQ(common.hottest_access, "fields::total [omp region 0] (prog.f90:20)");
  EXPECT_TRUE(common.accesses[0].path[0].omp_region);
  EXPECT_EQ(common.accesses[0].path[1].function, "fields::total");
  EXPECT_FALSE(common.accesses[0].path[1].omp_region);
  bool code_row = false;
  for (const CodeLocation& c : m.locations)
    code_row |= c.label == "fields::total [omp region 0] (prog.f90:20)" && c.where.omp_region;
  EXPECT_TRUE(code_row);
}

TEST(ReportNaming, JsonMarksWrappersRegionsAndTheLabelFrame) {
  ReportModel m = build_report_model(make_database());
  std::ostringstream out;
  write_json(m, ReportOptions{View::Data, 0}, out);
  Json j = Json::parse(out.str());
  const Json& v = j.at("variables").at(0);
  EXPECT_EQ(v.at("label_frame").get<uint64_t>(), 3u);
  const Json& path = v.at("allocation_path");
  EXPECT_FALSE(path[1].contains("wrapper"));
  EXPECT_TRUE(path[2].at("wrapper").get<bool>());
  EXPECT_FALSE(path[3].contains("wrapper"));
  EXPECT_EQ(path[3].at("function").get<std::string>(), "setup_tables()");
  for (const Json& var : j.at("variables")) {
    if (var.at("name").get<std::string>() != "/legacy/") continue;
    EXPECT_TRUE(var.at("accesses").at(0).at("path").at(0).at("omp_region").get<bool>());
    EXPECT_FALSE(var.at("accesses").at(0).at("path").at(1).contains("omp_region"));
  }
  std::ostringstream code;
  write_json(m, ReportOptions{View::Code, 0}, code);
  Json c = Json::parse(code.str());
  bool region = false;
  for (const Json& l : c.at("locations"))
    region |= l.at("label").get<std::string>() == "fields::total [omp region 0] (prog.f90:20)" && l.at("omp_region").get<bool>();
  EXPECT_TRUE(region);
}

TEST(ReportNaming, DwarfCommonBlocks) {
  EXPECT_FALSE(dwarf_common_blocks("/nonexistent/fprog").has_value());
  EXPECT_FALSE(dwarf_common_blocks(INLINE_TARGET_STRIPPED).has_value());  // no DWARF
  std::optional<std::set<std::string>> c = dwarf_common_blocks(INLINE_TARGET);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->empty());
  if (::access(FORTRAN_NAMES_PROGRAM, R_OK) != 0) GTEST_SKIP() << FORTRAN_NAMES_PROGRAM << " not built";
  c = dwarf_common_blocks(FORTRAN_NAMES_PROGRAM);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(*c, std::set<std::string>{"legacy_"});
}

TEST(ReportNaming, DwarfDecidesWhichStaticsAreCommonBlocks) {
  if (::access(FORTRAN_NAMES_PROGRAM, R_OK) != 0) GTEST_SKIP() << FORTRAN_NAMES_PROGRAM << " not built";
  Profile db;
  db.kind = FileKind::Database;
  db.modules = {{FORTRAN_NAMES_PROGRAM, "", 0}};
  // legacy_ is declared COMMON in the DWARF; other_ looks like one but is not.
  db.statics = {{0, 0x1000, 8, 0, "legacy_"}, {0, 0x2000, 8, 0, "other_"},
                {0, 0x3000, 8, 0, "__fields_MOD_mod_table"}};
  db.trees = {new_tree(0)};
  ReportModel m = build_report_model(db);
  std::set<std::string> names;
  for (const Variable& v : m.variables) names.insert(v.name);
  EXPECT_EQ(names, (std::set<std::string>{"/legacy/", "other_", "fields::mod_table"}));
}

}  // namespace
}  // namespace hpcl::analysis

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

// A site in stripped code named by its caller reads "in Solver::run (...)": its allocation
// site is "malloc in Solver::run (...)" (CP2K's CSV read "malloc in in cp2k..." in 117,736 rows).
TEST(HeapNames, AllocationSiteSaysInOnce) {
  Profile db;
  db.kind = FileKind::Database;
  db.modules = {{"/lib/x86_64-linux-gnu/libc.so.6", "", 0}, {"/opt/x/libx.so", "", 0}};
  db.sites = {{AllocApi::Malloc, 0, {{0, 0x10}, {1, 0x4dfb41}, {1, 0x4e9000}}, 1, 8192}};
  Tree t = new_tree(0);
  heap_sample(t, 0, {{1, 0x4e9000}}, 10);
  db.trees = {t};
  db.symbols = {{{0, 0x10}, {{"malloc", "", 0}}},
                {{1, 0x4dfb41}, {{"libx.so!0x4df710", "", 0}}},
                {{1, 0x4e9000}, {{"Solver::run(int)", "", 0}}}};
  ReportModel m = build_report_model(db);
  ASSERT_EQ(m.variables.size(), 1u);
  EXPECT_EQ(m.variables[0].name, "in Solver::run (libx.so!0x4df710+0x431)");
  EXPECT_EQ(m.variables[0].allocation_site, "malloc in Solver::run (libx.so!0x4df710+0x431)");
}

}  // namespace
}  // namespace hpcl::analysis
