// Real PEBS records through the runtime's own decoding: a `perf record` of
// MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2 on an Intel Xeon Platinum 8173M
// (Skylake-SP), read from its perf.data file (records as the kernel wrote them to the ring), and
// what perf 6.1's `perf script` printed for each of its 14 samples. Each record goes through the
// code that reads the runtime's rings (parse_sample_body, its WEIGHT_STRUCT layout included), the
// PEBS sample builder and the data-source decoder, into the memory metrics a report shows, and
// must give what perf printed: thread, time, data address, data_src, weight (the load latency),
// instruction, and the decoded source in the tool's words (perf_mem_text.h). Then the same
// records through the ring drain: kernel-mode samples counted as such, the user ones in the tree.
// Last, the runtime's plan for a Skylake-SP node opens the event the recording was made with.
// The recording lives beside the checkout (../shared/oracles/perf-mem/); skipped without it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "hpcl/profile.h"
#include "perf_data_file.h"
#include "perf_mem_text.h"
#include "record_builder.h"
#include "hpcrun/probe/event_plan.h"
#include "sources/hw/hw_drain.h"
#include "sources/hw/hw_sample.h"
#include "sources/hw/sample_record.h"
#include "trees/cct.h"
#include "trees/mem_counts.h"

using namespace hpcrun;
using namespace hpcl_test;

namespace {

const std::string kOracles = HPCL_ORACLES_DIR;
const std::string kRecording = kOracles + "/perf-mem/skx-load-latency.perf.data";
const std::string kPerfScript = kOracles + "/perf-mem/expected-perf-script.txt";

// One line of `perf script -F tid,time,addr,data_src,weight,ip`.
struct PerfLine {
  uint32_t tid = 0;
  uint64_t time_us = 0;  // perf prints seconds with six decimals, truncated
  uint64_t addr = 0, data_src = 0, ip = 0;
  uint32_t weight = 0;
  std::string decoded;  // "|OP LOAD|LVL ...|BLK  N/A"
};

std::vector<PerfLine> read_perf_script(const std::string& path) {
  std::vector<PerfLine> out;
  std::ifstream in(path);
  const std::regex line(R"(^\s*(\d+)\s+(\d+)\.(\d{6}):\s+([0-9a-f]+)\s+([0-9a-f]+)\s+(\|.*\|BLK\s+\S+)\s+(\d+)\s+([0-9a-f]+)\s*$)");
  std::string text;
  while (std::getline(in, text)) {
    std::smatch m;
    if (!std::regex_match(text, m, line)) {
      ADD_FAILURE() << path << ": a line not in perf script's shape: " << text;
      continue;
    }
    PerfLine p;
    p.tid = uint32_t(std::stoul(m[1]));
    p.time_us = std::stoull(m[2]) * 1000000 + std::stoull(m[3]);
    p.addr = std::stoull(m[4], nullptr, 16);
    p.data_src = std::stoull(m[5], nullptr, 16);
    p.decoded = m[6];
    p.weight = uint32_t(std::stoul(m[7]));
    p.ip = std::stoull(m[8], nullptr, 16);
    out.push_back(p);
  }
  return out;
}

class PebsRecording : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream probe(kRecording);
    if (!probe) GTEST_SKIP() << "no recording at " << kRecording << " (../shared/oracles beside the checkout)";
    std::string err;
    ASSERT_TRUE(read_perf_data(kRecording, &file_, &err)) << err;
    samples_ = file_.of_type(PERF_RECORD_SAMPLE);
    lines_ = read_perf_script(kPerfScript);
    // perf script prints in time order across CPUs; the file holds each CPU's ring in turn.
    by_time_ = samples_;
    std::stable_sort(by_time_.begin(), by_time_.end(), [&](const PerfDataRecord* a, const PerfDataRecord* b) {
      return time_of(*a) < time_of(*b);
    });
  }

  // A sample record's ID and time, read with the first attr's sample_type: every attr of the
  // file has the same one (checked below), so they sit at the same place in every record.
  PerfSample header_of(const PerfDataRecord& r) {
    PerfSample s;
    parse_sample(file_.attrs[0].attr.sample_type, r.bytes.data(), r.bytes.size(), &s);
    return s;
  }
  // The attr of a sample record, found by its ID as perf finds it.
  const PerfDataAttr* attr_of(const PerfDataRecord& r) { return file_.attr_of(header_of(r).id); }
  uint64_t time_of(const PerfDataRecord& r) { return header_of(r).time; }

  PerfDataFile file_;
  std::vector<const PerfDataRecord*> samples_;  // in file order, as the rings gave them
  std::vector<const PerfDataRecord*> by_time_;  // in perf script's order
  std::vector<PerfLine> lines_;
};

