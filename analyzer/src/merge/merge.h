// Merging the process profiles of one measurement directory into a database: threads and ranks
// become one tree, modules/sites/statics are deduplicated across files, and damaged files are
// skipped with their reason. Work is split over threads by file; the result is put in a canonical
// order afterwards, so the database does not depend on the number of threads.
#pragma once

#include <string>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl::analysis {

class Accumulator;

struct MergeOptions {
  unsigned jobs = 1;       // worker threads for reading/merging and for symbolization
  bool symbolize = true;   // fill the SYMBOLS section with libdw
  std::string debug_dir;   // searched for separate debug files before /usr/lib/debug
  bool package_hints = true;  // name the Debian packages of modules without debug info (dpkg -S)
  bool per_rank = false;   // keep every node's metrics per rank (RANK_VALUES; merge --per-rank)
};

struct SkippedInput {
  std::string path;
  std::string reason;
};

struct RunChoice;

struct MergeOutcome {
  Profile database;                   // FileKind::Database, one tree, valid only if merged > 0
  size_t found = 0;                   // input files considered
  size_t merged = 0;                  // input files merged
  std::vector<SkippedInput> skipped;  // sorted by path
  std::vector<std::string> other_runs;  // left out: profiles of earlier runs (runs.h), sorted
  std::vector<std::string> warnings;  // symbolization warnings (missing modules, no debug info)
  std::string error;                  // why nothing could be merged; "" when merged > 0
};

// Merges the given process-profile files (order does not matter).
MergeOutcome merge_files(std::vector<std::string> paths, const MergeOptions& options);

// Merges every "*.hpcl" regular file directly in `dir`.
MergeOutcome merge_directory(const std::string& dir, const MergeOptions& options);

// The steps of merge_directory, for a merge whose files are spread over processes
// (hpcprof-lite-mpi): list, merge a share, finish the sum of the shares.
//
// The "*.hpcl" regular files directly in `dir`, as merge_directory names them (unsorted), or
// "" and an error naming `dir`.
std::string list_profiles(const std::string& dir, std::vector<std::string>* paths);
// Reads each file, adds it to `into` (or records why it was skipped) and drops it, on up to
// `jobs` threads.
void merge_into(Accumulator& into, std::vector<std::string> paths, unsigned jobs);
// The outcome of `found` files (in `dir`, "" when not a directory's) merged into `merged`:
// the database in canonical order, symbolized as `options` say. `merged` is left empty.
MergeOutcome finish_merge(Accumulator& merged, size_t found, const std::string& dir,
                          const MergeOptions& options);
// Records in `out` (its database's META runs_left_out and its warnings) the profiles of other
// runs that choose_latest_run left out of the merge.
void note_other_runs(MergeOutcome& out, const RunChoice& runs);

}  // namespace hpcl::analysis
