// hpcprof-lite-mpi's reduction for a run of RANKS processes merged on NODES merging ranks, played
// in one process with the real code (docs/PERFORMANCE.md, "Merge at 65,536 ranks"): each
// merging rank's share of synthetic profiles (synthetic_profile.h, as bench/gen_profiles writes
// them) is merged into an Accumulator and encoded as the rank would send it; then the binary
// tree of hpcprof-lite-mpi (in round k, rank r with r mod 2k = k sends to r - k) is run step
// by step: the receiver's partial, the sender's bytes read by the scanner and added, the sum
// encoded for the next round. What the simulation cannot measure, it does not invent: it prints
// per round the partial's size (merged tree nodes, encoded bytes, open per-rank values of the
// balance), the CPU time of one receive-and-add and of one encode, and the heap the receiver
// holds (times are CPU times of the thread); the network and file system times are left to the
// reader's numbers (docs).
// Usage: merge_sim RANKS NODES [threads] [paths-per-thread] [--open]
//   e.g. merge_sim 65536 64: 1,024 profiles per merging rank, 6 rounds. --open keeps every
//   rank's balance open up the tree, as hpcprof-lite-mpi did before it closed complete ranks.
#include <malloc.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hpcl/io.h"
#include "hpcl/scan.h"
#include "merge/accumulator.h"
#include "synthetic_profile.h"

namespace {

using hpcl::analysis::Accumulator;

// CPU time of this thread: on a shared machine the wall time measures the neighbours too.
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Bytes malloc has handed out and not taken back.
size_t heap_in_use() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// Entries of the partial's META that carry per-rank values: one per rank, with one
// "owner index value" triple per variable the rank touched.
size_t open_rank_values(const hpcl::Profile& partial) {
  size_t triples = 0;
  for (const auto& [key, value] : partial.meta) {
    if (key != "partial.balance.rank") continue;
    size_t words = 1;
    for (char c : value) words += c == ' ';
    triples += (words - 1) / 3;
  }
  return triples;
}

}  // namespace

