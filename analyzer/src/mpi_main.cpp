// hpcprof-lite-mpi: `hpcprof-lite merge` spread over the ranks of an MPI job, for measurement
// directories of thousands of process profiles. Rank 0 lists the directory, every rank reads
// which run a slice of its files is of, and rank 0 splits the files of the latest run by size,
// the files of one rank together (merge_plan.h); each rank merges its share on threads
// (merge_into) and closes the balance of the ranks it holds whole; the partial merges are summed
// along a binary tree to rank 0 (log2 K rounds), travelling as encoded partial profiles
// (Accumulator::to_partial); rank 0 finishes, symbolizes and writes the database, which is byte
// for byte the one `hpcprof-lite merge` writes.
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "hpcl/text/help_format.h"
#include "hpcl_build_info.h"
#include "merge/accumulator.h"
#include "hpcl/io.h"
#include "hpcl/scan.h"
#include "merge/merge_cli.h"
#include "merge/merge_plan.h"
#include "merge/merge.h"
#include "merge/runs.h"
#include "merge/mpi_transport.h"

namespace {

using namespace hpcl::analysis;

constexpr int kExitUsage = 2;
const char kProgram[] = "hpcprof-lite-mpi";

const char kDescription[] =
    "Merges every *.hpcl process profile in DIR into the database DB, as `hpcprof-lite merge`\n"
    "does, with the files spread over K MPI ranks (balanced by size) and the partial merges\n"
    "summed along a binary tree to rank 0, which symbolizes and writes DB. The database is the\n"
    "one `hpcprof-lite merge` writes. Run as: mpirun -np K hpcprof-lite-mpi DIR -o DB.\n"
    "-j N: threads per rank (default: the CPUs the rank may run on, at most the node's online\n"
    "CPUs divided by the ranks on the node).";

// The node's online CPUs shared by its ranks, and no more than the launcher let this rank use:
// Open MPI binds each of up to 2 ranks to one core, where a second thread would only take turns
// with the first.
unsigned default_jobs() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 1;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  long share = cpus > 0 ? cpus / std::max(on_node, 1) : 1;
  return static_cast<unsigned>(std::clamp<long>(share, 1, usable_cpus()));
}

// -j N above what some rank may run on: its threads take turns (measured on 2 vCPUs, 4,096
// profiles: 1 rank bound to a core with 2 threads took longer than with 1). Said once.
void warn_if_bound(unsigned jobs, int rank) {
  int cpus = static_cast<int>(usable_cpus()), fewest = 0;
  MPI_Allreduce(&cpus, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0 && jobs > static_cast<unsigned>(fewest))
    std::cerr << kProgram << ": " << jobs << " threads per rank, but a rank may run on " << fewest
              << " CPU" << (fewest == 1 ? "" : "s")
              << " only (the launcher bound it): its threads take turns. With Open MPI: mpirun "
                 "--bind-to none, or --map-by slot:PE="
              << jobs << "\n";
}

[[noreturn]] void fail_all(const std::string& message) {
  std::cerr << kProgram << ": " << message << std::endl;
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return
}

// Closes the per-rank balance of every rank whose profiles all sit in this partial, so that the
// partials travel without a value per rank and variable (at 65,536 ranks that state outweighed
// the tree 16 to 1: docs/PERFORMANCE.md, "Merge"). The plan gave all files named after one rank
// to one share; a profile whose name does not say its rank could belong anywhere, so its rank
// stays open in every share. Each share's list of those goes to every rank first.
void close_complete_ranks(Accumulator& acc) {
  std::vector<int64_t> mine = acc.ranks_not_named();
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size)), offsets(static_cast<size_t>(size), 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<int64_t> all(static_cast<size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(), offsets.data(), MPI_INT64_T,
                 MPI_COMM_WORLD);
  acc.close_ranks(std::set<int64_t>(all.begin(), all.end()));
}

