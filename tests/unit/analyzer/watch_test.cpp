// Watchpoint analyses in the analyzer (format 1.6 metrics 96-151): the false-sharing rule on
// synthetic trap counts, reuse percentiles of log2 histograms, and the whole way from process
// profiles (two threads' trees, two processes) through the merge, which sums the metrics, and the
// bytes, to the report's "sharing" and "reuse" in the model, JSON and text.
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "merge/accumulator.h"
#include "output/formatters.h"
#include "profile_builder.h"
#include "model/report_model.h"
#include "model/watch_summary.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

TEST(Watch, FalseSharingRule) {
  EXPECT_TRUE(is_false_sharing(40, 0, 100));
  EXPECT_FALSE(is_false_sharing(4, 0, 4)) << "fewer than kMinFalseTraps";
  EXPECT_FALSE(is_false_sharing(40, 40, 100)) << "not more false than true";
  EXPECT_FALSE(is_false_sharing(40, 100, 100)) << "true sharing";
  EXPECT_FALSE(is_false_sharing(6, 0, 1000)) << "a rare edge line among many armings";
  EXPECT_TRUE(is_false_sharing(50, 0, 1000));
}

TEST(Watch, Log2Quantiles) {
  std::vector<uint64_t> h(40, 0);
  EXPECT_EQ(log2_histogram_quantile(h, 0.5), 0.0);
  h[10] = 100;  // [1024, 2048) ns
  EXPECT_NEAR(log2_histogram_quantile(h, 0.5), 1024 * std::sqrt(2.0), 1e-6);
  EXPECT_GE(log2_histogram_quantile(h, 0.1), 1024.0);
  EXPECT_LT(log2_histogram_quantile(h, 0.9), 2048.0);
  h[20] = 100;  // half the samples 1000x longer
  EXPECT_LT(log2_histogram_quantile(h, 0.4), 2048.0);
  EXPECT_GE(log2_histogram_quantile(h, 0.6), 1 << 20);
  h.assign(40, 0);
  h[0] = 4;
  EXPECT_LE(log2_histogram_quantile(h, 0.5), 2.0);
}

// A variable node's metrics: `f` false and `t` true traps at word offsets 0 and 8, reuse samples.
void watched(Tree& tree, NodeKind root, NodeKind kind, uint32_t index, uint64_t f, uint64_t t,
             uint64_t reuse_bin, uint64_t reuses, uint64_t no_reuse) {
  TreeBuilder b(tree);
  uint32_t var = b.child(b.child(0, root, 0, 0), kind, index, 0);
  Node& n = tree.nodes[var];
  if (f + t) {
    n.add_metric(kMetricWpFalse, f);
    n.add_metric(kMetricWpTrue, t);
    n.add_metric(kMetricWpThreads, 1);
    n.add_metric(kMetricWpLines, 1);
    n.add_metric(kMetricWpSharingArmed, f + t + 10);
    n.add_metric(kMetricWpWordBase + 0, f / 2 + t);
    n.add_metric(kMetricWpWordBase + 1, f - f / 2);
  }
  if (reuses + no_reuse) {
    n.add_metric(kMetricWpReuseArmed, reuses + no_reuse);
    n.add_metric(kMetricWpReuseBase + reuse_bin, reuses);
    n.add_metric(kMetricWpNoReuse, no_reuse);
  }
}

Profile run(int rank, int pid) {
  Profile p = new_process(rank);
  p.set_meta("pid", std::to_string(pid));
  p.modules = {Module{"/nonexistent/app", "ab", 0}};
  p.sites = {{AllocApi::Malloc, 0, {{0, 0x100}}, 1, 4096}, {AllocApi::Malloc, 0, {{0, 0x110}}, 1, 64 << 20}};
  p.statics = {StaticVar{0, 0x4000, 16, 0, "together"}, StaticVar{0, 0x4100, 200, 0, "apart"}};
  for (uint32_t t = 0; t < 2; ++t) {
    Tree tree = new_tree(static_cast<uint32_t>(pid * 10 + t));
    heap_sample(tree, 0, {{0, 0x960}}, 10);
    heap_sample(tree, 1, {{0, 0x970}}, 10);
    static_sample(tree, 0, {{0, 0x980}}, 10);
    static_sample(tree, 1, {{0, 0x990}}, 10);
    if (t == 0) {  // the process's results sit in its first tree
      watched(tree, NodeKind::StaticRoot, NodeKind::StaticVarNode, 0, 20, 1, 0, 0, 0);
      watched(tree, NodeKind::StaticRoot, NodeKind::StaticVarNode, 1, 0, 0, 0, 0, 0);
      watched(tree, NodeKind::HeapRoot, NodeKind::HeapVar, 0, 0, 0, 9, 50, 0);   // ~0.7 us
      watched(tree, NodeKind::HeapRoot, NodeKind::HeapVar, 1, 0, 0, 23, 30, 5);  // ~12 ms
    }
    p.trees.push_back(std::move(tree));
  }
  return p;
}

