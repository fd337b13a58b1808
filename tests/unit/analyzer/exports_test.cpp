// The exports of the report model (exports.h): folded stacks (counts add up to the report's
// samples, variables as root frames, allocation then access path outermost first, names made
// safe for the folded tools), the CSV of variables x access paths, and the HTML page (names
// escaped, nothing loaded from the network) and pprof's profile.proto (read back with the
// generated classes: each stack from its variable to its variable, labels, counts).
#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <map>
#include <set>
#include <sstream>

#include "output/exports.h"
#include "profile_builder.h"
#include "model/report_model.h"
#include "src/output/pprof/profile.pb.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

// 54 samples: a heap block 40 (two access paths), a static 7, unknown data 2, no data 5.
Profile make_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("tool", "hpcprof-lite");
  db.set_meta("source", "soft");
  db.modules = {{"/opt/app/bin/app", "", 0}};
  db.sites = {{AllocApi::Malloc, 0, {{0, 0x100}, {0, 0x200}}, 1, 4096}};
  db.statics = {{0, 0x8000, 64, 0, "evil<script>alert(1)</script>"}};
  Tree t = new_tree(0);
  heap_sample(t, 0, {{0, 0x210}, {0, 0x300}}, 30);
  heap_sample(t, 0, {{0, 0x210}, {0, 0x310}}, 10);
  static_sample(t, 0, {{0, 0x210}, {0, 0x320}}, 7);
  unknown_sample(t, UnknownClass::Other, {{0, 0x330}}, 2);
  nodata_sample(t, {{0, 0x210}}, 5);
  db.trees = {t};
  std::map<Frame, std::vector<SourceLoc>> syms = {
      {{0, 0x100}, {{"make_grid", "/src/grid.c", 41}}},
      {{0, 0x200}, {{"main", "/src/main.c", 10}}},
      {{0, 0x210}, {{"main", "/src/main.c", 14}}},
      {{0, 0x300}, {{"compute;odd\nname", "/src/kernel.c", 20}}},
      {{0, 0x310}, {{"update", "/src/kernel.c", 30}}},
      {{0, 0x320}, {{"sum", "/src/kernel.c", 40}}},
      {{0, 0x330}, {{"stack_user", "/src/kernel.c", 50}}},
  };
  for (auto& [f, locs] : syms) db.symbols.push_back(Symbolized{f, locs});
  return db;
}

ReportModel model() { return build_report_model(make_database()); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// "a;b;c 12" -> ({a, b, c}, 12), as flamegraph.pl, inferno and speedscope split it: the count
// after the last space, frames split at ';'.
std::pair<std::vector<std::string>, uint64_t> parse_folded(const std::string& line) {
  size_t space = line.rfind(' ');
  EXPECT_NE(space, std::string::npos) << line;
  std::vector<std::string> frames;
  std::string stack = line.substr(0, space);
  for (size_t start = 0;;) {
    size_t semi = stack.find(';', start);
    frames.push_back(stack.substr(start, semi - start));
    if (semi == std::string::npos) break;
    start = semi + 1;
  }
  return {frames, std::stoull(line.substr(space + 1))};
}

TEST(Folded, CountsAddUpToTheReportsSamples) {
  ReportModel m = model();
  std::ostringstream out;
  write_folded(m, ReportOptions{}, out);
  uint64_t sum = 0;
  std::map<std::string, uint64_t> by_root;
  for (const std::string& line : lines_of(out.str())) {
    auto [frames, count] = parse_folded(line);
    sum += count;
    by_root[frames.front()] += count;
  }
  EXPECT_EQ(sum, 54u);
  EXPECT_EQ(sum, m.total_samples);
  // Each root frame is a variable of the report with its samples, or [no data].
  for (const Variable& v : m.variables)
    if (v.samples > 0) {
      EXPECT_EQ(by_root[folded_frame_name(v.name)], v.samples) << v.name;
    }
  EXPECT_EQ(by_root["[no data]"], m.no_data_samples);
  EXPECT_EQ(by_root.size(), 4u);
}

// The samples that interrupted the profiler's own work (META samples_in_runtime, a part of the
// no-data samples) are a root of their own; the counts still add up.
TEST(Folded, TheProfilersOwnWorkIsARootOfItsOwn) {
  ReportModel m = model();
  ASSERT_EQ(m.no_data_samples, 5u);
  m.samples_in_runtime = 2;
  std::ostringstream out;
  write_folded(m, ReportOptions{}, out);
  std::map<std::string, uint64_t> by_root;
  uint64_t sum = 0;
  for (const std::string& line : lines_of(out.str())) {
    auto [frames, count] = parse_folded(line);
    by_root[frames.front()] += count;
    sum += count;
  }
  EXPECT_EQ(by_root["[no data]"], 3u);
  EXPECT_EQ(by_root["[profiler's own work]"], 2u);
  EXPECT_EQ(sum, m.total_samples);
}

TEST(Folded, VariableThenAllocationThenAccessPathOutermostFirst) {
  ReportModel m = model();
  std::ostringstream out;
  write_folded(m, ReportOptions{}, out);
  std::vector<std::string> lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 5u);
  // Hottest variable first, its hottest access first; [no data] last.
  auto [frames, count] = parse_folded(lines[0]);
  EXPECT_EQ(count, 30u);
  ASSERT_EQ(frames.size(), 6u) << lines[0];
  EXPECT_EQ(frames[0], folded_frame_name(m.variables[0].name));
  EXPECT_EQ(frames[1], "main (main.c:10)");
  EXPECT_EQ(frames[2], "make_grid (grid.c:41)");
  EXPECT_EQ(frames[3], "malloc");
  EXPECT_EQ(frames[4], "main (main.c:14)");
  EXPECT_EQ(frames[5], "compute:odd?name (kernel.c:20)");
  EXPECT_EQ(parse_folded(lines[1]).second, 10u);
  EXPECT_EQ(parse_folded(lines[1]).first.back(), "update (kernel.c:30)");
  // A static variable has no allocation path.
  EXPECT_EQ(parse_folded(lines[2]).first,
            (std::vector<std::string>{folded_frame_name(m.variables[1].name), "main (main.c:14)",
                                      "sum (kernel.c:40)"}));
  EXPECT_EQ(lines[4], "[no data] 5");
}

