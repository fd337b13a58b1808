// Micro-benchmarks of the runtime's internals, linked from hpcrun_rt_core (no preloading):
// the address map lookup, site interning, tree insertion, raw unw_backtrace, and the soft
// sample handler's own work (beyond signal delivery), timed inside a real signal handler.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <signal.h>
#include <time.h>
#include <ucontext.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "decode/access_decode.h"
#include "memory/alloc_sites.h"
#include "bench_asm.h"
#include "trees/cct.h"
#include "memory/heap_map.h"
#include "hpcl/profile.h"
#include "loader/modules.h"
#include "decode/saved_regs.h"

namespace {

using hpcl::NodeKind;

uint64_t next_random(uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

// Blocks at realistic heap addresses: 4 KiB..1 MiB apart, sizes 4 KiB..64 KiB.
void fill_map(hpcrun::HeapMap& map, size_t n, std::vector<uint64_t>* starts) {
  uint64_t a = 0x7f1200000000ull, s = 88172645463325252ull;
  for (size_t i = 0; i < n; ++i) {
    uint64_t size = 4096 + (next_random(s) % 61440);
    map.insert(a, size, uint32_t(i % 500));
    starts->push_back(a);
    a += size + 4096 * (1 + next_random(s) % 256);
  }
}

void BM_HeapMapLookup(benchmark::State& state) {
  static hpcrun::HeapMap map;  // the real map is a constinit global of the same type
  static std::vector<uint64_t> starts;
  static size_t filled = 0;
  const size_t n = size_t(state.range(0));
  if (filled != n) {
    for (uint64_t st : starts) map.remove(st, nullptr);
    starts.clear();
    fill_map(map, n, &starts);
    filled = n;
  }
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (auto _ : state) {
    hpcrun::BlockInfo b;
    uint64_t addr = starts[next_random(s) % n] + 100;
    benchmark::DoNotOptimize(map.lookup(addr, &b));
  }
  state.counters["blocks"] = double(n);
}
BENCHMARK(BM_HeapMapLookup)->Arg(16)->Arg(1000)->Arg(100000)->Arg(1000000);

// N list nodes (48 B in 64 B chunks, the granule index) beside 200 tables of 1-3 KiB and a
// 64 MiB array; lookups at random nodes, random tables, the array, and a miss.
void BM_HeapMapLookupSmall(benchmark::State& state) {
  static hpcrun::HeapMap map;
  static size_t filled = 0;
  constexpr uint64_t kNodes = 0x7f3400000000ull, kTables = 0x7f5400000000ull, kArray = 0x7f6000000000ull;
  const size_t n = size_t(state.range(0));
  if (filled == 0) {
    for (uint64_t i = 0; i < n; ++i) map.insert(kNodes + i * 64 + 16, 48, uint32_t(i % 64));
    for (uint64_t i = 0; i < 200; ++i) map.insert(kTables + i * 4096, 1024 + (i % 3) * 1024, 100 + uint32_t(i));
    map.insert(kArray, 64u << 20, 999);
    filled = n;
  }
  const int what = int(state.range(1));
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (auto _ : state) {
    uint64_t r = next_random(s);
    uint64_t addr = what == 0   ? kNodes + (r % n) * 64 + 24
                    : what == 1 ? kTables + (r % 200) * 4096 + 512
                    : what == 2 ? kArray + (r % (64u << 20))
                                : kNodes + (r % n) * 64 + 4;  // a chunk header: a miss
    hpcrun::BlockInfo b;
    benchmark::DoNotOptimize(map.lookup(addr, &b));
  }
  state.counters["blocks"] = double(map.size());
  state.SetLabel(what == 0 ? "node" : what == 1 ? "table" : what == 2 ? "array" : "miss");
}
BENCHMARK(BM_HeapMapLookupSmall)->Args({1000000, 0})->Args({1000000, 1})->Args({1000000, 2})->Args({1000000, 3});

void BM_HeapMapInsertRemove(benchmark::State& state) {
  static hpcrun::HeapMap map;
  static std::vector<uint64_t> starts;
  if (starts.empty()) fill_map(map, 1000, &starts);
  uint64_t a = 0x7e0000000000ull;
  for (auto _ : state) {
    map.insert(a, 4096, 7);
    hpcrun::BlockInfo b;
    benchmark::DoNotOptimize(map.remove(a, &b));
    a += 8192;
  }
}
BENCHMARK(BM_HeapMapInsertRemove);

// A small block's insert and remove next to 100,000 live small blocks.
void BM_HeapMapInsertRemoveSmall(benchmark::State& state) {
  static hpcrun::HeapMap map;
  static bool filled = false;
  if (!filled) {
    for (uint64_t i = 0; i < 100000; ++i) map.insert(0x7f3400000000ull + i * 128, 48, 1);
    filled = true;
  }
  uint64_t i = 0;
  for (auto _ : state) {
    uint64_t a = 0x7f3400000000ull + (i++ % 100000) * 128 + 64;
    map.insert(a, 48, 7, 8);
    hpcrun::BlockInfo b;
    benchmark::DoNotOptimize(map.remove(a, &b));
  }
}
BENCHMARK(BM_HeapMapInsertRemoveSmall);

// The site lookup a tracked allocation does for an allocation path seen before.
void BM_SitesInternExisting(benchmark::State& state) {
  static hpcrun::AllocSites sites;
  const int nframes = int(state.range(0));
  uint64_t frames[hpcrun::kMaxAllocFrames];
  for (int i = 0; i < nframes; ++i) frames[i] = 0x401000 + uint64_t(i) * 0x123;
  (void)sites.intern(1, 0, frames, uint32_t(nframes));
  for (auto _ : state) {
    uint32_t id = sites.intern(1, 0, frames, uint32_t(nframes));
    sites.count(id, 4096);
    benchmark::DoNotOptimize(id);
  }
}
BENCHMARK(BM_SitesInternExisting)->Arg(10)->Arg(30);

// A sample's insertion into an existing path (the steady state of a hot loop): var + 12 frames.
void BM_CctExistingPath(benchmark::State& state) {
  static hpcrun::Cct cct;
  static bool ready = cct.init();
  if (!ready) {
    state.SkipWithError("cct init failed");
    return;
  }
  for (auto _ : state) {
    uint32_t node = cct.child(1, uint8_t(NodeKind::HeapVar), 3, 0);
    for (int d = 0; d < 12; ++d) node = cct.child(node, uint8_t(NodeKind::Frame), 0, 0x401000 + uint64_t(d) * 64);
    cct.add_samples(node, 1);
  }
  state.counters["nodes"] = double(cct.size());
}
BENCHMARK(BM_CctExistingPath);

// libunwind's unw_backtrace, loaded the way the runtime loads it, at a given extra call depth.
using BacktraceFn = int (*)(void**, int);
BacktraceFn backtrace_fn() {
  static BacktraceFn fn = [] {
    void* h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    return h ? reinterpret_cast<BacktraceFn>(dlsym(h, "unw_backtrace")) : nullptr;
  }();
  return fn;
}

__attribute__((noinline)) int backtrace_at_depth(int depth, void** buf) {
  if (depth <= 1) return backtrace_fn()(buf, 80);
  int n = backtrace_at_depth(depth - 1, buf);
  benchmark::DoNotOptimize(n);
  return n;
}

void BM_UnwBacktrace(benchmark::State& state) {
  if (!backtrace_fn()) {
    state.SkipWithError("no libunwind");
    return;
  }
  void* buf[80];
  int n = 0;
  for (auto _ : state) n = backtrace_at_depth(int(state.range(0)), buf);
  state.counters["frames"] = n;
}
BENCHMARK(BM_UnwBacktrace)->Arg(1)->Arg(10)->Arg(30);

// ---- The soft sample handler, handler work only ----
//
// A real signal (tgkill to the thread itself) runs a handler that does what sampler.cpp's
// record_sample does, with the runtime's own functions: registers from the ucontext, the
// decoder (resolve_sample, cached PC), the address-map lookup, the static-variable lookup when
// the address is not heap, the call path of the interrupted context through the signal frame
// (unw_backtrace, as capture_sample_path does; called directly here because the runtime's
// function drops every frame of the module it is linked into, which is this benchmark), and the
// tree insertion of the variable, the frames and the leaf. The handler times itself with
// CLOCK_MONOTONIC (vDSO, ~20-40 ns of the result), so the number excludes signal delivery,
// which BM_SignalRoundTrip measures separately.
double g_static_array[4096];
hpcrun::HeapMap g_map;
hpcrun::Cct g_cct;
uint64_t g_target = 0;  // address the synthetic load reads
uint64_t g_handler_ns = 0;
int g_frames = 0;

uint64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

void sample_handler(int, siginfo_t*, void* ucv) {
  const int saved_errno = errno;
  const uint64_t t0 = now_ns();
  const auto* uc = static_cast<const ucontext_t*>(ucv);
  hpcrun::SavedRegs regs = hpcrun::saved_regs_from_ucontext(uc, hpcrun::fs_base_of_current_thread());
  const uint64_t interrupted = regs.rip;
  // As if the interrupt had hit the streaming loop right after its load of element 5 of g_target.
  regs.rip = reinterpret_cast<uint64_t>(hpcl_bench_stream_after_load);
  regs.gpr[7] = g_target;  // rdi
  regs.gpr[0] = 5;         // rax
  const hpcrun::Access acc = hpcrun::resolve_sample(regs);
  uint32_t node = 4;  // NoDataRoot
  uint64_t leaf = regs.rip;
  if (acc.kind == hpcrun::AccessKind::Address) {
    hpcrun::BlockInfo blk;
    hpcrun::StaticHit hit;
    if (g_map.lookup(acc.ea, &blk))
      node = g_cct.child(1, uint8_t(NodeKind::HeapVar), blk.site, 0);
    else if (hpcrun::modules_find_static(acc.ea, regs.fs_base, &hit))
      node = g_cct.child(2, uint8_t(NodeKind::StaticVarNode), hit.module, uint64_t(hit.symbol));
    else
      node = g_cct.child(3, uint8_t(NodeKind::UnknownClass), 1, 0);
    leaf = acc.insn;
  }
  void* buf[80];
  int n = backtrace_fn()(buf, 80);
  int i = 0;
  while (i < n && reinterpret_cast<uint64_t>(buf[i]) != interrupted) ++i;
  int frames = 0;
  for (int k = n - 1; k > i && node != hpcrun::Cct::kNone; --k, ++frames)
    node = g_cct.child(node, uint8_t(NodeKind::Frame), 0, reinterpret_cast<uint64_t>(buf[k]) - 1);
  if (node != hpcrun::Cct::kNone) {
    node = g_cct.child(node, uint8_t(NodeKind::Frame), 0, leaf);
    g_cct.add_samples(node, 1);
  }
  g_frames = frames;
  g_handler_ns += now_ns() - t0;
  errno = saved_errno;
}

bool setup_handler() {
  static bool ok = [] {
    hpcrun::decode_init();
    hpcrun::modules_scan();
    if (!g_cct.init() || !backtrace_fn()) return false;
    void* warm[4];
    backtrace_fn()(warm, 4);  // libunwind's per-thread cache, outside the handler
    std::vector<uint64_t> starts;
    fill_map(g_map, 1000, &starts);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = sample_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGRTMIN + 4, &sa, nullptr) == 0;
  }();
  return ok;
}

void BM_SoftSampleHandler(benchmark::State& state) {
  if (!setup_handler()) {
    state.SkipWithError("handler set-up failed");
    return;
  }
  static std::vector<double> heap_block(65536);  // a tracked heap block of 512 KiB
  const bool heap = state.range(0) == 0;
  if (heap) {
    g_map.insert(reinterpret_cast<uint64_t>(heap_block.data()), heap_block.size() * sizeof(double), 42);
    g_target = reinterpret_cast<uint64_t>(heap_block.data());
  } else {
    g_target = reinterpret_cast<uint64_t>(g_static_array);
  }
  const pid_t pid = getpid(), tid = gettid();
  for (auto _ : state) {
    const uint64_t before = g_handler_ns;
    tgkill(pid, tid, SIGRTMIN + 4);
    state.SetIterationTime(double(g_handler_ns - before) * 1e-9);
  }
  if (heap) g_map.remove(reinterpret_cast<uint64_t>(heap_block.data()), nullptr);
  state.SetLabel(heap ? "heap variable" : "static variable");
  state.counters["frames"] = g_frames;
  state.counters["tree_nodes"] = g_cct.size();
}
BENCHMARK(BM_SoftSampleHandler)->Arg(0)->Arg(1)->UseManualTime();

// Signal delivery and return with an empty handler: what every sample costs before any work.
void empty_handler(int, siginfo_t*, void*) {}
void BM_SignalRoundTrip(benchmark::State& state) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = empty_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGRTMIN + 5, &sa, nullptr);
  const pid_t pid = getpid(), tid = gettid();
  for (auto _ : state) tgkill(pid, tid, SIGRTMIN + 5);
}
BENCHMARK(BM_SignalRoundTrip);

}  // namespace

BENCHMARK_MAIN();
