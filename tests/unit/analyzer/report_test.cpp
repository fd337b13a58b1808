// The report model and its formatters on a small symbolized database built in code: variable
// naming and order, access paths with inlined frames, the code view, and JSON/CSV/text output
// checked field by field (JSON read back with nlohmann-json).
#include <map>
#include <sstream>

#include "hpcl/text/format_common.h"
#include "output/exports.h"
#include "output/formatters.h"
#include "profile_builder.h"
#include "model/report_model.h"

#include <nlohmann/json.hpp>

// Reports are read back with nlohmann-json, which refuses what RFC 8259 refuses.
using Json = nlohmann::json;

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

const std::string kSolver = "/opt/app/bin/solver";
const std::string kStdcxx = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
const std::string kLibc = "/lib/x86_64-linux-gnu/libc.so.6";

// Total 80 samples: site "Grid::Grid" 40 (two access paths), main::count 20, fill 5,
// unknown data 3, no data 12 (at the same instruction as the hottest heap access).
Profile make_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("tool", "hpcprof-lite");
  db.set_meta("processes", "2");
  db.set_meta("threads", "4");
  db.set_meta("ranks", "2");
  db.set_meta("source", "soft");
  db.set_meta("min_bytes", "4096");
  db.set_meta("small_every", "16");
  db.set_meta("samples_dropped", "0");
  db.set_meta("skipped", "");
  db.modules = {{kSolver, "", 0}, {kStdcxx, "", 0}, {kLibc, "", 0}};
  db.sites = {
      {AllocApi::New, 0, {{1, 0x9a000}, {0, 0x1234}, {0, 0x2000}}, 2, 16000},
      {AllocApi::Malloc, kSiteSampled, {{2, 0x500}, {0, 0x3000}}, 3, 96},
      {AllocApi::Calloc, 0, {{2, 0x600}}, 1, 10},
  };
  db.statics = {{0, 0x8000, 4096, 0, "_ZZ4mainE5count.0"}, {0, 0x9000, 8, kStaticTls, "tls_counter.2"}};
  Tree t = new_tree(0);
  heap_sample(t, 0, {{0, 0x2100}, {0, 0x2200}}, 30);
  heap_sample(t, 0, {{0, 0x2100}, {0, 0x2300}}, 10);
  heap_sample(t, 1, {{0, 0x2300}}, 5);
  static_sample(t, 0, {{0, 0x2400}}, 20);
  unknown_sample(t, UnknownClass::Other, {{0, 0x2500}}, 3);
  nodata_sample(t, {{0, 0x2100}, {0, 0x2200}}, 12);
  db.trees = {t};

  std::map<Frame, std::vector<SourceLoc>> syms = {
      {{0, 0x1234},
       {{"std::__new_allocator<double>::allocate(unsigned long, void const*)",
         "/usr/include/c++/12/bits/new_allocator.h", 137},
        {"std::vector<double, std::allocator<double> >::_M_allocate(unsigned long)",
         "/usr/include/c++/12/bits/stl_vector.h", 378},
        {"Grid::Grid(int)", "/src/grid.cpp", 41}}},
      {{0, 0x2000}, {{"main", "/src/main.cpp", 10}}},
      {{0, 0x2100}, {{"main", "/src/main.cpp", 14}}},
      {{0, 0x2200}, {{"axpy", "/src/kernel.h", 5}, {"compute(Grid&)", "/src/kernel.cpp", 20}}},
      {{0, 0x2300}, {{"update", "/src/kernel.cpp", 30}}},
      {{0, 0x2400}, {{"count_it", "/src/main.cpp", 7}}},
      {{0, 0x2500}, {{"odd\"name\\with\ttab\x01", "/src/we,ird.c", 3}}},
      {{0, 0x3000}, {{"fill(std::map<int, int>&)", "", 0}}},
      {{1, 0x9a000}, {{}}},
      {{2, 0x500}, {{"strdup", "", 0}}},
      {{2, 0x600}, {{}}},
  };
  for (auto& [f, locs] : syms) db.symbols.push_back(Symbolized{f, locs});
  return db;
}

