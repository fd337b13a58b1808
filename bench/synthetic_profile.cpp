// See synthetic_profile.h.
#include "synthetic_profile.h"

#include <string>
#include <vector>

#include "hpcl/tree.h"

namespace hpcl_bench {
namespace {

using hpcl::Frame;
using hpcl::NodeKind;

// Deterministic generator: a profile depends only on (rank, shape).
struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  uint32_t below(uint32_t n) { return uint32_t(next() % n); }
};

constexpr uint32_t kApp = 0, kMpi = 1, kLibc = 2, kGomp = 3;

// The program's "functions": call-site offsets in the four modules.
Frame code_frame(uint32_t fn, uint32_t site) {
  uint32_t module = fn < 300 ? kApp : fn < 340 ? kMpi : fn < 370 ? kLibc : kGomp;
  return Frame{module, 0x401000ull + uint64_t(fn) * 0x400 + site * 7};
}

// A call path of the shared program, innermost first: leaf function, then callers to main.
std::vector<Frame> program_path(Rng& r, int depth) {
  std::vector<Frame> f;
  for (int d = 0; d < depth; ++d) {
    // Outer frames (main, solver driver) come from few functions, inner ones from many.
    uint32_t fanout = 4u + 40u * uint32_t(depth - d);
    f.push_back(code_frame(r.below(fanout < 380 ? fanout : 380), r.below(8)));
  }
  return f;
}

}  // namespace

hpcl::Profile make_process_profile(int rank, const SyntheticShape& shape) {
  hpcl::Profile p;
  p.kind = hpcl::FileKind::Process;
  p.set_meta("tool", "hpcrun-lite");
  p.set_meta("tool_version", "0.1.0");
  p.set_meta("host", "node" + std::to_string(rank / 32));
  p.set_meta("pid", std::to_string(10000 + rank));
  p.set_meta("rank", std::to_string(rank));
  p.set_meta("exe", "/nonexistent/bench/app");
  p.set_meta("cmdline", "/nonexistent/bench/app --input deck.in");
  p.set_meta("source", "soft");
  p.set_meta("rate", "1000");
  p.set_meta("min_bytes", "4096");
  p.set_meta("small_every", "64");
  p.set_meta("start_ns", "1700000000000000000");
  p.set_meta("end_ns", "1700000010000000000");

  // Load biases differ by rank, as under ASLR; frames are link-time offsets, so the same code
  // is the same frame in every rank and the merge must not look at the bias.
  Rng aslr{0xa51a0000ull + uint64_t(rank)};
  auto bias = [&](uint64_t base) { return base + (aslr.next() & 0xfffffff) * 0x1000; };
  p.modules = {{"/nonexistent/bench/app", "0123456789abcdef0123456789abcdef01234567", bias(0x550000000000)},
               {"/nonexistent/lib/libmpi.so.40", "1123456789abcdef0123456789abcdef01234567", bias(0x7f0000000000)},
               {"/nonexistent/lib/libc.so.6", "2123456789abcdef0123456789abcdef01234567", bias(0x7f1000000000)},
               {"/nonexistent/lib/libgomp.so.1", "3123456789abcdef0123456789abcdef01234567", bias(0x7f2000000000)}};

  // Sites and statics: the same program in every rank.
  Rng shared{0x5eed0001};
  for (int s = 0; s < shape.heap_sites; ++s) {
    hpcl::AllocSite site;
    site.api = s % 5 == 0 ? hpcl::AllocApi::New : hpcl::AllocApi::Malloc;
    site.flags = s % 7 == 0 ? hpcl::kSiteSampled : 0;
    site.frames = program_path(shared, 4 + shared.below(6));
    site.allocations = 1 + shared.below(1000);
    site.bytes = site.allocations * (4096 + shared.below(1 << 20));
    p.sites.push_back(std::move(site));
  }
  for (int s = 0; s < shape.statics; ++s)
    p.statics.push_back(hpcl::StaticVar{s % 4 == 3 ? kMpi : kApp, 0x600000ull + uint64_t(s) * 0x1000,
                                        uint64_t(64 + s * 512), 0, "static_var_" + std::to_string(s)});

  // A shared pool of access paths; each thread samples some of them, and some paths are the
  // rank's own (a rank-dependent branch, a different leaf).
  std::vector<std::vector<Frame>> pool;
  Rng pool_rng{0x5eed0002};
  for (int i = 0; i < 4 * shape.paths_per_thread; ++i) pool.push_back(program_path(pool_rng, 5 + pool_rng.below(8)));

  uint64_t total = 0;
  for (int t = 0; t < shape.threads; ++t) {
    hpcl::Tree tree;
    tree.tid = uint32_t(10000 + rank * 16 + t);
    hpcl::TreeBuilder b(tree);
    uint32_t roots[5];
    roots[0] = 0;
    for (uint32_t k = 1; k <= 4; ++k) roots[k] = b.child(0, NodeKind(k), 0, 0);
    Rng r{0x1234567ull + uint64_t(rank) * 7919 + uint64_t(t) * 104729};
    for (int i = 0; i < shape.paths_per_thread; ++i) {
      // Which code (a path of the pool), and the variable that code accesses: a property of the
      // program, the same in every rank (heap most often).
      const uint32_t k = r.below(uint32_t(pool.size()));
      Rng vr{0x9E3779B97F4A7C15ull ^ (uint64_t(k) * 0xC2B2AE3D27D4EB4Full)};
      uint32_t node;
      uint32_t v = vr.below(100);
      if (v < 60) node = b.child(roots[1], NodeKind::HeapVar, vr.below(uint32_t(shape.heap_sites)), 0);
      else if (v < 80) node = b.child(roots[2], NodeKind::StaticVarNode, vr.below(uint32_t(shape.statics)), 0);
      else if (v < 90) node = b.child(roots[3], NodeKind::UnknownClass, vr.below(2), 0);
      else node = roots[4];
      std::vector<Frame> path = pool[k];
      if (r.below(10) == 0) path[0].offset += 1 + uint64_t(rank % 64);  // this rank's own leaf
      for (size_t d = path.size(); d-- > 0;) node = b.child(node, NodeKind::Frame, path[d].module, path[d].offset);
      uint64_t samples = 1 + r.below(200);
      tree.nodes[node].add_metric(hpcl::kMetricSamples, samples);
      total += samples;
    }
    p.trees.push_back(std::move(tree));
  }
  p.set_meta("samples_total", std::to_string(total));
  p.set_meta("samples_dropped", "0");
  return p;
}

}  // namespace hpcl_bench
