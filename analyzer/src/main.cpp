// hpcprof-lite: the command line of the offline analyzer. `merge` turns a measurement directory
// into a database; `report` prints a database as text, JSON or CSV; `diff` compares two. All the work is in the
// hpcl_analysis library; this file only parses arguments and reports errors.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

#include <cstdio>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "database.h"
#include "diff_formatters.h"
#include "formatters.h"
#include "hpcl/io.h"
#include "merge_cli.h"
#include "report_model.h"

namespace {

using namespace hpcl::analysis;

constexpr int kExitUsage = 2;

const char kUsage[] =
    "usage: hpcprof-lite merge DIR -o DB [-j N] [--debug-dir DIR] [--strict]\n"
    "       hpcprof-lite report DB [--format text|json|csv] [--view data|code] [--top N]\n"
    "                              [--sort samples|imbalance|thread-imbalance]\n"
    "                              [--all] [--no-group] [--wide | --width N]\n"
    "                              [--alloc-wrapper REGEX]...\n"
    "\n"
    "merge   reads every *.hpcl process profile in DIR, merges all threads and ranks into one\n"
    "        database, symbolizes it with the module files (and their debug info), writes DB.\n"
    "        -j N: worker threads (default: online CPUs). Damaged profiles are skipped, each\n"
    "        named on stderr, and counted in the summary; --strict makes any damaged profile\n"
    "        fatal (status 1, no database).\n"
    "        --debug-dir DIR: also look for separate debug files in DIR/.build-id/xx/yyyy.debug\n"
    "        (and DIR/<module path>), before /usr/lib/debug.\n"
    "report  prints the variables of DB by samples (--view data, default) or the source\n"
    "        locations of the sampled instructions (--view code). --top N rows (text: default\n"
    "        20; json, csv: all; 0 = all). --format text (default), json (schema:\n"
    "        docs/REPORT.md) or csv. --all: the text table also lists variables without\n"
    "        samples. --no-group: list the variables of MPI, OpenMP and C/C++ runtime\n"
    "        libraries one by one instead of one row per family. --sort imbalance: variables\n"
    "        with at least 1% of the samples by max/mean over the ranks first (thread-imbalance:\n"
    "        over the threads), then the others by samples. The text table fits the\n"
    "        terminal (else $COLUMNS, else 120 columns); --width N sets it, --wide drops it.\n"
    "        --alloc-wrapper REGEX (repeatable): functions whose demangled name matches are\n"
    "        the program's allocation wrappers, so heap variables are named after their\n"
    "        callers; wrappers with allocating names are also recognised automatically.\n"
    "diff    compares two databases variable by variable (heap by allocation path, static by\n"
    "        module and symbol): samples before and after on one sampling rate, the change,\n"
    "        the ratio, whether it is more than noise, and the access paths that changed.\n"
    "        Sorted by absolute change; --top N variables (text: default 20; json, csv:\n"
    "        all). --per-process compares per-process means (runs with different process\n"
    "        counts). JSON schema: docs/REPORT.md.\n";

int usage_error(const std::string& message) {
  std::cerr << "hpcprof-lite: " << message << "\n" << kUsage;
  return kExitUsage;
}

int run_merge(Args& args) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  MergeCommand command;
  if (std::string error = parse_merge_args(args, cpus > 0 ? static_cast<unsigned>(cpus) : 1, &command);
      !error.empty())
    return usage_error(error);
  MergeOutcome out = merge_directory(command.dir, command.options);
  return write_merge_outcome(out, command.output, "hpcprof-lite", command.strict);
}

// The text table's width: the terminal's when standard output is one, else $COLUMNS, else 120.
size_t terminal_width() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    auto n = parse_count(c);
    if (n && *n >= 20 && *n <= 10000) return *n;
  }
  return 120;
}