const Variable* named(const ReportModel& m, const char* name) {
  for (const Variable& v : m.variables)
    if (v.name == name) return &v;
  return nullptr;
}

TEST(Watch, MergeSumsAndReportSays) {
  Accumulator acc;
  acc.add_process(run(0, 42));
  acc.add_process(run(1, 43));
  Profile db = acc.finish();
  // Through the bytes: the metrics are a 1.6 file's.
  std::vector<uint8_t> bytes = encode_profile(db, 1);
  EXPECT_EQ(bytes[10] | bytes[11] << 8, kMinorWatch);
  ReadResult r = read_profile_bytes(bytes.data(), bytes.size(), "db");
  ASSERT_TRUE(r.ok) << r.error;
  ReportModel m = build_report_model(r.profile);
  const Variable* together = named(m, "together");
  const Variable* table = named(m, "app+0x100");
  const Variable* buffer = named(m, "app+0x110");
  ASSERT_TRUE(together && table && buffer);
  const SharingSummary& s = together->watch.sharing;
  EXPECT_TRUE(s.present);
  EXPECT_EQ(s.false_traps, 40u);
  EXPECT_EQ(s.true_traps, 2u);
  EXPECT_EQ(s.threads, 2u);
  EXPECT_EQ(s.lines, 2u);
  EXPECT_EQ(s.offsets, (std::vector<uint64_t>{0, 8}));
  EXPECT_TRUE(s.false_sharing);
  EXPECT_FALSE(named(m, "apart")->watch.sharing.present);
  EXPECT_EQ(table->watch.reuse.samples, 100u);
  EXPECT_EQ(buffer->watch.reuse.no_reuse, 10u);
  EXPECT_GE(buffer->watch.reuse.median_ns / table->watch.reuse.median_ns, 1 << 13);

  std::ostringstream json;
  write_json(m, ReportOptions{View::Data, 0}, json);
  const nlohmann::json doc = nlohmann::json::parse(json.str());
  bool seen = false;
  for (const nlohmann::json& v : doc["variables"]) {
    if (v["name"] == "app+0x110") {
      EXPECT_EQ(v["reuse"]["samples"].get<uint64_t>(), 60u);
      EXPECT_EQ(v["reuse"]["no_reuse"].get<uint64_t>(), 10u);
      EXPECT_EQ(v["reuse"]["histogram"].size(), 40u);
      EXPECT_GT(v["reuse"]["median_ns"].get<double>(), 8e6);
    }
    if (v["name"] != "together") continue;
    seen = true;
    EXPECT_TRUE(v["sharing"]["false_sharing"].get<bool>());
    EXPECT_EQ(v["sharing"]["false"].get<uint64_t>(), 40u);
    EXPECT_EQ(v["sharing"]["true"].get<uint64_t>(), 2u);
    EXPECT_EQ(v["sharing"]["threads"].get<uint64_t>(), 2u);
    EXPECT_EQ(v["sharing"]["lines"].get<uint64_t>(), 2u);
    EXPECT_EQ(v["sharing"]["offsets"].size(), 2u);
    EXPECT_FALSE(v.contains("reuse"));
  }
  EXPECT_TRUE(seen);
  std::ostringstream text;
  write_text(m, ReportOptions{View::Data, 0}, text);
  EXPECT_NE(text.str().find("FALSE SHARING: 40 false / 2 true"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("median reuse"), std::string::npos) << text.str();
}

// The text line of one variable: a sharing analysis that saw no trap says so in a few words (a
// real program lists dozens of such variables), counts agree in number, a flagged one shows
// its threads, lines and offsets.
TEST(Watch, TextLine) {
  WatchSummary w;
  w.sharing.present = true;
  w.sharing.armed = 380;
  EXPECT_EQ(watch_text(w), "no sharing seen after 380 sampled accesses");
  w.sharing.armed = 1;
  EXPECT_EQ(watch_text(w), "no sharing seen after 1 sampled access");
  w.sharing.armed = 71;
  w.sharing.false_traps = 29;
  w.sharing.true_traps = 1;
  w.sharing.threads = 3;
  w.sharing.lines = 1;
  w.sharing.offsets = {0, 8};
  w.sharing.false_sharing = true;
  EXPECT_EQ(watch_text(w),
            "FALSE SHARING: 29 false / 1 true traps after 71 sampled accesses, 3 threads, 1 line, "
            "offsets 0, 8 in the line");
}

}  // namespace
}  // namespace hpcl::analysis
