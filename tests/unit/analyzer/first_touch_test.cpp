// First touch (FIRST_TOUCH, metrics 80 + k): the merge summarises each variable's page faults
// over the threads of the run exactly (whatever the split into partials, also through the
// partials' bytes), and the report says who first touched what: "first touched by 1 of 4
// threads (serial initialization)", on which node(s), in the model, JSON and text.
#include <sstream>

#include "merge/accumulator.h"
#include "output/formatters.h"
#include "profile_builder.h"
#include "model/report_model.h"

#include <nlohmann/json.hpp>

// Reports are read back with nlohmann-json, which refuses what RFC 8259 refuses.
using Json = nlohmann::json;

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

// `faults` page faults of site `site` at the fill loop, taken on NUMA node `node`.
void touch(Tree& t, uint32_t site, uint64_t offset, uint64_t faults, uint16_t node) {
  uint32_t leaf = add_sample_path(t, NodeKind::HeapRoot, std::make_pair(NodeKind::HeapVar, site),
                                  {{0, 0x900}, {0, offset}}, 0);
  t.nodes[leaf].metrics.clear();  // add_sample_path adds a zero
  t.nodes[leaf].add_metric(kMetricPageFaults, faults);
  t.nodes[leaf].add_metric(kMetricFirstTouchNodeBase + node, faults);
}

// One process of 4 threads: `serial` (site 0, 1024 pages) filled by thread 0 alone on node 0;
// `parallel` (site 1) filled by all four, threads 0-1 on node 0 and 2-3 on node 1; both read by
// every thread.
Profile run(int rank, int pid) {
  Profile p = new_process(rank);
  p.set_meta("pid", std::to_string(pid));
  p.set_meta("page_faults_total", "2048");
  p.modules = {Module{"/nonexistent/app", "ab", 0}};
  p.sites = {{AllocApi::Malloc, 0, {{0, 0x100}}, 1, 4 << 20}, {AllocApi::Malloc, 0, {{0, 0x110}}, 1, 4 << 20}};
  for (uint32_t t = 0; t < 4; ++t) {
    Tree tree = new_tree(static_cast<uint32_t>(pid * 10 + t));
    if (t == 0) touch(tree, 0, 0x940, 1024, 0);
    touch(tree, 1, 0x950, t == 3 ? 253 : 257, t < 2 ? 0 : 1);
    heap_sample(tree, 0, {{0, 0x960}}, 10);
    heap_sample(tree, 1, {{0, 0x960}}, 10);
    p.trees.push_back(std::move(tree));
  }
  return p;
}

const Variable* site(const ReportModel& m, const char* name) {
  for (const Variable& v : m.variables)
    if (v.name == name) return &v;
  return nullptr;
}

TEST(FirstTouch, MergeSummarisesThePageFaultsOverThreads) {
  Accumulator acc;
  acc.add_process(run(-1, 42));
  Profile db = acc.finish();
  ASSERT_EQ(db.balance.first_touch.size(), 2u);
  const VariableFirstTouch& serial = db.balance.first_touch[0];
  EXPECT_EQ(serial.owner, BalanceOwner::Site);
  EXPECT_EQ(serial.index, 0u);
  EXPECT_EQ(serial.threads.groups, 1u);
  EXPECT_EQ(serial.threads.sum, 1024u);
  EXPECT_EQ(serial.threads.max, 1024u);
  EXPECT_EQ(serial.threads.max_group, (GroupId{-1, 42, 0}));
  const Spread& parallel = db.balance.first_touch[1].threads;
  EXPECT_EQ(parallel.groups, 4u);
  EXPECT_EQ(parallel.sum, 3u * 257 + 253);
  EXPECT_EQ(parallel.min, 253u);
  EXPECT_EQ(parallel.max, 257u);
  EXPECT_EQ(parallel.max_group, (GroupId{-1, 42, 0})) << "ties go to the smallest thread";
  EXPECT_EQ(parallel.sumsq_lo, 3u * 257 * 257 + 253 * 253);
  // The samples' balance is unchanged by the faults (they are no samples).
  ASSERT_EQ(db.balance.variables.size(), 2u);
  EXPECT_EQ(db.balance.variables[0].threads.sum, 40u);
}

// Two processes split between partials, one through the partial's bytes, merge to the same
// database as one accumulator.
TEST(FirstTouch, PartialsGiveTheSameDatabase) {
  Accumulator direct;
  direct.add_process(run(0, 42));
  direct.add_process(run(1, 43));
  Accumulator a, b;
  a.add_process(run(1, 43));
  b.add_process(run(0, 42));
  std::vector<uint8_t> bytes = encode_profile(b.to_partial(), 1);
  ReadResult r = read_profile_bytes(bytes.data(), bytes.size(), "partial");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(a.add_partial(r.profile), "");
  Profile want = direct.finish();
  EXPECT_EQ(want.balance.first_touch[0].threads.groups, 2u);
  EXPECT_EQ(encode_profile(a.finish(), 0), encode_profile(want, 0));
}

