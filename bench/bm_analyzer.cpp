// Micro-benchmarks of the analyzer (hpcl_analysis) on synthetic process profiles
// (synthetic_profile.h): decoding one profile (the report's reader and the merge's), merging N
// profiles read by the merge's reader into one tree (Accumulator, what each merge worker does per
// file, plus the canonical ordering at the end), moving the partial merge of N/2 profiles to
// another (what one step of hpcprof-lite-mpi's reduction does), and generating the reports of the
// merged database. File I/O, thread scaling and peak memory of the whole `hpcprof-lite merge`
// are measured by bench/merge_sizes.sh and bench/merge_scaling.sh instead.
#include <benchmark/benchmark.h>

#include <map>
#include <sstream>
#include <vector>

#include "merge/accumulator.h"
#include "output/formatters.h"
#include "hpcl/io.h"
#include "hpcl/scan.h"
#include "model/report_model.h"
#include "synthetic_profile.h"

namespace {

using namespace hpcl::analysis;

const std::vector<hpcl::Profile>& profiles(size_t n) {
  static std::vector<hpcl::Profile> cache;
  while (cache.size() < n) cache.push_back(hpcl_bench::make_process_profile(int(cache.size())));
  return cache;
}

void BM_DecodeProfile(benchmark::State& state) {
  const std::vector<uint8_t> bytes = hpcl::encode_profile(profiles(1)[0]);
  for (auto _ : state) {
    hpcl::ReadResult r = hpcl::read_profile_bytes(bytes.data(), bytes.size(), "synthetic");
    benchmark::DoNotOptimize(r.ok);
  }
  size_t nodes = 0;
  for (const auto& t : profiles(1)[0].trees) nodes += t.nodes.size();
  state.counters["file_bytes"] = double(bytes.size());
  state.counters["nodes"] = double(nodes);
}
BENCHMARK(BM_DecodeProfile)->Unit(benchmark::kMicrosecond);

// The first n profiles as the merge's reader gives them.
const std::vector<hpcl::ScannedProfile>& scanned(size_t n) {
  static std::vector<hpcl::ScannedProfile> cache;
  static hpcl::ProfileScanner scanner;
  while (cache.size() < n) {
    const std::vector<uint8_t> bytes = hpcl::encode_profile(profiles(cache.size() + 1).back());
    if (!scanner.read_bytes(bytes.data(), bytes.size(), "synthetic", cache.emplace_back()).empty()) std::abort();
  }
  return cache;
}

void BM_ScanProfile(benchmark::State& state) {
  const std::vector<uint8_t> bytes = hpcl::encode_profile(profiles(1)[0]);
  hpcl::ProfileScanner scanner;
  hpcl::ScannedProfile out;
  for (auto _ : state) benchmark::DoNotOptimize(scanner.read_bytes(bytes.data(), bytes.size(), "synthetic", out));
}
BENCHMARK(BM_ScanProfile)->Unit(benchmark::kMicrosecond);

void BM_MergeTrees(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  const auto& ps = scanned(n);
  size_t merged_nodes = 0, input_nodes = 0;
  for (size_t i = 0; i < n; ++i)
    for (const auto& t : ps[i].trees()) input_nodes += t.size();
  for (auto _ : state) {
    Accumulator acc;
    for (size_t i = 0; i < n; ++i)
      if (!acc.add_process(ps[i]).empty()) std::abort();
    hpcl::Profile db = acc.finish();
    merged_nodes = db.trees[0].nodes.size();
  }
  state.counters["input_nodes"] = double(input_nodes);
  state.counters["merged_nodes"] = double(merged_nodes);
  state.counters["time_per_profile"] =
      benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_MergeTrees)->Arg(16)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);

// One step of the reduction: the partial of profiles [n/2, n) encoded as a rank sends it, read
// as rank 0 reads it and added to the partial of profiles [0, n/2).
void BM_PartialTransport(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  const auto& ps = scanned(n);
  size_t bytes = 0, nodes = 0;
  hpcl::ProfileScanner scanner;
  hpcl::ScannedProfile partial;
  for (auto _ : state) {
    state.PauseTiming();
    Accumulator into, from;
    for (size_t i = 0; i < n; ++i)
      if (!(i < n / 2 ? into : from).add_process(ps[i]).empty()) std::abort();
    state.ResumeTiming();
    const std::vector<uint8_t> sent = hpcl::encode_profile(from.to_partial(), 1);
    if (!scanner.read_bytes(sent.data(), sent.size(), "partial", partial).empty()) std::abort();
    if (!into.add_partial(partial).empty()) std::abort();
    bytes = sent.size();
    nodes = partial.trees()[0].size();
  }
  state.counters["partial_bytes"] = double(bytes);
  state.counters["partial_nodes"] = double(nodes);
}
BENCHMARK(BM_PartialTransport)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);

const hpcl::Profile& database() {
  static const hpcl::Profile db = [] {
    Accumulator acc;
    for (const auto& p : profiles(64)) acc.add_process(p);
    return acc.finish();
  }();
  return db;
}

void BM_ReportModel(benchmark::State& state) {
  const hpcl::Profile& db = database();
  for (auto _ : state) {
    ReportModel m = build_report_model(db);
    benchmark::DoNotOptimize(m.variables.size());
  }
  state.counters["db_nodes"] = double(db.trees[0].nodes.size());
}
BENCHMARK(BM_ReportModel)->Unit(benchmark::kMillisecond);

void BM_ReportText(benchmark::State& state) {
  const ReportModel m = build_report_model(database());
  ReportOptions opts;
  opts.view = state.range(0) == 0 ? View::Data : View::Code;
  for (auto _ : state) {
    std::ostringstream out;
    write_text(m, opts, out);
    benchmark::DoNotOptimize(out.tellp());
  }
  state.SetLabel(state.range(0) == 0 ? "data view" : "code view");
}
BENCHMARK(BM_ReportText)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_ReportJson(benchmark::State& state) {
  const ReportModel m = build_report_model(database());
  ReportOptions opts;
  opts.top = 0;
  for (auto _ : state) {
    std::ostringstream out;
    write_json(m, opts, out);
    benchmark::DoNotOptimize(out.tellp());
  }
}
BENCHMARK(BM_ReportJson)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
