// hpcprof-lite: the command line of the offline analyzer. `merge` turns a measurement directory
// into a database; `report` prints a database as text, JSON, CSV or one of the exports;
// `diff` compares two. All the work is in the hpcl_analysis library; this file only parses
// arguments (CLI11: subcommands, --help listing every option) and reports errors.
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "hpcl_build_info.h"
#include "model/database.h"
#include "output/diff_formatters.h"
#include "output/exports.h"
#include "output/formatters.h"
#include "hpcl/text/help_format.h"
#include "hpcl/io.h"
#include "merge/merge_cli.h"
#include "model/report_model.h"

namespace {

using namespace hpcl::analysis;

constexpr int kExitUsage = 2;

// Printed after a usage error, under the message; `--help` prints every option.
const char kSynopsis[] =
    "usage: hpcprof-lite merge DIR -o DB [-j N] [--debug-dir DIR] [--strict]\n"
    "                             [--per-rank]\n"
    "       hpcprof-lite report DB [--format text|json|csv|folded|html|pprof|hatchet]\n"
    "                              [--view data|code|accesses] [--top N]\n"
    "                              [--sort samples|imbalance|thread-imbalance]\n"
    "                              [--all] [--no-group] [--wide | --width N]\n"
    "                              [--alloc-wrapper REGEX]...\n"
    "       hpcprof-lite diff BEFORE AFTER [--format text|json|csv] [--top N]\n"
    "                              [--per-process] [--wide | --width N]\n"
    "       hpcprof-lite --version\n"
    "Run `hpcprof-lite --help` (or `hpcprof-lite COMMAND --help`) for every option.\n";

// Flushes standard output: 0, or 1 with a message naming what could not be written (a full disk,
// a closed pipe).
int finish_output(const char* what) {
  std::cout.flush();
  if (std::cout) return 0;
  std::cerr << "hpcprof-lite: cannot write the " << what << " to standard output\n";
  return 1;
}

int usage_error(const std::string& message) {
  std::cerr << "hpcprof-lite: " << message << "\n" << kSynopsis;
  return kExitUsage;
}

// The text table's width: the terminal's when standard output is one, else $COLUMNS, else 120;
// within [kMinWidth, 10000] (COLUMNS=5 gives 40, as --width's least, not 120).
constexpr size_t kMinWidth = 40;
size_t terminal_width() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return std::max<size_t>(ws.ws_col, kMinWidth);
  if (const char* c = std::getenv("COLUMNS")) {
    if (auto n = parse_count(c)) return std::clamp<size_t>(*n, kMinWidth, 10000);
  }
  return 120;
}

// --top N and --width N / --wide, shared by report and diff; "" or a usage error.
std::string parse_rows_and_width(const std::string& top_text, const std::string& width_text, bool wide,
                                 const char* rows, size_t* top, size_t* width) {
  if (!top_text.empty()) {
    auto t = parse_count(top_text);
    if (!t) return std::string("--top wants a number of ") + rows + " (0 = all), not " + top_text;
    *top = *t;
  }
  *width = wide ? 0 : terminal_width();
  if (!width_text.empty()) {
    auto w = parse_count(width_text);
    if (!w || *w < kMinWidth) return "--width wants a number of columns (at least 40), not " + width_text;
    *width = *w;
  }
  return "";
}

struct ReportArgs {
  std::string db, format = "text", view = "data", top, width, sort = "samples";
  std::vector<std::string> wrappers;
  bool all = false, no_group = false, wide = false;
};