int main(int argc, char** argv) {
  bool close = true;
  if (argc > 1 && std::string(argv[argc - 1]) == "--open") {
    close = false;
    --argc;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: merge_sim RANKS NODES [threads] [paths-per-thread] [--open]\n");
    return 2;
  }
  const int ranks = std::atoi(argv[1]), nodes = std::atoi(argv[2]);
  hpcl_bench::SyntheticShape shape;
  if (argc > 3) shape.threads = std::atoi(argv[3]);
  if (argc > 4) shape.paths_per_thread = std::atoi(argv[4]);
  if (ranks < 1 || nodes < 1 || ranks % nodes != 0) {
    std::fprintf(stderr, "merge_sim: RANKS must be a multiple of NODES\n");
    return 2;
  }
  const int per_node = ranks / nodes;

  // Each merging rank's share, as merge_into reads it: encoded files read by the scanner.
  std::vector<std::vector<uint8_t>> sent(static_cast<size_t>(nodes));
  hpcl::ProfileScanner scanner;
  hpcl::ScannedProfile scanned;
  double add_seconds = 0;
  size_t leaf_heap = 0, leaf_nodes = 0;
  for (int k = 0; k < nodes; ++k) {
    const size_t before = heap_in_use();
    Accumulator acc;
    for (int r = k * per_node; r < (k + 1) * per_node; ++r) {
      const std::vector<uint8_t> file = hpcl::encode_profile(hpcl_bench::make_process_profile(r, shape));
      if (!scanner.read_bytes(file.data(), file.size(), "profile", scanned).empty()) return 1;
      const double t = cpu_now();
      // Named as the runtime names it, so that the share may close the rank (merge_plan.h).
      const std::string name = "app.node" + std::to_string(k) + "." + std::to_string(r) + "." +
                               std::to_string(10000 + r) + ".hpcl";
      if (!acc.add_process(scanned, name).empty()) return 1;
      add_seconds += (cpu_now() - t);
    }
    if (close) acc.close_ranks({});  // what hpcprof-lite-mpi does before the reduction
    leaf_heap = std::max(leaf_heap, heap_in_use() - before);
    hpcl::Profile partial = acc.to_partial();
    leaf_nodes = partial.trees[0].nodes.size();
    sent[static_cast<size_t>(k)] = hpcl::encode_profile(partial, 1);
    std::fprintf(stderr, "\rmerging rank %d of %d", k + 1, nodes);
  }
  std::fprintf(stderr, "\n");
  std::printf("%d profiles (%d threads x %d paths each) on %d merging ranks, %d each; ranks %s\n",
              ranks, shape.threads, shape.paths_per_thread, nodes, per_node,
              close ? "closed before the reduction" : "left open");
  std::printf("adding a profile (read excluded): %.3f ms of CPU; a merging rank's accumulator: "
              "%zu tree nodes, %.1f MiB of heap\n\n",
              1000 * add_seconds / ranks, leaf_nodes, double(leaf_heap) / (1 << 20));

  std::printf("| round | profiles per partial | partial tree nodes | partial bytes (zstd 1) | "
              "open per-rank values | receive + add s | encode s | receiver heap MiB |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (int step = 1, round = 1; step < nodes; step *= 2, ++round) {
    // Every pair of a round does the same work on partials of the same shape: the first pair
    // stands for the round.
    size_t bytes = 0, tree_nodes = 0, values = 0, heap = 0;
    double receive = 0, encode = 0;
    for (int r = 0; r + step < nodes; r += 2 * step) {
      const size_t before = heap_in_use();
      Accumulator into;
      if (!scanner.read_bytes(sent[r].data(), sent[r].size(), "mine", scanned).empty() ||
          !into.add_partial(scanned).empty())
        return 1;
      std::vector<uint8_t> theirs = std::move(sent[static_cast<size_t>(r + step)]);
      double t = cpu_now();
      if (!scanner.read_bytes(theirs.data(), theirs.size(), "theirs", scanned).empty() ||
          !into.add_partial(scanned).empty())
        return 1;
      const double rx = (cpu_now() - t);
      const size_t held = heap_in_use() - before;
      theirs = {};
      t = cpu_now();
      hpcl::Profile partial = into.to_partial();
      sent[static_cast<size_t>(r)] = hpcl::encode_profile(partial, 1);
      const double tx = (cpu_now() - t);
      if (r == 0) {
        receive = rx;
        encode = tx;
        heap = held;
        bytes = sent[0].size();
        tree_nodes = partial.trees[0].nodes.size();
        values = open_rank_values(partial);
      }
    }
    std::printf("| %d | %d | %zu | %zu | %zu | %.3f | %.3f | %.1f |\n", round, per_node * 2 * step,
                tree_nodes, bytes, values, receive, encode, double(heap) / (1 << 20));
  }

  // Rank 0 finishes: canonical order and the database's bytes (symbolization depends on the
  // binaries, not on the ranks, and is left out: the synthetic modules do not exist).
  Accumulator root;
  if (!scanner.read_bytes(sent[0].data(), sent[0].size(), "root", scanned).empty() ||
      !root.add_partial(scanned).empty())
    return 1;
  double t = cpu_now();
  hpcl::Profile db = root.finish();
  const double finish = (cpu_now() - t);
  t = cpu_now();
  const std::vector<uint8_t> bytes = hpcl::encode_profile(db);
  std::printf("\nrank 0: finish (canonical order, balance) %.3f s, database encoded %.3f s: %zu tree "
              "nodes, %zu bytes, %zu balance entries over %llu ranks\n",
              finish, (cpu_now() - t), db.trees[0].nodes.size(), bytes.size(), db.balance.variables.size(),
              static_cast<unsigned long long>(db.balance.rank_groups));
  return 0;
}