TEST(FirstTouch, ReportSaysWhoTouchedWhatAndWhere) {
  Accumulator acc;
  acc.add_process(run(-1, 42));
  ReportModel m = build_report_model(acc.finish());
  const Variable* serial = site(m, "app+0x100");
  const Variable* parallel = site(m, "app+0x110");
  ASSERT_TRUE(serial && parallel);
  EXPECT_EQ(serial->page_faults, 1024u);
  EXPECT_TRUE(serial->first_touch.has_threads);
  EXPECT_EQ(serial->first_touch.threads, 1u);
  EXPECT_EQ(serial->first_touch.run_threads, 4u);
  EXPECT_DOUBLE_EQ(serial->first_touch.top_share, 1.0);
  EXPECT_TRUE(serial->first_touch.serial);
  EXPECT_EQ(serial->first_touch.nodes, (std::vector<std::pair<uint32_t, uint64_t>>{{0, 1024}}));
  EXPECT_EQ(parallel->first_touch.threads, 4u);
  EXPECT_FALSE(parallel->first_touch.serial);
  EXPECT_NEAR(parallel->first_touch.top_share, 257.0 / 1024, 1e-12);
  EXPECT_EQ(parallel->first_touch.nodes, (std::vector<std::pair<uint32_t, uint64_t>>{{0, 514}, {1, 510}}));

  EXPECT_EQ(first_touch_summary(*serial),
            "1024 page faults, first touched by 1 of 4 threads (serial initialization), on node 0");
  EXPECT_EQ(first_touch_summary(*parallel),
            "1024 page faults, first touched by 4 of 4 threads, the largest 25.1% (thread pid 42.0), "
            "on nodes 0 (50.2%), 1 (49.8%)");

  std::ostringstream json;
  write_json(m, ReportOptions{View::Data, 0}, json);
  Json doc = Json::parse(json.str());
  bool seen_serial = false, seen_parallel = false;
  for (const Json& v : doc.at("variables")) {
    const Json& t = v.at("first_touch");
    if (v.at("name").get<std::string>() == "app+0x100") {
      seen_serial = true;
      EXPECT_EQ(t.at("page_faults").get<uint64_t>(), 1024u);
      EXPECT_EQ(t.at("threads").get<uint64_t>(), 1u);
      EXPECT_EQ(t.at("run_threads").get<uint64_t>(), 4u);
      EXPECT_NEAR(t.at("top_thread_share").get<double>(), 1.0, 1e-9);
      EXPECT_TRUE(t.at("serial").get<bool>());
      EXPECT_EQ(t.at("nodes").at("0").get<uint64_t>(), 1024u);
    } else if (v.at("name").get<std::string>() == "app+0x110") {
      seen_parallel = true;
      EXPECT_EQ(t.at("threads").get<uint64_t>(), 4u);
      EXPECT_FALSE(t.at("serial").get<bool>());
      EXPECT_EQ(t.at("nodes").at("1").get<uint64_t>(), 510u);
    }
  }
  EXPECT_TRUE(seen_serial && seen_parallel);

  std::ostringstream text;
  write_text(m, ReportOptions{View::Data, 20, 120}, text);
  EXPECT_NE(text.str().find("first touched by 1 of 4 threads (serial initialization), on node 0"),
            std::string::npos) << text.str();
}

// A variable of a few pages touched by one thread is no serial initialization worth a flag, nor
// is any variable of a single-threaded run.
TEST(FirstTouch, SmallOrSingleThreadedIsNotSerial) {
  Profile p = run(-1, 42);
  p.trees.resize(1);
  Accumulator acc;
  acc.add_process(p);
  ReportModel m = build_report_model(acc.finish());
  const Variable* serial = site(m, "app+0x100");
  ASSERT_TRUE(serial);
  EXPECT_EQ(serial->first_touch.threads, 1u);
  EXPECT_FALSE(serial->first_touch.serial);
  EXPECT_EQ(first_touch_summary(*serial), "1024 page faults, first touched by 1 of 1 thread, on node 0");

  Profile q = new_process(-1);
  q.set_meta("page_faults_total", "3");
  q.modules = {Module{"/nonexistent/app", "ab", 0}};
  q.sites = {{AllocApi::Malloc, 0, {{0, 0x100}}, 1, 8192}};
  for (uint32_t t = 0; t < 2; ++t) q.trees.push_back(new_tree(t));
  touch(q.trees[0], 0, 0x940, kSerialMinFaults - 1, 0);
  Accumulator small;
  small.add_process(q);
  m = build_report_model(small.finish());
  ASSERT_TRUE(site(m, "app+0x100"));
  EXPECT_EQ(site(m, "app+0x100")->first_touch.threads, 1u);
  EXPECT_FALSE(site(m, "app+0x100")->first_touch.serial);
}

}  // namespace
}  // namespace hpcl::analysis