ReportModel ungrouped(const Profile& db) {
  ReportModelOptions o;
  o.group_runtime = false;
  return build_report_model(db, o);
}

TEST(ReportModel, VariablesNamedAndOrdered) {
  ReportModel m = ungrouped(make_database());
  EXPECT_EQ(m.total_samples, 80u);
  EXPECT_EQ(m.data_samples, 68u);
  EXPECT_EQ(m.processes, 2u);
  EXPECT_EQ(m.threads, 4u);
  ASSERT_EQ(m.variables.size(), 6u);

  const Variable& grid = m.variables[0];
  EXPECT_EQ(grid.kind, VariableKind::Heap);
  EXPECT_EQ(grid.name, "Grid::Grid(int) (grid.cpp:41)");
  EXPECT_EQ(grid.allocation_site, "operator new in Grid::Grid(int) (grid.cpp:41)");
  EXPECT_EQ(grid.samples, 40u);
  EXPECT_DOUBLE_EQ(grid.share, 0.5);
  EXPECT_NEAR(grid.share_low, 0.392974, 1e-6);  // Wilson, 95%: 40 of 80
  EXPECT_NEAR(grid.share_high, 0.607026, 1e-6);
  EXPECT_EQ(grid.bytes, 16000u);
  EXPECT_EQ(grid.allocations, 2u);
  ASSERT_EQ(grid.allocation_path.size(), 1u + 1u + 3u + 1u);
  EXPECT_EQ(grid.allocation_path[0].function, "operator new");
  EXPECT_FALSE(grid.allocation_path[0].has_address);
  EXPECT_EQ(grid.allocation_path[1].module, kStdcxx);
  EXPECT_EQ(grid.allocation_path[5].function, "main");
  ASSERT_EQ(grid.accesses.size(), 2u);
  EXPECT_EQ(grid.accesses[0].samples, 30u);
  ASSERT_EQ(grid.accesses[0].path.size(), 3u);  // axpy inlined in compute, called from main
  EXPECT_EQ(grid.accesses[0].path[0].function, "axpy");
  EXPECT_EQ(grid.accesses[0].path[1].function, "compute(Grid&)");
  EXPECT_EQ(grid.accesses[0].path[2].function, "main");
  EXPECT_EQ(grid.accesses[1].samples, 10u);
  EXPECT_EQ(grid.hottest_access, "axpy (kernel.h:5)");

  EXPECT_EQ(m.variables[1].name, "main::count");
  EXPECT_EQ(m.variables[1].symbol, "_ZZ4mainE5count.0");
  EXPECT_EQ(m.variables[1].module, kSolver);
  EXPECT_EQ(m.variables[1].bytes, 4096u);
  EXPECT_EQ(m.variables[1].samples, 20u);

  EXPECT_EQ(m.variables[2].name, "fill(std::map<int, int>&) (solver+0x3000)");  // strdup in libc skipped
  EXPECT_TRUE(m.variables[2].sampled);
  EXPECT_EQ(m.variables[2].allocator, "malloc");

  EXPECT_EQ(m.variables[3].name, "[unknown data]");
  EXPECT_EQ(m.variables[3].kind, VariableKind::Unknown);
  EXPECT_EQ(m.variables[3].samples, 3u);

  // Zero-sample variables last, by name; a site inside libc only is named by its innermost frame.
  EXPECT_EQ(m.variables[4].name, "libc.so.6+0x600");
  EXPECT_EQ(m.variables[4].samples, 0u);
  EXPECT_EQ(m.variables[5].name, "tls_counter");
  EXPECT_TRUE(m.variables[5].tls);

  bool sampled_note = false, time_note = false;
  for (const std::string& n : m.notes) {
    sampled_note |= n.find("fill(std::map<int, int>&) (solver+0x3000)") != std::string::npos;
    time_note |= n.find("time-weighted") != std::string::npos;
  }
  EXPECT_TRUE(sampled_note);
  EXPECT_TRUE(time_note);
}