TEST_F(PebsRecording, TheFileIsTheOneDescribed) {
  ASSERT_EQ(file_.attrs.size(), 2u);
  const perf_event_attr& a = file_.attrs[0].attr;
  EXPECT_EQ(a.type, uint32_t(PERF_TYPE_RAW));
  EXPECT_EQ(a.config, 0x1cdu);
  EXPECT_EQ(a.config1, 64u) << "ldlat";
  EXPECT_EQ(a.precise_ip, 2u);
  EXPECT_EQ(a.sample_type, uint64_t(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                                    PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC |
                                    PERF_SAMPLE_WEIGHT_STRUCT));
  EXPECT_EQ(file_.attrs[1].attr.sample_type, a.sample_type) << "the side-band event's records place the ID alike";
  EXPECT_EQ(samples_.size(), 14u);
  EXPECT_EQ(lines_.size(), 14u);
}

// Every sample, field by field, as perf printed it; a mismatch names the sample and the field.
TEST_F(PebsRecording, EverySampleGivesWhatPerfPrints) {
  ASSERT_EQ(by_time_.size(), lines_.size());
  for (size_t i = 0; i < by_time_.size(); ++i) {
    SCOPED_TRACE("sample " + std::to_string(i + 1) + " of " + std::to_string(by_time_.size()) +
                 " (perf: " + std::to_string(lines_[i].tid) + " ... " + lines_[i].decoded + ")");
    const PerfDataRecord& r = *by_time_[i];
    const PerfDataAttr* attr = attr_of(r);
    ASSERT_NE(attr, nullptr) << "no attr holds the sample's ID";
    EXPECT_EQ(attr, &file_.attrs[0]) << "a sample of the side-band event";
    // The ring reader hands over the body after the header: the same call the drain makes.
    PerfSample s;
    ASSERT_EQ(parse_sample_body(attr->attr.sample_type, r.bytes.data() + sizeof(perf_event_header),
                                r.bytes.size() - sizeof(perf_event_header), &s),
              SampleParse::Ok);
    const PerfLine& want = lines_[i];
    EXPECT_EQ(s.tid, want.tid) << "tid";
    EXPECT_EQ(s.time / 1000, want.time_us) << "time";
    EXPECT_EQ(s.data_src, want.data_src) << "data_src";
    HwSample h;
    ASSERT_EQ(hw_sample_from_pebs(s, &h), HwSampleResult::Ok);
    EXPECT_EQ(h.ip, want.ip) << "ip";
    EXPECT_EQ(h.addr, want.addr) << "data address";
    EXPECT_TRUE(h.addr_valid) << "data address";
    EXPECT_EQ(h.latency, want.weight) << "weight (WEIGHT_STRUCT var1, the load latency)";
    const PerfMemText text = read_perf_mem_text(want.decoded);
    ASSERT_TRUE(text.ok) << text.error;
    EXPECT_EQ(mem_source_diff(h.source, text.want), "") << "data source";

    // The metrics the report shows for this one sample.
    MemCounts m{};
    mem_counts_add(&m, h);
    hpcl::Metric metrics[kMaxMemMetrics];
    const int n = mem_counts_metrics(m, metrics);
    std::map<std::string, uint64_t> got;
    for (int k = 0; k < n; ++k) got[hpcl::metric_name(metrics[k].id)] = metrics[k].value;
    std::map<std::string, uint64_t> expected = {{"latency", want.weight}, {"latency_samples", 1}};
    expected[mem_level_name(text.want.level)] = 1;
    if (text.want.tlb == TlbState::Hit) expected["tlb_hit"] = 1;
    if (text.want.tlb == TlbState::Miss) expected["tlb_miss"] = 1;
    if (text.want.locked) expected["locked"] = 1;
    if (text.want.hitm) expected["hitm"] = 1;
    EXPECT_EQ(got, expected) << "the sample's metrics";
  }
}

