// See merge_cli.h.
#include "merge_cli.h"

#include <iostream>

#include "hpcl/io.h"

namespace hpcl::analysis {

std::string parse_merge_args(Args& args, unsigned default_jobs, MergeCommand* command) {
  std::string jobs_text, error;
  while (!args.done()) {
    std::string a = args.next();
    if (args.option(a, {"-o", "--output"}, &command->output, &error) ||
        args.option(a, {"-j", "--jobs"}, &jobs_text, &error) ||
        args.option(a, {"--debug-dir"}, &command->options.debug_dir, &error)) {
      if (!error.empty()) return error;
    } else if (a == "--strict") {
      command->strict = true;
    } else if (a.starts_with("-") && a != "-") {
      return "merge: unknown option " + a;
    } else if (command->dir.empty()) {
      command->dir = a;
    } else {
      return "merge: one directory expected, got " + command->dir + " and " + a;
    }
  }
  if (command->dir.empty()) return "merge: which directory? (merge DIR -o DB)";
  if (command->output.empty()) return "merge: no output database (-o DB)";
  command->options.jobs = default_jobs > 0 ? default_jobs : 1;
  if (!jobs_text.empty()) {
    auto j = parse_count(jobs_text);
    if (!j || *j == 0 || *j > 1024) return "-j wants a number of threads, not " + jobs_text;
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
    std::cerr << program << ": --strict: " << out.skipped.size() << " of " << out.found
              << " profiles are damaged; no database written\n";
    return 1;
  }
  for (const std::string& w : out.warnings) std::cerr << program << ": " << w << "\n";
  std::string write_error;
  if (!hpcl::write_profile_file(out.database, output, &write_error)) {
    std::cerr << program << ": " << write_error << "\n";
    return 1;
  }
  const std::string* threads = out.database.find_meta("threads");
  std::cout << "merged " << out.merged << " of " << out.found << " profiles ("
            << (threads ? *threads : "0") << " threads) into " << output;
  if (!out.skipped.empty()) std::cout << "; skipped " << out.skipped.size() << " damaged";
  std::cout << "\n";
  return 0;
}

}  // namespace hpcl::analysis