// The plan, made on rank 0 from the facts every rank read of a slice of the directory's files
// (merge_plan.h); `local` gets rank 0's whole plan, with the files of other runs it left out.
MergePlan plan_on_all_ranks(const MergeCommand& command, int rank, int size, MergePlan* local) {
  std::string bytes;  // the listing: "E" + error, or "P" + the paths
  std::vector<std::string> paths;
  if (rank == 0) {
    std::string error = list_profiles(command.dir, &paths);
    bytes = error.empty() ? "P" + encode_paths(paths) : "E" + error;
  }
  mpi::bcast_bytes(bytes, 0, MPI_COMM_WORLD);
  MergePlan plan;
  if (bytes.starts_with("E")) {
    plan.error = bytes.substr(1);
    return plan;
  }
  if (rank != 0 && !decode_paths(bytes.substr(1), &paths)) fail_all("malformed file list from rank 0");
  const size_t n = paths.size(), lo = n * size_t(rank) / size_t(size), hi = n * size_t(rank + 1) / size_t(size);
  std::vector<RunFacts> facts = read_run_facts(
      std::vector<std::string>(paths.begin() + static_cast<ptrdiff_t>(lo), paths.begin() + static_cast<ptrdiff_t>(hi)),
      command.options.jobs, true);
  std::string mine = encode_facts(facts);
  if (rank != 0) {
    mpi::send_bytes(std::vector<uint8_t>(mine.begin(), mine.end()), 0, MPI_COMM_WORLD);
  } else {
    for (int from = 1; from < size; ++from) {
      std::vector<uint8_t> got = mpi::recv_bytes(from, MPI_COMM_WORLD);
      std::vector<RunFacts> theirs;
      if (!decode_facts(std::string(got.begin(), got.end()), &theirs))
        fail_all("malformed file facts from rank " + std::to_string(from));
      for (RunFacts& f : theirs) facts.push_back(std::move(f));
    }
    *local = plan_from_facts(facts, size);
    bytes = encode_plan(*local);
  }
  mpi::bcast_bytes(bytes, 0, MPI_COMM_WORLD);
  if (!decode_plan(bytes, size, &plan)) fail_all("malformed file list from rank 0");
  return plan;
}

// Sums the partial merges of all ranks into rank 0's: in round k (k = 1, 2, 4, ...) each rank
// r with r % 2k == k sends to r - k and is done; r % 2k == 0 receives from r + k.
void reduce_to_root(Accumulator& acc, int rank, int size) {
  for (int step = 1; step < size; step *= 2) {
    if (rank % (2 * step) == step) {
      std::vector<uint8_t> bytes;
      {
        hpcl::Profile partial = acc.to_partial();
        // Light compression: the partials cross shared memory or a fast network.
        bytes = hpcl::encode_profile(partial, 1);
      }
      mpi::send_bytes(bytes, rank - step, MPI_COMM_WORLD);
      return;
    }
    if (rank + step < size) {
      int from = rank + step;
      std::string name = "partial merge of rank " + std::to_string(from);
      // Read as a merge worker reads a file: checked once, its tree as columns.
      hpcl::ProfileScanner scanner;
      hpcl::ScannedProfile partial;
      {
        std::vector<uint8_t> bytes = mpi::recv_bytes(from, MPI_COMM_WORLD);
        if (std::string error = scanner.read_bytes(bytes.data(), bytes.size(), name, partial); !error.empty())
          fail_all(error);
      }
      if (std::string error = acc.add_partial(partial); !error.empty()) fail_all(name + ": " + error);
    }
  }
}

int run(int argc, char** argv, int rank, int size) {
  // The options of `hpcprof-lite merge` (merge_cli.h), parsed the same way on every rank; only
  // rank 0 prints.
  CLI::App app{kDescription, kProgram};
  app.formatter(std::make_shared<WrappedHelp>());
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  MergeCommand command;
  std::string jobs;
  add_merge_options(app, &command, &jobs);
  app.allow_extras();
  app.set_version_flag("--version", std::string(kProgram) + " " HPCL_VERSION_TEXT);
  std::string error;
  try {
    app.parse(argc, argv);
    error = extras_error(app, "", "one directory expected");
    if (error.empty()) error = finish_merge_args(jobs, default_jobs(), &command);
  } catch (const CLI::CallForHelp&) {
    if (rank == 0) std::cout << app.help();
    return 0;
  } catch (const CLI::CallForVersion& e) {
    if (rank == 0) std::cout << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    error = e.what();
  }
  if (!error.empty()) {
    if (rank == 0)
      std::cerr << kProgram << ": " << error << "\nRun `" << kProgram << " --help` for the options.\n";
    return kExitUsage;
  }

  MergePlan local;  // rank 0's, with the profiles of other runs it left out
  MergePlan plan = plan_on_all_ranks(command, rank, size, &local);
  if (!plan.error.empty()) {
    if (rank == 0) std::cerr << kProgram << ": " << plan.error << "\n";
    return 1;
  }

  if (!jobs.empty()) warn_if_bound(command.options.jobs, rank);  // the default fits each rank
  const size_t found = plan.found() + local.other_runs.size();
  Accumulator acc;
  acc.keep_rank_values(command.options.per_rank);
  merge_into(acc, std::move(plan.shares[static_cast<size_t>(rank)]), command.options.jobs);
  close_complete_ranks(acc);
  reduce_to_root(acc, rank, size);
  if (rank != 0) return 0;
  MergeOutcome out = finish_merge(acc, found, command.dir, command.options);
  note_other_runs(out, RunChoice{{}, local.other_runs, local.runs_message, {}});
  return write_merge_outcome(out, command.output, kProgram, command.strict);
}

}  // namespace

int main(int argc, char** argv) {
  // Only the main thread calls MPI; the merge threads never do.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = run(argc, argv, rank, size);
  MPI_Finalize();
  return status;
}
