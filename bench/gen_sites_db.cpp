// Writes a database shaped like CP2K's (issue 23) for the report benchmark (bench/report_sites.sh):
// hundreds of thousands of allocation sites that took no sample, about a hundred thousand
// sampled small sites (kSiteSampled) of which a few took samples, a thousand sampled variables,
// a stripped program (frames known by module and offset only, as Debian's cp2k.psmp) called
// through an MPI library. The report of such a database must cost what it prints, not every site.
// usage: gen_sites_db OUT.hpcdb [QUIET_SITES=290000] [SMALL_SITES=91000] [SAMPLED_SITES=1200]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "hpcl/io.h"
#include "hpcl/profile.h"
#include "hpcl/tree.h"

namespace {

using namespace hpcl;

// root -> HeapRoot -> site -> frames: `samples` at the leaf.
void add_heap_samples(Tree& tree, uint32_t site, const std::vector<Frame>& frames, uint64_t samples) {
  TreeBuilder b(tree);
  uint32_t n = b.child(0, NodeKind::HeapRoot, 0, 0);
  n = b.child(n, NodeKind::HeapVar, site, 0);
  for (const Frame& f : frames) n = b.child(n, NodeKind::Frame, f.module, f.offset);
  tree.nodes[n].add_metric(kMetricSamples, samples);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gen_sites_db OUT.hpcdb [QUIET_SITES] [SMALL_SITES] [SAMPLED_SITES]\n");
    return 2;
  }
  const size_t quiet = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 290000;
  const size_t small = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 91000;
  const size_t sampled = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1200;
  enum : uint32_t { App = 0, Libc = 1, Mpi = 2 };
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.set_meta("processes", "2");
  db.set_meta("ranks", "2");
  db.set_meta("threads", "2");
  db.set_meta("min_bytes", "4096");
  db.set_meta("small_every", "auto");
  db.modules = {{"/opt/synthetic/cp2k.psmp", "", 0},
                {"/lib/x86_64-linux-gnu/libc.so.6", "", 0},
                {"/usr/lib/x86_64-linux-gnu/libmpi.so.40", "", 0}};
  db.symbols.push_back(Symbolized{Frame{Libc, 0x10}, {{"malloc", "", 0}}});
  // A stripped program: call sites in 4,000 functions, paths 12 to 28 frames deep that walk down
  // one call tree (each frame has 6 callees), so that sites share their outer frames as a real
  // program's do; one site in 10 allocates inside MPI (its group row).
  std::mt19937_64 rng(23);
  auto frame_of = [](uint64_t key) {
    key *= 0x9e3779b97f4a7c15ull;
    return Frame{App, 0x400000 + ((key >> 20) % 4000) * 0x1000 + ((key >> 40) % 20) * 0x10};
  };
  auto app_frame = [&] { return frame_of(rng()); };
  auto path = [&](bool mpi) {
    const size_t depth = 12 + rng() % 17;
    std::vector<Frame> outward(depth);
    uint64_t key = 1;
    for (size_t d = 0; d < depth; ++d) {
      key = key * 7 + 1 + rng() % 6;
      outward[d] = frame_of(key);
    }
    std::vector<Frame> frames{{Libc, 0x10}};
    if (mpi) frames.push_back(Frame{Mpi, 0x9000 + (rng() % 50) * 0x10});
    frames.insert(frames.end(), outward.rbegin(), outward.rend());
    return frames;
  };
  const size_t total = quiet + small + sampled;
  for (size_t s = 0; s < total; ++s) {
    AllocSite site;
    site.api = AllocApi::Malloc;
    site.frames = path(s % 10 == 0);
    site.allocations = 1 + rng() % 100;
    site.bytes = s < quiet ? 4096 + rng() % (1 << 20) : 64 + rng() % 4000;
    if (s >= quiet && s < quiet + small) site.flags = kSiteSampled;
    db.sites.push_back(std::move(site));
  }
  Tree tree;
  { TreeBuilder b(tree); }
  // The sampled variables: the last `sampled` sites and one small site in 500, 1 to 2,000
  // samples over 1 to 8 access leaves.
  for (size_t s = quiet; s < total; ++s) {
    if (s < quiet + small && (s - quiet) % 500 != 0) continue;
    const size_t leaves = 1 + rng() % 8;
    for (size_t k = 0; k < leaves; ++k)
      add_heap_samples(tree, static_cast<uint32_t>(s), {app_frame(), app_frame()}, 1 + rng() % 250);
  }
  db.trees.push_back(std::move(tree));
  std::string error;
  if (!write_profile_file(db, argv[1], &error)) {
    std::fprintf(stderr, "gen_sites_db: %s\n", error.c_str());
    return 1;
  }
  std::printf("%s: %zu sites (%zu without samples, %zu sampled small)\n", argv[1], db.sites.size(), quiet, small);
  return 0;
}