TEST(Folded, FrameNamesCannotBreakTheFormat) {
  EXPECT_EQ(folded_frame_name("a;b"), "a:b");
  EXPECT_EQ(folded_frame_name("line\nbreak\r\ttab\x1b[31m"), "line?break??tab?[31m");
  EXPECT_EQ(folded_frame_name(""), "[?]");
  // inferno would read "x;count 12 30" as two counts.
  EXPECT_EQ(folded_frame_name("count 12"), "count_12");
  EXPECT_EQ(folded_frame_name("count12"), "count12");
  EXPECT_EQ(folded_frame_name("libm.so.6+0x1f20"), "libm.so.6+0x1f20");
}

TEST(Folded, EqualStacksAreMergedAndTopLimitsVariables) {
  ReportModel m = model();
  // Two accesses that print the same become one line with both counts.
  m.variables[0].accesses[1].path = m.variables[0].accesses[0].path;
  std::vector<FoldedStack> stacks = folded_stacks(m, 0);
  EXPECT_EQ(stacks.size(), 4u);
  EXPECT_EQ(stacks[0].count, 40u);
  // --top 1: the hottest variable, and [no data].
  stacks = folded_stacks(m, 1);
  ASSERT_EQ(stacks.size(), 2u);
  EXPECT_EQ(stacks[1].frames[0].name, "[no data]");
}

// RFC 4180 rows (quoted fields may hold commas, quotes and line breaks).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += text[++i];
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',' || c == '\n') {
      rows.back().push_back(field);
      field.clear();
      if (c == '\n') rows.emplace_back();
    } else {
      field += c;
    }
  }
  rows.pop_back();  // after the last line break
  return rows;
}

TEST(CsvAccesses, OneRowPerVariableAndAccessPath) {
  ReportModel m = model();
  std::ostringstream out;
  ReportOptions options;
  options.view = View::Accesses;
  write_csv_accesses(m, options, out);
  auto rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 5u);  // header, heap x 2, static, unknown
  const std::vector<std::string>& h = rows[0];
  auto col = [&](const char* name) { return std::find(h.begin(), h.end(), name) - h.begin(); };
  for (const auto& r : rows) ASSERT_EQ(r.size(), h.size());
  std::map<std::string, uint64_t> sums;
  for (size_t i = 1; i < rows.size(); ++i) {
    sums[rows[i][col("variable")]] += std::stoull(rows[i][col("samples")]);
    EXPECT_EQ(rows[i][col("variable_samples")],
              std::to_string(m.variables[std::stoul(rows[i][col("rank")]) - 1].samples));
  }
  for (const Variable& v : m.variables)
    if (v.samples > 0) {
      EXPECT_EQ(sums[v.name], v.samples) << v.name;
    }
  EXPECT_EQ(rows[1][col("access")], "1");
  EXPECT_EQ(rows[1][col("samples")], "30");
  EXPECT_EQ(rows[1][col("function")], "compute;odd?name");  // one record, one line
  EXPECT_EQ(rows[1][col("line")], "20");
  EXPECT_EQ(rows[1][col("path")], "main (main.c:14) > compute;odd?name (kernel.c:20)");
  EXPECT_EQ(rows[2][col("access")], "2");
  EXPECT_EQ(rows[2][col("leaf")], "update (kernel.c:30)");
  EXPECT_EQ(rows[3][col("kind")], "static");
}

