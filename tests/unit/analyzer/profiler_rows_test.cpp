// What the profiler does in the program is not the program's (issue 24): the code view counts
// samples that interrupted its work as one "[profiler's own work]" row, not as
// hpcrun::AllocSites::intern, libunwind or pthread_sigmask; its own static data is one
// "[profiler's own data]" row; the kernel's clock page ([vdso]) is the C runtime's.
#include <gtest/gtest.h>

#include <map>

#include <filesystem>

#include "merge/merge.h"
#include "model/report_model.h"
#include "model/runtime_libs.h"
#include "profile_builder.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

const std::string kApp = "/opt/heat/bin/heat2d";
const std::string kRuntime = "/opt/hpcrun-lite/lib/libhpcrun-lite.so";
const std::string kUnwind = "/lib/x86_64-linux-gnu/libunwind.so.8";
const std::string kLibc = "/lib/x86_64-linux-gnu/libc.so.6";

Profile database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("processes", "1");
  db.set_meta("samples_in_runtime", "15");
  db.modules = {{kApp, "", 0}, {kRuntime, "", 0}, {kUnwind, "", 0}, {kLibc, "", 0}, {"[vdso]", "", 0}};
  db.statics = {{0, 0x8000, 64, 0, "grid"}, {1, 0x9000, 64, 0, "_ZN6hpcrun7g_sitesE"}, {4, 0xa0, 8, 0, "vvar"}};
  Tree t = new_tree(0);
  static_sample(t, 0, {{0, 0x100}}, 50);
  nodata_sample(t, {{0, 0x200}}, 20);
  // Under the marker frame: the runtime's function, libunwind, libc's pthread_sigmask.
  nodata_sample(t, {{0, 0x300}, {1, 0x10}, {1, 0x500}}, 10);
  nodata_sample(t, {{0, 0x300}, {1, 0x10}, {2, 0x600}}, 4);
  nodata_sample(t, {{0, 0x300}, {1, 0x10}, {3, 0x700}}, 1);
  static_sample(t, 1, {{3, 0x710}}, 3);  // the runtime's own data, touched in libc for it
  static_sample(t, 2, {{4, 0x20}}, 2);   // the kernel's clock page
  db.trees = {t};
  db.symbols = {
      {{0, 0x100}, {{"stencil", "/src/heat2d.c", 80}}},
      {{0, 0x200}, {{"main", "/src/heat2d.c", 160}}},
      {{0, 0x300}, {{"alloc_field", "/src/heat2d.c", 41}}},
      {{1, 0x10}, {{"hpcrun_lite_profiler_own_work", "/src/sampler.cpp", 46}}},
      {{1, 0x500}, {{"hpcrun::AllocSites::intern(unsigned char)", "/src/alloc_sites.cpp", 67}}},
      {{2, 0x600}, {{"", "", 0}}},
      {{3, 0x700}, {{"__GI___pthread_sigmask", "pthread_sigmask.c", 45}}},
      {{3, 0x710}, {{"memset", "", 0}}},
      {{4, 0x20}, {{"__vdso_clock_gettime", "", 0}}},
  };
  return db;
}

TEST(ProfilerRows, CodeViewHasOneRowForTheProfilersWork) {
  ReportModel m = build_report_model(database());
  std::map<std::string, uint64_t> samples;
  for (const CodeLocation& c : m.locations) samples[c.label] += c.samples;
  EXPECT_EQ(samples["[profiler's own work]"], 15u);
  for (const auto& [label, n] : samples) {
    EXPECT_EQ(label.find("hpcrun::"), std::string::npos) << label;
    EXPECT_EQ(label.find("libunwind"), std::string::npos) << label;
    EXPECT_EQ(label.find("sigmask"), std::string::npos) << label;
  }
  EXPECT_EQ(samples["main (heat2d.c:160)"], 20u);
}

// The note on the profiler's own work says where its samples ran, by module, most first.
TEST(ProfilerRows, OwnWorkIsSplitByTheModuleThatRan) {
  ReportModel m = build_report_model(database());
  const std::vector<std::pair<std::string, uint64_t>> expected = {
      {"libhpcrun-lite.so", 10}, {"libunwind.so.8", 4}, {"libc.so.6", 1}};
  EXPECT_EQ(m.own_work_modules, expected);
  bool said = false;
  for (const std::string& note : m.notes)
    if (note.find("interrupted the profiler's own allocation tracking") != std::string::npos) {
      said = true;
      EXPECT_NE(note.find("They ran in libhpcrun-lite.so (66.7%: the profiler's own code), "
                          "libunwind.so.8 (26.7%: walking the allocations' call paths) and "
                          "libc.so.6 (6.7%: the C library, called by the profiler)."),
                std::string::npos)
          << note;
    }
  EXPECT_TRUE(said);
}

TEST(ProfilerRows, ItsDataIsOneRowAndTheClockPageTheCRuntimes) {
  ReportModel m = build_report_model(database());
  std::map<std::string, const Variable*> by_name;
  for (const Variable& v : m.variables) by_name[v.name] = &v;
  ASSERT_TRUE(by_name.count("[profiler's own data]")) << "rows: " << m.variables.size();
  EXPECT_EQ(by_name["[profiler's own data]"]->samples, 3u);
  ASSERT_TRUE(by_name.count("[C/C++ runtime data]"));
  EXPECT_EQ(by_name["[C/C++ runtime data]"]->samples, 2u);
  for (const auto& [name, v] : by_name) {
    EXPECT_EQ(name.find("libhpcrun-lite"), std::string::npos) << name;
    EXPECT_EQ(name.find("vdso"), std::string::npos) << name;
  }
  EXPECT_EQ(runtime_family(kUnwind), RuntimeFamily::Profiler);
  EXPECT_EQ(runtime_family("/x/libZydis.so.4"), RuntimeFamily::Profiler);
  EXPECT_EQ(runtime_family("[vdso]"), RuntimeFamily::Cxx);
}

}  // namespace
}  // namespace hpcl::analysis

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

// Frames in libunwind (the profiler's unwinder, under its marker frame) made merge advise
// libunwind8-dbgsym. Another stripped library beside it is still named.
TEST(ProfilerRows, NoDebugAdviceForTheProfilersLibraries) {
  const char* unwind = "/lib/x86_64-linux-gnu/libunwind.so.8";
  const char* libc = "/usr/lib/x86_64-linux-gnu/libgomp.so.1";  // stripped, as Debian ships it
  if (!std::filesystem::exists(unwind) || !std::filesystem::exists(libc)) GTEST_SKIP() << "no libunwind8 or libgomp1";
  TempDir dir;
  Profile p = new_process(0);
  p.modules = {{unwind, "", 0}, {libc, "", 0}};
  Tree t = new_tree(1);
  nodata_sample(t, {{1, 0x2a000}, {0, 0x6000}}, 3);
  p.trees = {t};
  write_or_fail(p, dir.file("a.hpcl"));
  MergeOptions o;
  o.package_hints = false;
  MergeOutcome out = merge_directory(dir.path(), o);
  ASSERT_EQ(out.error, "");
  const std::string* nodebug = out.database.find_meta("no_debug_info");
  ASSERT_NE(nodebug, nullptr) << "libgomp.so.1 has no DWARF here: it is still named";
  EXPECT_NE(nodebug->find("libgomp.so.1"), std::string::npos) << *nodebug;
  EXPECT_EQ(nodebug->find("libunwind"), std::string::npos) << *nodebug;
  for (const std::string& w : out.warnings) EXPECT_EQ(w.find("libunwind"), std::string::npos) << w;
}

}  // namespace
}  // namespace hpcl::analysis