void add_report_options(CLI::App& c, ReportArgs& a) {
  c.add_option("DB", a.db, "the database (written by `hpcprof-lite merge`)");
  c.add_option("-f,--format", a.format,
               "text (default), json (schema: docs/REPORT.md), csv, folded (folded stacks for "
               "flamegraph.pl, inferno, speedscope), html (one self-contained page), pprof "
               "(gzipped profile.proto for go tool pprof, Pyroscope; to a file) or hatchet (JSON "
               "for Hatchet and Thicket; per rank after merge --per-rank); docs/EXPORTS.md")
      ->type_name("FORMAT");
  c.add_option("--view", a.view,
               "data (default): variables by samples; code: source locations of the sampled "
               "instructions; accesses (csv): one row per variable and access path")
      ->type_name("VIEW");
  c.add_option("-n,--top", a.top, "rows to print (text: default 20; the others: all; 0 = all)")
      ->type_name("N");
  c.add_option("--sort", a.sort,
               "samples (default); imbalance: variables with at least 1% of the samples by "
               "max/mean over the ranks first (thread-imbalance: over the threads), then the "
               "others by samples")
      ->type_name("ORDER");
  c.add_flag("--all", a.all, "also list the variables without samples (costly on a large run: every allocation site is built)");
  c.add_flag("--no-group", a.no_group,
             "list the variables of MPI, OpenMP and C/C++ runtime libraries one by one instead "
             "of one row per family");
  c.add_option("--width", a.width,
               "width of the text table in columns (default: the terminal's, else $COLUMNS, "
               "else 120)")
      ->type_name("N");
  c.add_flag("--wide", a.wide, "no width limit for the text table");
  c.add_option("--alloc-wrapper", a.wrappers,
               "(repeatable) functions whose demangled name matches are the program's "
               "allocation wrappers, so heap variables are named after their callers; wrappers "
               "with allocating names are also recognised automatically")
      ->type_name("REGEX")
      ->allow_extra_args(false);
}

