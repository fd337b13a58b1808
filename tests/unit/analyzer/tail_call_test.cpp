// Tail-call frames recovered by the report model from the callees the symbolizer recorded: a
// call site whose callee is neither the next frame inward nor (for an allocation path) an
// allocation function gets the callee inserted as a frame marked tail_call; the JSON says so.
#include <sstream>

#include "output/formatters.h"
#include "profile_builder.h"
#include "model/report_model.h"

#include <nlohmann/json.hpp>

// Reports are read back with nlohmann-json, which refuses what RFC 8259 refuses.
using Json = nlohmann::json;

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

const std::string kApp = "/opt/app/bin/app";
const std::string kLib = "/opt/app/lib/libsolver.so";

Profile make_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.modules = {{kApp, "", 0}, {kLib, "", 0}};
  db.sites = {
      {AllocApi::Malloc, 0, {{0, 0x100}, {0, 0x900}}, 1, 4096},  // calls make_x: tail call
      {AllocApi::Malloc, 0, {{0, 0x200}, {0, 0x900}}, 1, 4096},  // calls malloc: none
  };
  Tree t = new_tree(0);
  // Access paths (outermost -> leaf): main -> [read_x tail-called] -> kernel (leaf),
  // main -> kernel (called directly), main -> [lib_read tail-called into another module].
  heap_sample(t, 0, {{0, 0x900}, {0, 0x300}, {0, 0x500}}, 5);
  heap_sample(t, 0, {{0, 0x900}, {0, 0x400}, {0, 0x500}}, 3);
  heap_sample(t, 1, {{0, 0x900}, {0, 0x600}, {1, 0x50}}, 2);
  db.trees = {t};
  auto sym = [](Frame f, std::string fn, SourceLoc callee) {
    return Symbolized{f, {{std::move(fn), "/src/app.c", 1}}, std::move(callee)};
  };
  db.symbols = {
      sym({0, 0x100}, "alloc_a", {"make_x", "/src/app.c", 3}),
      sym({0, 0x200}, "alloc_b", {"malloc", "", 0}),
      sym({0, 0x300}, "main", {"read_x", "/src/app.c", 7}),
      sym({0, 0x400}, "main", {"kernel", "/src/app.c", 9}),
      sym({0, 0x500}, "kernel", {}),
      sym({0, 0x600}, "main", {"lib_read", "/src/app.c", 12}),
      sym({0, 0x900}, "main", {}),
      sym({1, 0x50}, "lib_read", {}),
  };
  return db;
}

std::vector<std::string> functions(const std::vector<Location>& path) {
  std::vector<std::string> out;
  for (const Location& l : path) out.push_back(l.function + (l.tail_call ? " [tail]" : ""));
  return out;
}

const Variable& heap_var(const ReportModel& m, const std::string& second_frame) {
  for (const Variable& v : m.variables)
    if (v.kind == VariableKind::Heap && v.allocation_path.size() > 2 &&
        v.allocation_path.back().function == "main" &&
        v.allocation_path[v.allocation_path.size() - 2].function == second_frame)
      return v;
  ADD_FAILURE() << "no heap variable allocated from " << second_frame;
  static Variable none;
  return none;
}

TEST(TailCalls, RecoveredInAllocationPaths) {
  ReportModel m = build_report_model(make_database());
  EXPECT_EQ(functions(heap_var(m, "alloc_a").allocation_path),
            (std::vector<std::string>{"malloc", "make_x [tail]", "alloc_a", "main"}));
  EXPECT_EQ(functions(heap_var(m, "alloc_b").allocation_path),
            (std::vector<std::string>{"malloc", "alloc_b", "main"}));
  const Location& rec = heap_var(m, "alloc_a").allocation_path[1];
  EXPECT_EQ(rec.module, kApp);
  EXPECT_EQ(rec.line, 3u);
  EXPECT_FALSE(rec.has_address);
}

TEST(TailCalls, RecoveredInAccessPaths) {
  ReportModel m = build_report_model(make_database());
  const Variable& a = heap_var(m, "alloc_a");
  ASSERT_EQ(a.accesses.size(), 2u);
  EXPECT_EQ(functions(a.accesses[0].path), (std::vector<std::string>{"kernel", "read_x [tail]", "main", "main"}));
  EXPECT_EQ(functions(a.accesses[1].path), (std::vector<std::string>{"kernel", "main", "main"}));
  // The inward frame is in another module: the callee of this module ran and jumped there.
  const Variable& b = heap_var(m, "alloc_b");
  ASSERT_EQ(b.accesses.size(), 1u);
  EXPECT_EQ(functions(b.accesses[0].path),
            (std::vector<std::string>{"lib_read", "lib_read [tail]", "main", "main"}));
}

TEST(TailCalls, JsonMarksTheRecoveredFrame) {
  ReportModel m = build_report_model(make_database());
  std::ostringstream out;
  ReportOptions options;
  options.top = 0;
  write_json(m, options, out);
  Json j = Json::parse(out.str());
  int marked = 0, unmarked = 0;
  for (const Json& v : j.at("variables"))
    for (const Json& f : v.at("allocation_path")) {
      if (f.contains("tail_call")) {
        EXPECT_TRUE(f.at("tail_call").get<bool>());
        EXPECT_EQ(f.at("function").get<std::string>(), "make_x");
        EXPECT_FALSE(f.contains("offset"));
        ++marked;
      } else {
        ++unmarked;
      }
    }
  EXPECT_EQ(marked, 1);
  EXPECT_EQ(unmarked, 6);  // malloc, alloc_a, main; malloc, alloc_b, main
}

}  // namespace
}  // namespace hpcl::analysis