// An unattributed class with 5% of the samples or more is explained in a note, with the
// functions that read it (the innermost of an inlined leaf), hottest first; a smaller one is not.
TEST(ReportModel, LargeStackShareIsExplainedWithItsReaders) {
  Profile db = make_database();
  unknown_sample(db.trees[0], UnknownClass::Stack, {{0, 0x2100}, {0, 0x2200}}, 8);
  unknown_sample(db.trees[0], UnknownClass::Stack, {{0, 0x2300}}, 2);
  ReportModel m = ungrouped(db);
  const auto stack = std::find_if(m.variables.begin(), m.variables.end(),
                                  [](const Variable& v) { return v.name == "[stack]"; });
  ASSERT_NE(stack, m.variables.end());
  ASSERT_EQ(stack->read_in.size(), 2u);
  EXPECT_EQ(stack->read_in[0].function, "axpy");
  EXPECT_EQ(stack->read_in[0].samples, 8u);
  EXPECT_EQ(stack->read_in[1].function, "update");
  const std::string expected =
      "[stack] holds 11.1% of the samples: local variables and arrays on the threads' stacks (C "
      "local arrays, Fortran automatic arrays and array temporaries, each OpenMP thread's private "
      "copies), which the report does not split by the function that owns them. Read in axpy "
      "(80.0%) and update (20.0%).";
  EXPECT_NE(std::find(m.notes.begin(), m.notes.end(), expected), m.notes.end());
  // [unknown data]: 3 of 90 samples, under 5%: no note.
  for (const std::string& note : m.notes) EXPECT_EQ(note.find("[unknown data] holds"), std::string::npos) << note;
  Profile small = make_database();
  unknown_sample(small.trees[0], UnknownClass::Stack, {{0, 0x2300}}, 2);  // 2 of 82
  for (const std::string& note : ungrouped(small).notes)
    EXPECT_EQ(note.find("[stack] holds"), std::string::npos) << note;
}

TEST(ReportModel, CodeViewAggregatesAllRoots) {
  ReportModel m = build_report_model(make_database());
  ASSERT_EQ(m.locations.size(), 4u);
  EXPECT_EQ(m.locations[0].label, "axpy (kernel.h:5)");
  EXPECT_EQ(m.locations[0].samples, 42u);
  EXPECT_EQ(m.locations[0].data_samples, 30u);
  EXPECT_EQ(m.locations[1].label, "count_it (main.cpp:7)");
  EXPECT_EQ(m.locations[2].label, "update (kernel.cpp:30)");
  EXPECT_EQ(m.locations[2].samples, 15u);  // two variables, one location
  EXPECT_EQ(m.locations[2].data_samples, 15u);
}