TEST(Html, NamesEscapedAndNothingFromTheNetwork) {
  ReportModel m = model();
  std::ostringstream out;
  write_html(m, ReportOptions{}, out);
  const std::string page = out.str();
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("evil&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // In the tree's data the name cannot close the <script> element either.
  EXPECT_NE(page.find("evil\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"), std::string::npos);
  EXPECT_EQ(page.find("</script>", page.find("var TREE=")), page.rfind("</script>"));
  for (const char* net : {"http:", "https:", "src=", "href=", "@import", "url(", "//fonts"})
    EXPECT_EQ(page.find(net), std::string::npos) << net;
  EXPECT_NE(page.find(m.variables[0].name), std::string::npos);
  EXPECT_NE(page.find("<table id=\"vars\">"), std::string::npos);
  EXPECT_NE(page.find("var TREE=[\"all samples\",54,"), std::string::npos);
  EXPECT_NE(page.find("<input type=\"checkbox\" id=\"nodata\">"), std::string::npos)
      << "the samples without a data address are drawn on request";
}

// Reads back a --format pprof file with the generated classes.
hpcl::pprof::Profile read_pprof(const std::string& bytes) {
  google::protobuf::io::ArrayInputStream raw(bytes.data(), int(bytes.size()));
  google::protobuf::io::GzipInputStream unzipped(&raw, google::protobuf::io::GzipInputStream::GZIP);
  hpcl::pprof::Profile p;
  EXPECT_TRUE(p.ParseFromZeroCopyStream(&unzipped));
  return p;
}

TEST(Pprof, EveryStackRunsFromItsVariableToItsVariable) {
  ReportModel m = model();
  std::ostringstream out;
  ASSERT_TRUE(write_pprof(m, ReportOptions{}, out));
  ASSERT_GT(out.str().size(), 2u);
  EXPECT_EQ(out.str().substr(0, 2), "\x1f\x8b") << "gzipped";
  const hpcl::pprof::Profile p = read_pprof(out.str());
  auto str = [&](int64_t i) { return p.string_table(int(i)); };
  ASSERT_GT(p.string_table_size(), 0);
  EXPECT_EQ(p.string_table(0), "");
  ASSERT_EQ(p.sample_type_size(), 1) << "no latency in a soft database";
  EXPECT_EQ(str(p.sample_type(0).type()), "samples");
  EXPECT_EQ(str(p.sample_type(0).unit()), "count");
  // The function of each location (one line each), by id.
  std::map<uint64_t, std::string> fn_name, fn_file;
  for (const auto& f : p.function()) {
    fn_name[f.id()] = str(f.name());
    fn_file[f.id()] = str(f.filename());
  }
  std::map<uint64_t, std::pair<std::string, int64_t>> where;  // location -> (function, line)
  for (const auto& l : p.location()) {
    ASSERT_EQ(l.line_size(), 1);
    where[l.id()] = {fn_name[l.line(0).function_id()], l.line(0).line()};
  }
  for (const auto& mp : p.mapping()) EXPECT_TRUE(mp.has_functions()) << "symbolized: not to be symbolized again";

  uint64_t total = 0;
  std::map<std::string, uint64_t> by_variable;
  std::vector<std::pair<std::string, int64_t>> hottest;  // the stack of the 30-sample path
  for (const auto& s : p.sample()) {
    ASSERT_GE(s.location_id_size(), 1);
    const std::string root = where[s.location_id(s.location_id_size() - 1)].first;
    EXPECT_EQ(where[s.location_id(0)].first, root) << "the leaf is the variable again";
    total += uint64_t(s.value(0));
    by_variable[root] += uint64_t(s.value(0));
    std::map<std::string, std::string> labels;
    for (const auto& l : s.label()) labels[str(l.key())] = l.str() ? str(l.str()) : std::to_string(l.num());
    if (root == "[no data]" || root == "[profiler's own work]") {
      EXPECT_TRUE(labels.empty());
      continue;
    }
    EXPECT_EQ(labels["variable"], root);
    if (s.value(0) == 30) {
      EXPECT_EQ(labels["kind"], "heap");
      EXPECT_EQ(labels["allocator"], "malloc");
      EXPECT_EQ(labels["bytes"], "4096");
      for (int i = 0; i < s.location_id_size(); ++i) hottest.push_back(where[s.location_id(i)]);
    }
  }
  EXPECT_EQ(total, 54u) << "the model's total samples";
  EXPECT_EQ(by_variable[m.variables[0].name], 40u);
  EXPECT_EQ(by_variable["[no data]"], 5u);
  // Leaf first: the variable, the sampled instruction's function (its name as it is: pprof has no
  // separator to protect), its caller, the variable.
  ASSERT_EQ(hottest.size(), 4u);
  EXPECT_EQ(hottest[1], std::make_pair(std::string("compute;odd\nname"), int64_t{20}));
  EXPECT_EQ(hottest[2], std::make_pair(std::string("main"), int64_t{14}));
  EXPECT_EQ(hottest[0].first, m.variables[0].name);
  EXPECT_EQ(hottest[3].first, m.variables[0].name);
}

TEST(Pprof, TopLimitsTheVariables) {
  ReportModel m = model();
  std::ostringstream out;
  ReportOptions options;
  options.top = 1;
  ASSERT_TRUE(write_pprof(m, options, out));
  const hpcl::pprof::Profile p = read_pprof(out.str());
  std::set<std::string> variables;
  for (const auto& s : p.sample())
    for (const auto& l : s.label())
      if (p.string_table(int(l.key())) == "variable") variables.insert(p.string_table(int(l.str())));
  EXPECT_EQ(variables, std::set<std::string>{m.variables[0].name});
}

}  // namespace
}  // namespace hpcl::analysis