// The records through the drain as they come off a ring, in the order the kernel wrote them:
// the kernel-mode ones counted as such (the recording was system-wide), the user ones counted
// under their variable with their latency and level.
TEST_F(PebsRecording, TheDrainCountsWhatThePmuWrote) {
  auto cct = std::make_unique<Cct>();
  ASSERT_TRUE(cct->init());
  HwDrainEnv env;
  env.cct = cct.get();
  env.sample_type = file_.attrs[0].attr.sample_type;
  env.decoder = HwDecoder::Pebs;
  env.classify = [](Cct& c, uint64_t, void*, SampleEstimate*) {
    return c.child(kCctHeapRoot, uint8_t(hpcl::NodeKind::HeapVar), 0, 0);
  };
  FakeRing ring(4096);
  for (const PerfDataRecord* r : samples_) ring.put(r->bytes);
  EXPECT_EQ(hw_drain(&ring.ring, &env), samples_.size());
  uint64_t user = 0, user_latency = 0;
  for (const PerfLine& l : lines_)
    if ((l.ip >> 63) == 0) {
      ++user;
      user_latency += l.weight;
    }
  EXPECT_EQ(user, 5u) << "perf printed five user-space instructions";
  EXPECT_EQ(env.counts.records, samples_.size());
  EXPECT_EQ(env.counts.kernel, samples_.size() - user);
  EXPECT_EQ(env.counts.recorded, user);
  EXPECT_EQ(env.counts.malformed, 0u);
  // Summed over the tree: the user samples and their latencies.
  uint64_t latency = 0, samples = 0;
  const Cct& tree = *cct;
  for (uint32_t node = 0; node < tree.size(); ++node) {
    samples += tree.at(node)->samples;
    if (const MemCounts* m = tree.mem_at(node)) latency += m->latency;
  }
  EXPECT_EQ(samples, user);
  EXPECT_EQ(latency, user_latency);
}

// The runtime's plan for pebs-load on a Skylake-SP node, asked for the recording's period and
// threshold, opens the recorded event. What differs is perf's, for a system-wide record of two
// events, or a choice of ours, each named.
TEST_F(PebsRecording, OurPlanOpensTheRecordedEvent) {
  const perf_event_attr& rec = file_.attrs[0].attr;
  PlanRequest req;
  req.period = rec.sample_period;
  req.ldlat = uint32_t(rec.config1);
  EventPlan plan;
  ASSERT_TRUE(plan_pebs(HPCL_MACHINES_DIR "/skylake-x", PebsKind::Load, req, &plan)) << plan.reason;
  ASSERT_EQ(plan.n, 1) << "Skylake has no mem-loads-aux leader";
  const perf_event_attr& ours = plan.ev[0].attr;
  EXPECT_EQ(ours.type, rec.type);
  EXPECT_EQ(ours.config, rec.config);
  EXPECT_EQ(ours.config1, rec.config1);
  EXPECT_EQ(ours.config2, rec.config2);
  EXPECT_EQ(ours.sample_period, rec.sample_period);
  EXPECT_EQ(ours.freq, rec.freq);
  // perf adds ID to tell its two events apart in one file; we open one event per ring.
  EXPECT_EQ(ours.sample_type, rec.sample_type & ~uint64_t(PERF_SAMPLE_ID));
  EXPECT_EQ(ours.read_format & ~uint64_t(PERF_FORMAT_ID), rec.read_format & ~uint64_t(PERF_FORMAT_ID));
  // The recording asked precise=2 by name; we plan the PMU's max_precise (3 on this tree), as
  // perf mem's :P does, and lower it at open to what the kernel takes (probe_plan).
  EXPECT_EQ(ours.precise_ip, 3u);
  EXPECT_GE(ours.precise_ip, rec.precise_ip);
  // Ours: user space only (perf_event_paranoid 2 allows it to anyone); the recording took the
  // kernel too (system-wide, as root). Ours starts enabled in each thread; perf opens its
  // per-CPU events disabled and pinned and enables them at once, with side-band records.
  EXPECT_EQ(ours.exclude_kernel, 1u);
  EXPECT_EQ(rec.exclude_kernel, 0u);
  EXPECT_EQ(rec.pinned, 1u);
  EXPECT_EQ(rec.sample_id_all, 1u);
}

}  // namespace