// PAPI counter metrics (ids 64 + k) are code-centric: each location gets the events counted at
// it, named by META counter.<k>.event; a location with events and no samples is still listed.
TEST(ReportModel, CounterMetricsInTheCodeView) {
  Profile db = make_database();
  db.set_meta("counter.0.event", "PAPI_TOT_CYC");
  db.set_meta("counter.0.period", "1000");
  db.set_meta("counter.1.event", "sde:::LIB::WORK");
  Tree& t = db.trees[0];
  TreeBuilder b(t);
  uint32_t n = b.child(b.child(0, NodeKind::NoDataRoot, 0, 0), NodeKind::Frame, 0, 0x2100);
  n = b.child(n, NodeKind::Frame, 0, 0x2200);  // axpy, where 42 samples are
  t.nodes[n].add_metric(kMetricCounterBase, 5000);
  t.nodes[n].add_metric(kMetricCounterBase + 1, 7);
  n = b.child(b.child(0, NodeKind::NoDataRoot, 0, 0), NodeKind::Frame, 0, 0x3000);  // no samples
  t.nodes[n].add_metric(kMetricCounterBase, 2000);
  ReportModel m = build_report_model(db);
  ASSERT_EQ(m.counters.size(), 2u);
  EXPECT_EQ(m.counters[0].event, "PAPI_TOT_CYC");
  EXPECT_EQ(m.counters[0].period, 1000u);
  EXPECT_EQ(m.counters[0].total, 7000u);
  EXPECT_EQ(m.counters[1].period, 0u);  // not recorded
  EXPECT_EQ(m.total_samples, 80u);      // counters are not samples
  ASSERT_EQ(m.locations.size(), 5u);
  EXPECT_EQ(m.locations[0].label, "axpy (kernel.h:5)");
  EXPECT_EQ(m.locations[0].counters, (std::vector<uint64_t>{5000, 7}));
  EXPECT_EQ(m.locations[4].label, "fill(std::map<int, int>&) (solver)");
  EXPECT_EQ(m.locations[4].samples, 0u);
  EXPECT_EQ(m.locations[4].counters, (std::vector<uint64_t>{2000, 0}));

  std::ostringstream json;
  write_json(m, ReportOptions{View::Code, 0}, json);
  Json j = Json::parse(json.str());
  EXPECT_EQ(j.at("counters").at(0).at("event").get<std::string>(), "PAPI_TOT_CYC");
  EXPECT_EQ(j.at("counters").at(0).at("events").get<uint64_t>(), 7000u);
  EXPECT_EQ(j.at("locations").at(0).at("counters").at("sde:::LIB::WORK").get<uint64_t>(), 7u);
  std::ostringstream text;
  write_text(m, ReportOptions{View::Code, 0}, text);
  EXPECT_NE(text.str().find("counter PAPI_TOT_CYC: 7000 events (one sample every 1000"),
            std::string::npos) << text.str();
  EXPECT_NE(text.str().find("PAPI_TOT_CYC  sde:::LIB::WORK"), std::string::npos) << text.str();
}

// Without counters the code view has no counter fields at all.
TEST(ReportModel, NoCountersNoCounterFields) {
  ReportModel m = build_report_model(make_database());
  EXPECT_TRUE(m.counters.empty());
  std::ostringstream json;
  write_json(m, ReportOptions{View::Code, 0}, json);
  EXPECT_EQ(json.str().find("counters"), std::string::npos);
}

