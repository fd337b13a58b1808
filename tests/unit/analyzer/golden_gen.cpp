// Writes the golden test's input: the process profiles of a small imaginary MPI+OpenMP stencil
// run (2 ranks x 2 threads), or with --memory those of a run with hardware memory metrics
// (golden_memory.cpp), uncompressed so the checked-in bytes are stable. Every module lives
// under /nonexistent, so symbolization falls back to module+offset on any machine. Run by
// golden/update.sh when the scenario changes; a test checks that the checked-in files match.
#include <cstdio>
#include <string>

#include "golden_memory.h"
#include "profile_builder.h"

using namespace hpcl;
using namespace hpcl::testing;

namespace {

const Module kApp{"/nonexistent/hpcl-golden/bin/stencil", "5e7c11", 0x555500000000};
const Module kLibc{"/nonexistent/hpcl-golden/lib/libc.so.6", "c0ffee", 0x7f1000000000};
const Module kStdcxx{"/nonexistent/hpcl-golden/lib/libstdc++.so.6", "5dc", 0x7f2000000000};
const Module kMpi{"/nonexistent/hpcl-golden/lib/libmpi.so.40", "4b1", 0x7f3000000000};

Profile rank(int r) {
  Profile p = new_process(r);
  p.set_meta("exe", kApp.path);
  p.set_meta("cmdline", kApp.path + " -n 512");
  p.set_meta("start_ns", std::to_string(1700000000000000000ull + r));
  p.set_meta("end_ns", std::to_string(1700000002000000000ull + r));
  // Module order differs between ranks, as it would with different load orders.
  if (r == 0) p.modules = {kApp, kLibc, kStdcxx, kMpi};
  else p.modules = {kMpi, kStdcxx, kApp, kLibc};
  auto M = [&](const Module& m) {
    for (uint32_t i = 0; i < p.modules.size(); ++i)
      if (p.modules[i].path == m.path) return i;
    return kNoModule;
  };
  const uint32_t app = M(kApp), libc = M(kLibc), cxx = M(kStdcxx), mpi = M(kMpi);
  // 0: operator new[] from libstdc++ (std::vector growth) in the grid constructor;
  // 1: calloc of the halo buffers; 2: small sampled mallocs inside libmpi.
  p.sites = {{AllocApi::NewArray, 0, {{cxx, 0xa1f40}, {app, 0x2217}, {app, 0x1c05}}, 2, 2u * 8 * 512 * 512},
             {AllocApi::Calloc, 0, {{app, 0x2480}, {app, 0x1c40}}, 4, 4u * 8 * 512},
             {AllocApi::Malloc, kSiteSampled, {{libc, 0x9a0e0}, {mpi, 0x3310f}, {app, 0x1d10}}, 3, 3u * 48}};
  p.statics = {{app, 0x6020, 8, 0, "grid_size.1"}, {app, 0x6040, 8192, 0, "_ZN5stats7historyE"}};
  uint64_t total = 0;
  std::vector<Tree> trees;
  for (uint32_t t = 0; t < 2; ++t) {
    Tree tree = new_tree(4000 + 10 * r + t);
    const Frame main_f{app, 0x1c90}, omp{app, 0x2a00};
    const uint64_t k = 1 + r + t;  // threads differ a little
    heap_sample(tree, 0, {main_f, omp, {app, 0x2b14}}, 40 * k);
    heap_sample(tree, 0, {main_f, omp, {app, 0x2b3c}}, 11 * k);
    heap_sample(tree, 1, {main_f, {app, 0x2c08}}, 6 * k);
    // Two samples in blocks tracked one in 16: 30 more estimated, variance 2 * (256 - 16).
    heap_sample_estimated(tree, 2, {main_f, {mpi, 0x41000}, {mpi, 0x41234}}, 2, 30, 480);
    unknown_sample(tree, UnknownClass::UntrackedHeap, {main_f, {mpi, 0x41240}}, 40 + r);
    static_sample(tree, 1, {main_f, omp, {app, 0x2b50}}, 9 * k);
    static_sample(tree, 0, {main_f, omp, {app, 0x2a10}}, 1);
    unknown_sample(tree, UnknownClass::Stack, {main_f, {app, 0x1cc4}}, 3);
    if (r == 1) unknown_sample(tree, UnknownClass::Other, {main_f, {libc, 0x150000}}, 1);
    if (r == 1) p.set_meta("samples_in_runtime", "3");
    nodata_sample(tree, {main_f, omp, {app, 0x2b14}}, 5 * k);
    nodata_sample(tree, {main_f, {mpi, 0x50010}}, 7);
    for (const Node& n : tree.nodes) total += n.metric(kMetricSamples);
    trees.push_back(std::move(tree));
  }
  p.trees = std::move(trees);
  p.set_meta("samples_total", std::to_string(total + 2));
  p.set_meta("samples_dropped", "2");
  p.set_meta("samples_dropped_full", "2");
  p.set_meta("samples_no_data", "0");
  p.set_meta("samples_unresolved", std::to_string(r));
  p.set_meta("offsets_lost", "0");
  // The grid is read in its first quarter only; stats::history evenly; merged across ranks.
  OffsetHistogram grid;
  grid.index = 0;
  grid.min = 64 * r;
  grid.max = 2u * 8 * 512 * 512 / 4 - 8;
  for (uint32_t b = 0; b < 8; ++b) grid.bins[b] = 10 + b + r;
  grid.bins[20] = 1;  // a stray sample outside the hot quarter
  OffsetHistogram history;
  history.owner = OffsetOwner::Static;
  history.index = 1;
  history.max = 8192 - 8;
  for (uint64_t& b : history.bins) b = 1;
  p.offsets = {grid, history};
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const bool memory = argc == 3 && std::string(argv[1]) == "--memory";
  if (argc != 2 && !memory) {
    std::fprintf(stderr, "usage: %s [--memory] OUTDIR\n", argv[0]);
    return 2;
  }
  for (int r = 0; r < 2; ++r) {
    std::string path = std::string(argv[argc - 1]) + (memory ? "/chase-rank" : "/stencil-rank") +
                       std::to_string(r) + ".hpcl";
    std::string error;
    if (!write_profile_file(memory ? memory_rank(r) : rank(r), path, &error, /*zstd_level=*/0)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
  }
  return 0;
}
