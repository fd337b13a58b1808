// The merge command line shared by `hpcprof-lite merge` and hpcprof-lite-mpi: the same options,
// the same messages about skipped files, the same summary line and exit status.
#pragma once

#include <string>

#include "cli_args.h"
#include "merge.h"

namespace CLI {
class App;
}

namespace hpcl::analysis {

struct MergeCommand {
  std::string dir;
  std::string output;
  MergeOptions options;
  bool strict = false;  // --strict: any damaged input fails the merge
};

// Adds "DIR -o DB [-j N] [--debug-dir DIR] [--strict]" to a CLI11 command; -j's text goes to
// `jobs`, checked by finish_merge_args once the command line is parsed.
void add_merge_options(CLI::App& app, MergeCommand* command, std::string* jobs);
// CLI11 keeps what no option or positional took (allow_extras): the first unknown option or
// positional too many of `command` as a usage error, "NAME: unknown option --x" or "NAME: WHAT,
// got a further argument: x" (no "NAME: " when `name` is empty); "" when there is none.
std::string extras_error(const CLI::App& command, const std::string& name, const std::string& what);
// The CPUs this process may run on (its affinity mask, which a launcher or taskset may have
// narrowed), at least 1: the default number of merge threads.
unsigned usable_cpus();
// Checks what add_merge_options stored (a directory, an output, -j in 1..1024) and sets the
// jobs (`default_jobs` without -j). Returns "" or a usage error.
std::string finish_merge_args(const std::string& jobs, unsigned default_jobs, MergeCommand* command);

// Prints the skipped files and the outcome's error or warnings on stderr (each line starting
// with "PROGRAM: "), writes the database and prints the summary line on stdout (with how many
// inputs were skipped). Returns the exit status: 0 when the database was written, else 1. With
// `strict`, one skipped input is enough to fail, and no database is written.
int write_merge_outcome(const MergeOutcome& out, const std::string& output,
                        const std::string& program, bool strict = false);

}  // namespace hpcl::analysis