TEST(ReportJson, FollowsTheSchema) {
  ReportModel m = ungrouped(make_database());
  std::ostringstream out;
  write_json(m, ReportOptions{View::Data, 0}, out);
  Json j = Json::parse(out.str());
  EXPECT_EQ(j.at("format").get<std::string>(), "hpcprof-lite-report");
  EXPECT_EQ(j.at("version").get<uint64_t>(), 1u);
  EXPECT_EQ(j.at("source").get<std::string>(), "soft");
  EXPECT_EQ(j.at("totals").at("samples").get<uint64_t>(), 80u);
  EXPECT_EQ(j.at("totals").at("data_samples").get<uint64_t>(), 68u);
  EXPECT_EQ(j.at("totals").at("processes").get<uint64_t>(), 2u);
  EXPECT_EQ(j.at("totals").at("threads").get<uint64_t>(), 4u);
  EXPECT_TRUE(j.at("notes").is_array());
  const Json& vars = j.at("variables");
  ASSERT_EQ(vars.size(), 6u);
  for (const Json& v : vars) {
    for (const char* k : {"kind", "name", "allocations", "bytes", "metrics", "accesses", "share",
                          "share_low", "share_high"})
      EXPECT_TRUE(v.contains(k)) << k;
    EXPECT_LE(v.at("share_low").get<double>(), v.at("share").get<double>());
    EXPECT_GE(v.at("share_high").get<double>(), v.at("share").get<double>());
    EXPECT_TRUE(v.at("share").is_number());
    for (const Json& a : v.at("accesses")) {
      EXPECT_TRUE(a.at("path").is_array());
      a.at("metrics").at("samples").get<uint64_t>();
    }
  }
  const Json& grid = vars[0];
  EXPECT_EQ(grid.at("kind").get<std::string>(), "heap");
  EXPECT_EQ(grid.at("allocator").get<std::string>(), "operator new");
  EXPECT_FALSE(grid.at("sampled").get<bool>());
  EXPECT_EQ(grid.at("share").get<double>(), 0.5);
  EXPECT_EQ(grid.at("share_low").get<double>(), 0.392974);
  EXPECT_EQ(grid.at("share_high").get<double>(), 0.607026);
  EXPECT_EQ(j.at("totals").at("no_data_samples").get<uint64_t>(), 12u);
  EXPECT_EQ(j.at("totals").at("unknown_data_samples").get<uint64_t>(), 3u);
  const Json& api = grid.at("allocation_path").at(0);
  EXPECT_EQ(api.at("function").get<std::string>(), "operator new");
  EXPECT_EQ(api.at("file").get<std::string>(), "");
  EXPECT_EQ(api.at("line").get<uint64_t>(), 0u);
  EXPECT_EQ(api.at("module").get<std::string>(), "");
  EXPECT_EQ(grid.at("allocation_path").at(4).at("function").get<std::string>(), "Grid::Grid(int)");
  EXPECT_EQ(grid.at("allocation_path").at(4).at("file").get<std::string>(), "/src/grid.cpp");
  EXPECT_EQ(grid.at("allocation_path").at(4).at("line").get<uint64_t>(), 41u);
  EXPECT_EQ(grid.at("allocation_path").at(4).at("module").get<std::string>(), kSolver);
  EXPECT_EQ(grid.at("metrics").at("samples").get<uint64_t>(), 40u);
  EXPECT_EQ(grid.at("accesses").at(0).at("metrics").at("samples").get<uint64_t>(), 30u);
  EXPECT_EQ(grid.at("accesses").at(0).at("path").at(0).at("function").get<std::string>(), "axpy");
  EXPECT_EQ(grid.at("accesses").at(0).at("path").at(1).at("line").get<uint64_t>(), 20u);
  EXPECT_EQ(vars[1].at("kind").get<std::string>(), "static");
  EXPECT_EQ(vars[1].at("symbol").get<std::string>(), "_ZZ4mainE5count.0");
  EXPECT_EQ(vars[1].at("module").get<std::string>(), kSolver);
  EXPECT_TRUE(vars[2].at("sampled").get<bool>());
  // Escaping: quotes, backslashes, tabs and control characters come back intact.
  EXPECT_EQ(vars[3].at("accesses").at(0).at("path").at(0).at("function").get<std::string>(), "odd\"name\\with\ttab\x01");
}

TEST(ReportJson, TopLimitsVariablesNotAccesses) {
  ReportModel m = build_report_model(make_database());
  std::ostringstream out;
  write_json(m, ReportOptions{View::Data, 1}, out);
  Json j = Json::parse(out.str());
  ASSERT_EQ(j.at("variables").size(), 1u);
  EXPECT_EQ(j.at("variables").at(0).at("accesses").size(), 2u);
}

TEST(ReportJson, CodeView) {
  ReportModel m = build_report_model(make_database());
  std::ostringstream out;
  write_json(m, ReportOptions{View::Code, 0}, out);
  Json j = Json::parse(out.str());
  EXPECT_EQ(j.at("view").get<std::string>(), "code");
  EXPECT_EQ(j.at("totals").at("samples").get<uint64_t>(), 80u);
  const Json& l = j.at("locations").at(0);
  EXPECT_EQ(l.at("function").get<std::string>(), "axpy");
  EXPECT_EQ(l.at("file").get<std::string>(), "/src/kernel.h");
  EXPECT_EQ(l.at("line").get<uint64_t>(), 5u);
  EXPECT_EQ(l.at("module").get<std::string>(), kSolver);
  EXPECT_EQ(l.at("metrics").at("samples").get<uint64_t>(), 42u);
  EXPECT_EQ(l.at("metrics").at("data_samples").get<uint64_t>(), 30u);
}

