// How hpcprof-lite-mpi spreads the files of a measurement directory over its ranks: each rank
// gets a share of about the same number of bytes (merge time follows file size, not file
// count: ranks of one job differ in threads and in tree size), and the files whose names carry
// one rank (a process, its forked children, an image replaced by exec) go to one share, so that
// the share can close that rank's balance before its partial travels (Accumulator::close_ranks).
// Rank 0 lists the directory and broadcasts the list; each rank reads the META and the size of
// a slice of it (read_run_facts: which run each file is of) and sends them to rank 0, which
// makes the plan and broadcasts it as one string, so every rank sees the same split. (Rank 0
// alone reading the META of 4,096 files took ~0.4 s of a 3.4 s merge on 2 ranks while the other
// rank waited: docs/PERFORMANCE.md, "Merge".)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runs.h"

namespace hpcl::analysis {

struct MergePlan {
  std::string error;                             // listing failed; every rank stops with it
  std::vector<std::vector<std::string>> shares;  // shares[rank]: the files that rank merges
  // Profiles of other runs, left out of the shares (runs.h); on the planning rank only (not
  // encoded), which reports them.
  std::vector<std::string> other_runs;
  std::string runs_message;
  size_t found() const;  // the files of the shares and the ones left out
};

// The rank a profile's file name carries, as the runtime names it
// (`<exe>.<host>.<rank>.<pid>[.exec-<start>].hpcl`); none for `norank` or another name. A hint
// only: the profile's META says which rank it is.
std::optional<int64_t> rank_in_file_name(std::string_view path);

// The files of one rank by their names (rank_in_file_name; a file without one is a group of
// its own) as groups, largest group first, each to the share with the fewest bytes so far (ties:
// the lower rank). The result does not depend on the order of `files`.
MergePlan balance_by_size(std::vector<std::pair<std::string, uint64_t>> files, int ranks);

// The plan from the facts of a directory's files (read_run_facts with sizes): the files of the
// latest run (runs.h), balanced; the others left out.
MergePlan plan_from_facts(const std::vector<RunFacts>& facts, int ranks);

// The plan of `dir` for `ranks` ranks: its "*.hpcl" files (as merge_directory lists them)
// with their sizes, balanced; or an error naming `dir`.
MergePlan plan_directory(const std::string& dir, int ranks);

// A list of paths, and the facts of a slice of it, as bytes and back (for the ranks' messages).
// The decoders return false on malformed bytes.
std::string encode_paths(const std::vector<std::string>& paths);
bool decode_paths(const std::string& bytes, std::vector<std::string>* paths);
std::string encode_facts(const std::vector<RunFacts>& facts);
bool decode_facts(const std::string& bytes, std::vector<RunFacts>* facts);

// The plan as bytes and back (for MPI_Bcast). decode_plan returns false on malformed bytes.
std::string encode_plan(const MergePlan& plan);
bool decode_plan(const std::string& bytes, int ranks, MergePlan* plan);

}  // namespace hpcl::analysis
