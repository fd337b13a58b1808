// The allocation wrappers' cost, measured through the real preloaded runtime: scripts/bench.sh
// runs this binary natively and again with LD_PRELOAD=libhpcrun-lite.so, and compares ns per
// pair. Nothing here knows about the runtime; the same code runs in both.
//
//  - BM_MallocFree/64 and BM_NewDelete/32: blocks below --min-bytes. At default settings the
//    adaptive controller tracks all of them at first and then one in k (k grows until the thread
//    stays within its tracking budget), so the mean includes that; run with
//    HPCRUN_LITE_SMALL_EVERY=0 for the pure untracked pass-through.
//  - BM_MallocFreeBatch: 4096 small blocks of 16-496 bytes, freed in random order.
//  - BM_FreeRandomOrder/N: N 48-byte blocks (a list's nodes) freed in random order, timed per
//    free: with HPCRUN_LITE_SMALL_EVERY=0 none is tracked and each free costs the address map's
//    filter load (a cache miss at random addresses) on top of the real free.
//  - BM_TrackedMallocFree/4096/depth: blocks at --min-bytes, always tracked: the call path
//    (depth frames of this program above main's), the site lookup, and the address map insert
//    and remove.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

namespace {

__attribute__((noinline)) void* alloc_at_depth(int depth, size_t bytes) {
  if (depth <= 1) return std::malloc(bytes);
  void* p = alloc_at_depth(depth - 1, bytes);
  benchmark::DoNotOptimize(p);  // no tail call: every level stays a frame
  return p;
}

void BM_MallocFree(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  for (auto _ : state) {
    void* p = std::malloc(bytes);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
  state.SetLabel("ns per malloc+free pair");
}
BENCHMARK(BM_MallocFree)->Arg(64)->Arg(1024);

// Many live blocks freed in random order, as a real program does: every free touches a
// different place of the allocator's (and the address map filter's) memory.
void BM_MallocFreeBatch(benchmark::State& state) {
  constexpr size_t kBlocks = 4096;
  std::vector<void*> blocks(kBlocks);
  std::vector<uint32_t> order(kBlocks);
  uint64_t rng = 0x2545F4914F6CDD1Dull;
  for (size_t i = 0; i < kBlocks; ++i) order[i] = uint32_t(i);
  for (size_t i = kBlocks - 1; i > 0; --i) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    std::swap(order[i], order[rng % (i + 1)]);
  }
  for (auto _ : state) {
    for (size_t i = 0; i < kBlocks; ++i) {
      blocks[i] = std::malloc(16 + (i * 40) % 480);
      benchmark::DoNotOptimize(blocks[i]);
    }
    for (uint32_t i : order) std::free(blocks[i]);
  }
  state.SetItemsProcessed(int64_t(state.iterations() * kBlocks));
  state.SetLabel("per 4096 pairs");
}
BENCHMARK(BM_MallocFreeBatch);

void BM_FreeRandomOrder(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  std::vector<void*> blocks(n);
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  for (auto _ : state) {
    state.PauseTiming();
    for (size_t i = 0; i < n; ++i) blocks[i] = std::malloc(48);
    for (size_t i = n - 1; i > 0; --i) {
      rng ^= rng << 13;
      rng ^= rng >> 7;
      rng ^= rng << 17;
      std::swap(blocks[i], blocks[rng % (i + 1)]);
    }
    state.ResumeTiming();
    for (void* p : blocks) std::free(p);
    // The freed chunks sit in glibc's fastbins; consolidate them now, untimed, rather than in
    // the first large malloc of the next benchmark (half a second for 2M chunks).
    state.PauseTiming();
    malloc_trim(0);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(int64_t(state.iterations() * n));
  state.SetLabel("items = frees");
}
BENCHMARK(BM_FreeRandomOrder)->Arg(2 << 20)->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_NewDelete(benchmark::State& state) {
  for (auto _ : state) {
    auto* p = new char[32];
    benchmark::DoNotOptimize(p);
    delete[] p;
  }
}
BENCHMARK(BM_NewDelete);

void BM_TrackedMallocFree(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0));
  const int depth = int(state.range(1));
  for (auto _ : state) {
    void* p = alloc_at_depth(depth, bytes);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}
BENCHMARK(BM_TrackedMallocFree)->Args({4096, 1})->Args({4096, 10})->Args({4096, 30})->Args({65536, 10});

// Growth by realloc across --min-bytes: untrack + track on every call above the threshold.
void BM_ReallocGrowth(benchmark::State& state) {
  for (auto _ : state) {
    void* p = nullptr;
    for (size_t len = 1024; len <= 32768; len += 1024) {
      p = std::realloc(p, len);
      benchmark::DoNotOptimize(p);
    }
    std::free(p);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * 32);
}
BENCHMARK(BM_ReallocGrowth);

}  // namespace

BENCHMARK_MAIN();