TEST(ReportJson, InvalidUtf8IsReplaced) {
  Profile db = make_database();
  db.symbols[0].locs[0].function = "bad\xff\xc3(";  // not UTF-8
  ReportModel m = build_report_model(db);
  std::ostringstream out;
  write_json(m, ReportOptions{View::Data, 0}, out);
  EXPECT_NO_THROW(Json::parse(out.str()));
  EXPECT_NE(out.str().find("bad\xef\xbf\xbd\xef\xbf\xbd("), std::string::npos);
}

TEST(ReportCsv, QuotesFieldsPerRfc4180) {
  ReportModel m = build_report_model(make_database());
  std::ostringstream out;
  write_csv(m, ReportOptions{View::Data, 0}, out);
  std::istringstream lines(out.str());
  std::string header, row1, row2, row3;
  std::getline(lines, header);
  std::getline(lines, row1);
  std::getline(lines, row2);
  std::getline(lines, row3);
  EXPECT_EQ(header, "rank,variable,kind,share,share_low,share_high,samples,bytes,allocations,sampled,"
                    "allocation_site,module,hottest_access,ranks,ranks_min,ranks_mean,ranks_max,"
                    "ranks_max_rank,ranks_imbalance,threads,threads_min,threads_mean,threads_max,"
                    "threads_max_thread,threads_imbalance,pattern,stride_bytes,line_use,element_type,"
                    "element_size,fields,hot_bytes,hot_share,advice");
  // A database without a BALANCE section leaves the balance columns empty; its binaries do not
  // exist, so the pattern is unknown and the evidence columns are empty.
  EXPECT_EQ(row1, "1,Grid::Grid(int) (grid.cpp:41),heap,0.500000,0.392974,0.607026,40,16000,2,0,"
                  "operator new in Grid::Grid(int) (grid.cpp:41),,axpy (kernel.h:5),,,,,,,,,,,,,unknown,,,,,,,,");
  EXPECT_EQ(row3, "3,\"fill(std::map<int, int>&) (solver+0x3000)\",heap,0.062500,0.026989,0.138101,5,96,3,1,"
                  "\"malloc in fill(std::map<int, int>&) (solver+0x3000)\",,update (kernel.cpp:30),,,,,,,,,,,,,unknown,,,,,,,,");
  std::ostringstream code;
  write_csv(m, ReportOptions{View::Code, 0}, code);
  EXPECT_NE(code.str().find("\"odd\"\"name\\with tab?\",\"/src/we,ird.c\""), std::string::npos)
      << "a quote doubled inside a quoted field, a tab a space, other control characters '?'";
}

// A symbol with an escape sequence, a bell, a C1 control and a line break reaches no terminal
// through --format csv (a pane title was changed and the screen cleared), in any CSV.
TEST(ReportCsv, NoControlBytes) {
  Profile db = make_database();
  for (Symbolized& s : db.symbols)
    if (s.frame == Frame{0, 0x2400}) s.locs[0].function = "count_it\x1b]0;owned\x07\xc2\x9b" "2J\nnext";
  ReportModel m = build_report_model(db);
  std::ostringstream data, code, accesses;
  write_csv(m, ReportOptions{View::Data, 0}, data);
  write_csv(m, ReportOptions{View::Code, 0}, code);
  write_csv_accesses(m, ReportOptions{View::Data, 0}, accesses);
  for (const std::string& csv : {data.str(), code.str(), accesses.str()}) {
    EXPECT_NE(csv.find("count_it?]0;owned??2J?next"), std::string::npos) << csv;
    for (size_t i = 0; i < csv.size(); ++i) {
      const auto c = static_cast<unsigned char>(csv[i]);
      EXPECT_TRUE(c >= 0x20 || c == '\n') << "byte " << int(c) << " at " << i;
      EXPECT_NE(c, 0x7f);
      if (c == 0xc2 && i + 1 < csv.size()) {
        EXPECT_GT(static_cast<unsigned char>(csv[i + 1]), 0x9f) << "a C1 control at " << i;
      }
    }
  }
}