int run_report(const CLI::App& command, const ReportArgs& a) {
  if (std::string e = extras_error(command, command.get_name(), "one database expected"); !e.empty())
    return usage_error(e);
  if (a.db.empty()) return usage_error("report: which database? (report DB)");
  const std::string& format = a.format;
  if (format != "text" && format != "json" && format != "csv" && format != "folded" && format != "html" &&
      format != "pprof" && format != "hatchet")
    return usage_error("--format is text, json, csv, folded, html, pprof or hatchet, not " + format);
  // A gzipped protobuf on a terminal is noise, and a terminal that receives it may be left in a
  // state its user must reset.
  if (format == "pprof" && isatty(STDOUT_FILENO))
    return usage_error("--format pprof writes a binary file: redirect it (report DB --format pprof > DB.pb.gz)");
  ReportModelOptions model_options;
  for (const std::string& wrapper : a.wrappers) {
    try {
      model_options.alloc_wrappers.emplace_back(wrapper);
    } catch (const std::regex_error& e) {
      return usage_error("--alloc-wrapper: not a regular expression: " + wrapper + " (" + e.what() + ")");
    }
  }
  VariableOrder order = VariableOrder::Samples;
  if (a.sort == "imbalance") order = VariableOrder::Imbalance;
  else if (a.sort == "thread-imbalance") order = VariableOrder::ThreadImbalance;
  else if (a.sort != "samples")
    return usage_error("--sort is samples, imbalance or thread-imbalance, not " + a.sort);
  ReportOptions options;
  if (a.view == "data") options.view = View::Data;
  else if (a.view == "code") options.view = View::Code;
  else if (a.view == "accesses" && format == "csv") options.view = View::Accesses;
  else if (a.view == "accesses") return usage_error("--view accesses is for --format csv");
  else return usage_error("--view is data, code or accesses, not " + a.view);
  // The exports draw the data-centric tree; a code view of them would be another tree.
  if (options.view == View::Code &&
      (format == "folded" || format == "html" || format == "pprof" || format == "hatchet"))
    return usage_error("--format " + format + " shows the data view; --view code is for text, json and csv");
  // Scripts get every variable unless they ask for fewer; a reader gets the top 20.
  options.top = format == "text" ? 20 : 0;
  if (std::string e = parse_rows_and_width(a.top, a.width, a.wide, "rows", &options.top, &options.width);
      !e.empty())
    return usage_error(e);
  options.all = a.all;

  hpcl::Profile db;
  std::string error;
  if (!load_database(a.db, &db, &error)) {
    std::cerr << "hpcprof-lite: " << error << "\n";
    return 1;
  }
  // Only what the report prints: the code view no access paths; the data view no code
  // locations; text and CSV one access per variable (its hottest); JSON every one, written as
  // they are expanded; folded, html and the accesses CSV every one, expanded up front.
  model_options.code_locations = options.view == View::Code;
  if (options.view == View::Code) model_options.max_access_paths = 0;
  else if (format == "json") model_options.expand_access_paths = 0;
  else if (format == "text" || (format == "csv" && options.view != View::Accesses))
    model_options.max_access_paths = 1;
  // Text and CSV print names only: no heap variable keeps its allocation path once named.
  model_options.keep_allocation_paths = format_reads_allocation_paths(format);
  // Hatchet's rows are per rank, and a group row keeps no paths to split by rank: the export
  // groups the variables itself, each with its paths.
  model_options.group_runtime = !a.no_group && format != "hatchet";
  // A run sees hundreds of thousands of allocation sites that take no sample: counted, not built.
  model_options.all_variables = a.all;
  // Why each variable is slow (its access evidence): for the data view's printed rows only. The
  // folded export shows none of it; a sort other than by samples may print any variable.
  model_options.access_evidence =
      options.view != View::Code && format != "folded" && format != "pprof" && format != "hatchet";
  if (order == VariableOrder::Samples && options.top > 0) model_options.evidence_rows = options.top;
  ReportModel model = build_report_model(db, model_options);
  sort_variables(model, order);
  if (format == "text") write_text(model, options, std::cout);
  else if (format == "json") write_json(model, options, std::cout);
  else if (format == "folded") write_folded(model, options, std::cout);
  else if (format == "html") write_html(model, options, std::cout);
  else if (format == "pprof") {
    if (!write_pprof(model, options, std::cout)) {
      std::cerr << "hpcprof-lite: cannot write the pprof profile to standard output\n";
      return 1;
    }
  }
  else if (format == "hatchet") {
    if (db.rank_values.empty())
      std::cerr << "hpcprof-lite: " << a.db << " has no values per rank (merge it with --per-rank): "
                << "the dataframe is indexed by node alone\n";
    write_hatchet(model, db, options, !a.no_group, std::cout);
  }
  else if (options.view == View::Accesses) write_csv_accesses(model, options, std::cout);
  else write_csv(model, options, std::cout);
  return finish_output("report");
}

struct DiffArgs {
  std::string before, after, format = "text", top, width;
  bool per_process = false, wide = false;
};

void add_diff_options(CLI::App& c, DiffArgs& a) {
  c.add_option("BEFORE", a.before, "the database of the run before the change");
  c.add_option("AFTER", a.after, "the database of the run after it");
  c.add_option("-f,--format", a.format, "text (default), json (schema: docs/REPORT.md) or csv")
      ->type_name("FORMAT");
  c.add_option("-n,--top", a.top, "variables to print (text: default 20; json, csv: all; 0 = all)")
      ->type_name("N");
  c.add_flag("--per-process", a.per_process,
             "compare per-process means (runs with different process counts)");
  c.add_option("--width", a.width, "width of the text table in columns")->type_name("N");
  c.add_flag("--wide", a.wide, "no width limit for the text table");
}