int run_report(Args& args) {
  std::string db_path, format = "text", view = "data", top_text, width_text, wrapper, error;
  std::string sort = "samples";
  bool all = false, no_group = false, wide = false;
  ReportModelOptions model_options;
  while (!args.done()) {
    std::string a = args.next();
    if (args.option(a, {"--alloc-wrapper"}, &wrapper, &error)) {
      if (!error.empty()) return usage_error(error);
      try {
        model_options.alloc_wrappers.emplace_back(wrapper);
      } catch (const std::regex_error& e) {
        return usage_error("--alloc-wrapper: not a regular expression: " + wrapper + " (" +
                           e.what() + ")");
      }
    } else if (args.option(a, {"--format", "-f"}, &format, &error) ||
        args.option(a, {"--view"}, &view, &error) ||
        args.option(a, {"--top", "-n"}, &top_text, &error) ||
        args.option(a, {"--width"}, &width_text, &error) ||
        args.option(a, {"--sort"}, &sort, &error)) {
      if (!error.empty()) return usage_error(error);
    } else if (a == "--all") {
      all = true;
    } else if (a == "--no-group") {
      no_group = true;
    } else if (a == "--wide") {
      wide = true;
    } else if (a.starts_with("-") && a != "-") {
      return usage_error("report: unknown option " + a);
    } else if (db_path.empty()) {
      db_path = a;
    } else {
      return usage_error("report: one database expected, got " + db_path + " and " + a);
    }
  }
  if (db_path.empty()) return usage_error("report: which database? (report DB)");
  if (format != "text" && format != "json" && format != "csv")
    return usage_error("--format is text, json or csv, not " + format);
  VariableOrder order = VariableOrder::Samples;
  if (sort == "imbalance") order = VariableOrder::Imbalance;
  else if (sort == "thread-imbalance") order = VariableOrder::ThreadImbalance;
  else if (sort != "samples")
    return usage_error("--sort is samples, imbalance or thread-imbalance, not " + sort);
  ReportOptions options;
  if (view == "data") options.view = View::Data;
  else if (view == "code") options.view = View::Code;
  else return usage_error("--view is data or code, not " + view);
  // Scripts get every variable unless they ask for fewer; a reader gets the top 20.
  options.top = format == "text" ? 20 : 0;
  if (!top_text.empty()) {
    auto t = parse_count(top_text);
    if (!t) return usage_error("--top wants a number of rows (0 = all), not " + top_text);
    options.top = *t;
  }
  options.all = all;
  options.width = wide ? 0 : terminal_width();
  if (!width_text.empty()) {
    auto w = parse_count(width_text);
    if (!w || *w < 40) return usage_error("--width wants a number of columns (at least 40), not " + width_text);
    options.width = *w;
  }

  hpcl::Profile db;
  if (!load_database(db_path, &db, &error)) {
    std::cerr << "hpcprof-lite: " << error << "\n";
    return 1;
  }
  // Only what the report prints: the code view no access paths; the data view no code
  // locations, and one access per variable for text and CSV (its hottest), every one for JSON,
  // written as they are expanded.
  model_options.code_locations = options.view == View::Code;
  if (options.view == View::Code) model_options.max_access_paths = 0;
  else if (format != "json") model_options.max_access_paths = 1;
  else model_options.expand_access_paths = 0;
  model_options.group_runtime = !no_group;
  ReportModel model = build_report_model(db, model_options);
  sort_variables(model, order);
  if (format == "text") write_text(model, options, std::cout);
  else if (format == "json") write_json(model, options, std::cout);
  else write_csv(model, options, std::cout);
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "hpcprof-lite: cannot write the report to standard output\n";
    return 1;
  }
  return 0;
}

int run_diff(Args& args) {
  std::string paths[2], format = "text", top_text, width_text, error;
  int given = 0;
  bool wide = false;
  DiffOptions model_options;
  while (!args.done()) {
    std::string a = args.next();
    if (args.option(a, {"--format", "-f"}, &format, &error) || args.option(a, {"--top", "-n"}, &top_text, &error) ||
        args.option(a, {"--width"}, &width_text, &error)) {
      if (!error.empty()) return usage_error(error);
    } else if (a == "--per-process") {
      model_options.per_process = true;
    } else if (a == "--wide") {
      wide = true;
    } else if (a.starts_with("-") && a != "-") {
      return usage_error("diff: unknown option " + a);
    } else if (given < 2) {
      paths[given++] = a;
    } else {
      return usage_error("diff: two databases expected (BEFORE AFTER), got a third: " + a);
    }
  }
  if (given < 2) return usage_error("diff: which databases? (diff BEFORE AFTER)");
  if (format != "text" && format != "json" && format != "csv")
    return usage_error("--format is text, json or csv, not " + format);
  DiffReportOptions options;
  options.top = format == "text" ? 20 : 0;
  if (!top_text.empty()) {
    auto t = parse_count(top_text);
    if (!t) return usage_error("--top wants a number of variables (0 = all), not " + top_text);
    options.top = *t;
  }
  options.width = wide ? 0 : terminal_width();
  if (!width_text.empty()) {
    auto w = parse_count(width_text);
    if (!w || *w < 40) return usage_error("--width wants a number of columns (at least 40), not " + width_text);
    options.width = *w;
  }
  hpcl::Profile dbs[2];
  for (int k = 0; k < 2; ++k) {
    if (!load_database(paths[k], &dbs[k], &error)) {
      std::cerr << "hpcprof-lite: " << error << "\n";
      return 1;
    }
  }
  DiffModel model = build_diff_model(dbs[0], dbs[1], model_options);
  if (format == "text") write_diff_text(model, options, std::cout);
  else if (format == "json") write_diff_json(model, options, std::cout);
  else write_diff_csv(model, options, std::cout);
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "hpcprof-lite: cannot write the diff to standard output\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    }
  }
  Args args(argc, argv);
  if (args.done()) return usage_error("no command");
  std::string command = args.next();
  if (command == "merge") return run_merge(args);
  if (command == "report") return run_report(args);
  if (command == "diff") return run_diff(args);
  return usage_error("unknown command " + command);
}