// A profile is data, never terminal commands: a symbol with an escape sequence, a bell and a C1
// control reaches the terminal as '?' in both views; JSON keeps the name (escaped) intact.
TEST(ReportText, StripsTerminalControls) {
  Profile db = make_database();
  for (Symbolized& s : db.symbols)
    if (s.frame == Frame{0, 0x2400}) s.locs[0].function = "count_it\x1b]0;owned\x07\xc2\x9b" "2J";
  ReportModel m = build_report_model(db);
  for (View view : {View::Data, View::Code}) {
    std::ostringstream text;
    write_text(m, ReportOptions{view, 0}, text);
    const std::string t = text.str();
    EXPECT_EQ(t.find('\x1b'), std::string::npos) << t;
    EXPECT_EQ(t.find('\x07'), std::string::npos) << t;
    EXPECT_EQ(t.find("\xc2\x9b"), std::string::npos) << t;
    EXPECT_EQ(t.find('\t'), std::string::npos) << t;
    EXPECT_NE(t.find("??2J"), std::string::npos) << t;  // shortened in the middle, the tail kept
  }
  EXPECT_EQ(printable_for_terminal("a\tb\nc\x7f\xc3\xa9"), "a b\nc?\xc3\xa9");  // UTF-8 kept
}

TEST(ReportText, AlignedTableWithHeader) {
  ReportModel m = build_report_model(make_database());
  std::ostringstream out;
  write_text(m, ReportOptions{View::Data, 3}, out);
  std::string s = out.str();
  EXPECT_NE(s.find("source: soft   processes: 2   threads: 4"), std::string::npos)
      << "without META rate, no rate is claimed:\n" << s;
  Profile at500 = make_database();
  at500.set_meta("rate", "500");
  std::ostringstream rated;
  write_text(build_report_model(at500), ReportOptions{View::Data, 3}, rated);
  EXPECT_NE(rated.str().find("source: soft at 500/s   processes: 2   threads: 4"), std::string::npos)
      << rated.str();
  EXPECT_NE(s.find("time-weighted"), std::string::npos);
  EXPECT_NE(s.find("(3 of 4 variables shown; --top 0 shows all)"), std::string::npos) << s;
  EXPECT_NE(s.find("(2 variables without samples not shown; --all shows them)"), std::string::npos) << s;
  std::istringstream lines(s);
  std::string line;
  size_t share_end = std::string::npos;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("#") || line.find("  # ") == 0 || line.find("# variable") != std::string::npos) {
      share_end = line.find("share ±95%") + std::string("share ±95%").size();
      continue;
    }
    if (share_end == std::string::npos || line.empty() || line[0] == '(' || line[0] == '*') continue;
    ++rows;
    EXPECT_NE(line.find("% ±"), std::string::npos) << line;  // "50.0% ±10.7"
    EXPECT_EQ(line[share_end - 1 + 1], ' ') << line;          // right-aligned under the header
    EXPECT_NE(line.back(), ' ') << "no trailing spaces: " << line;
  }
  EXPECT_EQ(rows, 3);
  // Parameter lists are dropped where the names stay distinct; the allocator completes the site.
  EXPECT_NE(s.find("1  Grid::Grid (grid.cpp:41)  heap"), std::string::npos);
  EXPECT_NE(s.find("  operator new  "), std::string::npos);
}

TEST(ReportText, LongNamesAreShortenedInTheMiddle) {
  Profile db = make_database();
  db.symbols[0].locs[2].function = "Grid::Grid" + std::string(200, 'x') + "::make";
  ReportModel m = build_report_model(db);
  std::ostringstream out;
  write_text(m, ReportOptions{View::Data, 1}, out);
  // The 120-column table gives the variable what the other columns leave.
  EXPECT_NE(out.str().find("1  Grid::Gridxxxxxxxx"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("x\u2026::make (grid.cpp:41)  heap"), std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace hpcl::analysis