int run_diff(const CLI::App& command, const DiffArgs& a) {
  if (std::string e = extras_error(command, command.get_name(), "two databases expected (BEFORE AFTER)"); !e.empty())
    return usage_error(e);
  if (a.after.empty()) return usage_error("diff: which databases? (diff BEFORE AFTER)");
  const std::string& format = a.format;
  if (format != "text" && format != "json" && format != "csv")
    return usage_error("--format is text, json or csv, not " + format);
  DiffOptions model_options;
  model_options.per_process = a.per_process;
  DiffReportOptions options;
  options.top = format == "text" ? 20 : 0;
  if (std::string e = parse_rows_and_width(a.top, a.width, a.wide, "variables", &options.top, &options.width);
      !e.empty())
    return usage_error(e);
  hpcl::Profile dbs[2];
  std::string error;
  for (int k = 0; k < 2; ++k) {
    if (!load_database(k == 0 ? a.before : a.after, &dbs[k], &error)) {
      std::cerr << "hpcprof-lite: " << error << "\n";
      return 1;
    }
  }
  DiffModel model = build_diff_model(dbs[0], dbs[1], model_options);
  if (format == "text") write_diff_text(model, options, std::cout);
  else if (format == "json") write_diff_json(model, options, std::cout);
  else write_diff_csv(model, options, std::cout);
  return finish_output("diff");
}

int run_merge(const CLI::App& command, MergeCommand& merge, const std::string& jobs) {
  if (std::string e = extras_error(command, command.get_name(), "one directory expected"); !e.empty())
    return usage_error(e);
  if (std::string e = finish_merge_args(jobs, usable_cpus(), &merge); !e.empty())
    return usage_error(e);
  MergeOutcome out = merge_directory(merge.dir, merge.options);
  return write_merge_outcome(out, merge.output, "hpcprof-lite", merge.strict);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hpcprof-lite: the offline analyzer of hpcrun-lite measurements.", "hpcprof-lite"};
  app.formatter(std::make_shared<WrappedHelp>());  // before the subcommands, which copy it
  app.footer(
      "Formats: docs/REPORT.md (text, JSON schema, CSV) and docs/EXPORTS.md (folded, csv "
      "--view accesses, html, pprof, hatchet). Usage errors exit with status 2.");
  // A repeated option takes its last value, as the hand-written parser did (--alloc-wrapper,
  // a list, keeps them all).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_version_flag("--version", "hpcprof-lite " HPCL_VERSION_TEXT);

  MergeCommand merge;
  std::string jobs;
  CLI::App* merge_app = app.add_subcommand(
      "merge",
      "reads every *.hpcl process profile in DIR, merges all threads and ranks into one "
      "database, symbolizes it with the module files (and their debug info), writes DB. "
      "Damaged profiles are skipped, each named on stderr, and counted in the summary.");
  merge_app->allow_extras();
  add_merge_options(*merge_app, &merge, &jobs);

  ReportArgs report;
  CLI::App* report_app = app.add_subcommand(
      "report",
      "prints the variables of DB by samples (--view data, default) or the source locations "
      "of the sampled instructions (--view code), as a text table, JSON or CSV, or exports "
      "the data view: folded stacks, an HTML page, pprof, Hatchet.");
  report_app->allow_extras();
  add_report_options(*report_app, report);

  DiffArgs diff;
  CLI::App* diff_app = app.add_subcommand(
      "diff",
      "compares two databases variable by variable (heap by allocation path, static by "
      "module and symbol): samples before and after on one sampling rate, the change, the "
      "ratio, whether it is more than noise, and the access paths that changed; sorted by "
      "absolute change.");
  diff_app->allow_extras();
  add_diff_options(*diff_app, diff);

  if (argc < 2) return usage_error("no command");
  if (std::string c = argv[1]; !c.starts_with("-") && c != "merge" && c != "report" && c != "diff")
    return usage_error("unknown command " + c);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    // Top level: the synopsis, then every command's options; `COMMAND --help`: that command's.
    if (app.get_subcommands().empty()) std::cout << kSynopsis << "\n" << app.help("", CLI::AppFormatMode::All);
    else std::cout << app.help();
    return 0;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }
  if (merge_app->parsed()) return run_merge(*merge_app, merge, jobs);
  if (report_app->parsed()) return run_report(*report_app, report);
  if (diff_app->parsed()) return run_diff(*diff_app, diff);
  return usage_error("no command");
}
