// See merge_cli.h.
#include "merge_cli.h"

#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "hpcl/io.h"
#include "hpcl/text/words.h"

namespace hpcl::analysis {

void add_merge_options(CLI::App& app, MergeCommand* command, std::string* jobs) {
  app.add_option("DIR", command->dir, "the measurement directory (hpcrun-lite -o DIR)");
  app.add_option("-o,--output", command->output, "the database to write")->type_name("DB");
  app.add_option("-j,--jobs", *jobs, "worker threads (default: the CPUs this process may run on)")->type_name("N");
  app.add_option("--debug-dir", command->options.debug_dir,
                 "also look for separate debug files in DIR/.build-id/xx/yyyy.debug (and "
                 "DIR/<module path>), before /usr/lib/debug")
      ->type_name("DIR");
  app.add_flag("--strict", command->strict,
               "any damaged profile is fatal (status 1, no database)");
  app.add_flag("--per-rank", command->options.per_rank,
               "also keep each access path's samples per rank, for the hatchet export of report "
               "(a larger database: a value per path and rank)");
}

std::string extras_error(const CLI::App& command, const std::string& name, const std::string& what) {
  const std::string prefix = name.empty() ? "" : name + ": ";
  for (const std::string& a : command.remaining()) {
    if (a == "--") continue;
    if (a.starts_with("-") && a != "-") return prefix + "unknown option " + a;
    return prefix + what + ", got a further argument: " + a;
  }
  return "";
}

unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return static_cast<unsigned>(CPU_COUNT(&set));
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<unsigned>(online) : 1;
}

std::string finish_merge_args(const std::string& jobs, unsigned default_jobs, MergeCommand* command) {
  if (command->dir.empty()) return "merge: which directory? (merge DIR -o DB)";
  if (command->output.empty()) return "merge: no output database (-o DB)";
  command->options.jobs = default_jobs > 0 ? default_jobs : 1;
  if (!jobs.empty()) {
    auto j = parse_count(jobs);
    if (!j || *j == 0 || *j > 1024) return "-j wants a number of threads, not " + jobs;
    command->options.jobs = static_cast<unsigned>(*j);
  }
  return "";
}

int write_merge_outcome(const MergeOutcome& out, const std::string& output,
                        const std::string& program, bool strict) {
  for (const SkippedInput& s : out.skipped)
    std::cerr << program << ": " << (strict ? "damaged input " : "skipping ") << s.path << ": "
              << s.reason << "\n";
  if (!out.error.empty()) {
    std::cerr << program << ": " << out.error << "\n";
    return 1;
  }
  if (strict && !out.skipped.empty()) {
    std::cerr << program << ": --strict: " << out.skipped.size() << " of " << count_of(out.found, "profile")
              << " " << is_are(out.skipped.size()) << " damaged; no database written\n";
    return 1;
  }
  for (const std::string& w : out.warnings) std::cerr << program << ": " << w << "\n";
  std::string write_error;
  if (!hpcl::write_profile_file(out.database, output, &write_error)) {
    std::cerr << program << ": " << write_error << "\n";
    return 1;
  }
  const std::string* threads = out.database.find_meta("threads");
  uint64_t nthreads = threads ? std::strtoull(threads->c_str(), nullptr, 10) : 0;
  std::cout << "merged " << out.merged << " of " << count_of(out.found, "profile") << " ("
            << count_of(nthreads, "thread") << ") into " << output;
  if (!out.skipped.empty()) std::cout << "; skipped " << out.skipped.size() << " damaged";
  if (!out.other_runs.empty())
    std::cout << "; left out " << out.other_runs.size() << " of other runs";
  std::cout << "\n";
  return 0;
}

}  // namespace hpcl::analysis
