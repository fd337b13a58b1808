// The decoder's cost (access_decode.h), moved out of the unit tests: resolve_sample on a cache
// hit, the work of one miss (function bounds + forward decode + the access), and a cold pass of
// resolve_sample over every instruction of a few libc functions, whose misses also decide and
// cache their neighbours. Linked into bm_runtime.
#include <Zydis/Zydis.h>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <vector>

#include "decode/access_decode.h"
#include "pc_corpus.h"
#include "bench_asm.h"

namespace {

using hpcl_test::Pc;

// Every instruction boundary of some libc functions and the functions that follow them: the
// same corpus the decoder's concurrency test uses.
const std::vector<Pc>& corpus() {
  static const std::vector<Pc> pcs = hpcl_test::pc_corpus(6);
  return pcs;
}

hpcrun::SavedRegs regs_for(uint64_t pc) {
  hpcrun::SavedRegs r{};
  for (unsigned i = 0; i < 16; ++i) r.gpr[i] = 0x100000ull * (i + 1);
  r.rip = pc;
  r.fs_base = 0x7f0000000000ull;
  return r;
}

// Runs first (registration order): the cache is still cold for the corpus.
void BM_DecodeColdPass(benchmark::State& state) {
  hpcrun::decode_init();
  const auto& pcs = corpus();
  uint64_t misses = 0, sink = 0;
  double seconds = 0;
  for (auto _ : state) {
    const auto before = hpcrun::decode_stats();
    auto t0 = std::chrono::steady_clock::now();
    for (const Pc& p : pcs) sink += hpcrun::resolve_sample(regs_for(p.pc)).ea;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto after = hpcrun::decode_stats();
    misses = (after.lookups - before.lookups) - (after.hits - before.hits);
    state.SetIterationTime(seconds);
  }
  benchmark::DoNotOptimize(sink);
  state.counters["pcs"] = double(pcs.size());
  state.counters["misses"] = double(misses);
  state.counters["ns_per_miss"] = misses ? seconds * 1e9 / double(misses) : 0.0;
  state.counters["ns_per_call"] = seconds * 1e9 / double(pcs.size());
}
// One repetition only: the cache is warm after it.
BENCHMARK(BM_DecodeColdPass)->Iterations(1)->Repetitions(1)->UseManualTime();

// The distribution of one miss's cost, inside the same kind of cold pass: each resolve_sample
// call is timed alone and kept when it missed. Percentiles in ns, and the largest number of
// instructions one miss decoded forward (DecodeStats::scan_insns_max).
void BM_DecodeMissDistribution(benchmark::State& state) {
  hpcrun::decode_init();
  const auto all = hpcl_test::pc_corpus(12);
  std::vector<double> miss_ns;
  uint64_t sink = 0;
  for (auto _ : state) {
    miss_ns.clear();
    double total = 0;
    for (const Pc& p : all) {
      const auto before = hpcrun::decode_stats();
      timespec t0, t1;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
      sink += hpcrun::resolve_sample(regs_for(p.pc)).ea;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
      const double ns = double(t1.tv_sec - t0.tv_sec) * 1e9 + double(t1.tv_nsec - t0.tv_nsec);
      total += ns;
      if (hpcrun::decode_stats().hits == before.hits) miss_ns.push_back(ns);
    }
    state.SetIterationTime(total / 1e9);
  }
  benchmark::DoNotOptimize(sink);
  std::sort(miss_ns.begin(), miss_ns.end());
  auto pct = [&](double q) { return miss_ns.empty() ? 0.0 : miss_ns[size_t(q * double(miss_ns.size() - 1))]; };
  state.counters["misses"] = double(miss_ns.size());
  state.counters["p50_ns"] = pct(0.5);
  state.counters["p90_ns"] = pct(0.9);
  state.counters["p99_ns"] = pct(0.99);
  state.counters["max_ns"] = pct(1.0);
  state.counters["max_scan_insns"] = double(hpcrun::decode_stats().scan_insns_max);
}
BENCHMARK(BM_DecodeMissDistribution)->Iterations(1)->Repetitions(1)->UseManualTime();

void BM_DecodeHit(benchmark::State& state) {
  hpcrun::decode_init();
  hpcrun::SavedRegs r = regs_for(reinterpret_cast<uint64_t>(hpcl_bench_stream_after_load));
  benchmark::DoNotOptimize(hpcrun::resolve_sample(r));
  for (auto _ : state) benchmark::DoNotOptimize(hpcrun::resolve_sample(r).ea);
}
BENCHMARK(BM_DecodeHit);

// What a miss costs without the cache: bounds + decision by forward decode + the access.
void BM_DecodeUncached(benchmark::State& state) {
  hpcrun::decode_init();
  const auto& pcs = corpus();
  size_t i = 0;
  for (auto _ : state) {
    const Pc& p = pcs[i];
    i = (i + 97) % pcs.size();
    uint64_t s = 0, e = 0;
    if (hpcrun::function_bounds(p.pc, &s, &e)) {
      auto d = hpcrun::decide_from_code(reinterpret_cast<const uint8_t*>(s), e - s, s, p.pc);
      benchmark::DoNotOptimize(d);
    }
    benchmark::DoNotOptimize(hpcrun::access_at(p.pc, regs_for(p.pc)).ea);
  }
  uint64_t bytes = 0;
  for (const Pc& p : pcs) bytes += p.end - p.start;
  state.counters["avg_function_bytes"] = double(bytes) / double(pcs.size());
}
BENCHMARK(BM_DecodeUncached);

// One uncached decision in a small function (the 40-byte streaming loop of bench_asm.h).
void BM_DecodeUncachedSmall(benchmark::State& state) {
  hpcrun::decode_init();
  const auto pc = reinterpret_cast<uint64_t>(hpcl_bench_stream_after_load);
  uint64_t s = 0, e = 0;
  if (!hpcrun::function_bounds(pc, &s, &e)) {
    state.SkipWithError("no bounds for the streaming loop");
    return;
  }
  for (auto _ : state) {
    uint64_t fs = 0, fe = 0;
    (void)hpcrun::function_bounds(pc, &fs, &fe);
    benchmark::DoNotOptimize(hpcrun::decide_from_code(reinterpret_cast<const uint8_t*>(fs), fe - fs, fs, pc));
  }
  state.counters["function_bytes"] = double(e - s);
}
BENCHMARK(BM_DecodeUncachedSmall);

void BM_FunctionBounds(benchmark::State& state) {
  const auto& pcs = corpus();
  size_t i = 0;
  for (auto _ : state) {
    uint64_t s = 0, e = 0;
    benchmark::DoNotOptimize(hpcrun::function_bounds(pcs[i].pc, &s, &e));
    i = (i + 97) % pcs.size();
  }
}
BENCHMARK(BM_FunctionBounds);

void BM_AccessAt(benchmark::State& state) {
  const auto& pcs = corpus();
  const hpcrun::SavedRegs r = regs_for(0);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(hpcrun::access_at(pcs[i].pc, r).ea);
    i = (i + 97) % pcs.size();
  }
}
BENCHMARK(BM_AccessAt);

}  // namespace
