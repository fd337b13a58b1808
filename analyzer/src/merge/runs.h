// Which run each profile of a measurement directory belongs to. Two MPI jobs measured into one
// directory (a job resubmitted with the same -o) would otherwise merge as one run of twice the
// processes, with no warning. Merge keeps the latest run and says which profiles it left out.
//
// A profile's run is its META run_id (hpcrun-lite/common/run_id.h: the launcher's, equal on
// every rank of one job). Profiles without one (LD_PRELOAD by hand under a launcher that gives
// the ranks no job id, or an older runtime) are told apart by their processes' lifetimes: two
// profiles of one MPI rank with different pids, the later started after the earlier ended, are
// two runs (a forked child starts while its parent lives; an exec keeps the pid). Beside profiles
// with run ids, one without is merged whatever its run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hpcl::analysis {

// The database's META key that repeats the merge's words about the runs it left out.
inline constexpr const char* kMetaRunsLeftOut = "runs_left_out";

// What a profile says about its run (META), as read_profile_meta gives it.
struct RunFacts {
  std::string path;
  bool readable = false;   // the META could be read; an unreadable file is left to the merge
  std::string run_id;      // "" when the profile has none
  long long rank = -1;
  long long pid = 0;
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t bytes = 0;      // the file's size, when asked for (0 when it cannot be stat'ed)
};

struct RunChoice {
  std::vector<std::string> kept;     // to merge
  std::vector<std::string> dropped;  // of other runs, sorted
  // "DIR holds profiles of 2 runs: ...; merged the latest ...", "" when there was one run.
  std::string message;
  std::string dropped_reason;        // why each dropped file was left out, for the skip list
};

// The profiles of the latest run (the run whose latest process started last). Pure: the facts
// are given, so that a test can describe any directory.
RunChoice choose_latest_run(const std::vector<RunFacts>& facts);

// The facts of every path: its META (read_profile_meta) and, with `sizes`, its size; on up to
// `jobs` threads.
std::vector<RunFacts> read_run_facts(const std::vector<std::string>& paths, unsigned jobs, bool sizes);

// Reads the META of every path (read_run_facts) and chooses.
RunChoice choose_latest_run(const std::vector<std::string>& paths, unsigned jobs);

}  // namespace hpcl::analysis
