// hpcviewer-tui DB (or --diff BEFORE AFTER): browse a hpcprof-lite database in the terminal. The command line (CLI11),
// opening the database (a bad one is an error naming the file, exit 1), and the key loop; the
// drawing is screen.cpp, the keys keys.cpp, the model analyzer/src/view_model.h.
#include <ncurses.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <langinfo.h>
#include <regex>
#include <string>
#include <unistd.h>

#include "hpcl/text/help_format.h"
#include "hpcl_build_info.h"
#include "hpcl/text/format_common.h"
#include "keys.h"
#include "screen.h"
#include "ui_state.h"
#include "hpcl/view/view_model.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string database;
  std::string view = "data";
  bool no_colour = false;
  bool no_group = false;
  std::vector<std::string> alloc_wrappers;
  std::string startup_report;
  std::vector<std::string> diff;  // BEFORE AFTER
};

int run(const Options& o, Clock::time_point start) {
  hpcl::analysis::ReportModelOptions ro;
  ro.group_runtime = !o.no_group;
  for (const std::string& w : o.alloc_wrappers) {
    try {
      ro.alloc_wrappers.emplace_back(w);
    } catch (const std::regex_error&) {
      std::fprintf(stderr, "hpcviewer-tui: --alloc-wrapper: not a regular expression: %s\n", w.c_str());
      return 1;
    }
  }
  std::string error;
  auto model = o.diff.size() == 2 ? hpcl::analysis::ViewModel::open_diff(o.diff[0], o.diff[1], &error)
                                  : hpcl::analysis::ViewModel::open(o.database, &error, ro);
  if (model == nullptr) {
    std::fprintf(stderr, "hpcviewer-tui: %s\n", error.c_str());
    return 1;
  }
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    std::fprintf(stderr, "hpcviewer-tui: needs a terminal (stdin and stdout); for text use hpcprof-lite report %s\n",
                 o.database.c_str());
    return 1;
  }

  hpcl::viewer::UiState ui;
  ui.model = model.get();
  ui.title = hpcl::analysis::printable_for_terminal(
      o.diff.size() == 2 ? o.diff[0] + " -> " + o.diff[1] : o.database);
  ui.view = o.view == "top-down" ? hpcl::analysis::ViewKind::TopDown
            : o.view == "flat"   ? hpcl::analysis::ViewKind::Flat
                                 : hpcl::analysis::ViewKind::DataCentric;
  const char* codeset = nl_langinfo(CODESET);
  ui.utf8 = codeset != nullptr && (std::strcmp(codeset, "UTF-8") == 0 || std::strcmp(codeset, "utf8") == 0);
  ui.colour = !o.no_colour && std::getenv("NO_COLOR") == nullptr;

  if (initscr() == nullptr) {
    std::fprintf(stderr, "hpcviewer-tui: cannot initialise the terminal (TERM=%s)\n",
                 std::getenv("TERM") ? std::getenv("TERM") : "");
    return 1;
  }
  cbreak();
  noecho();
  keypad(stdscr, TRUE);
  set_escdelay(25);
  curs_set(0);
  hpcl::viewer::init_colours(ui);

  hpcl::viewer::draw(ui);
  if (!o.startup_report.empty()) {
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    std::ofstream(o.startup_report) << "first_screen_seconds " << s << "\n";
  }
  while (!ui.quit) {
    const int key = getch();
    if (key == ERR) continue;
    hpcl::viewer::handle_key(ui, key);
    if (!ui.quit) hpcl::viewer::draw(ui);
  }
  endwin();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Clock::time_point start = Clock::now();
  std::setlocale(LC_ALL, "");
  Options o;
  CLI::App app{"hpcviewer-tui: browse the variable hotspots of a hpcprof-lite database in the terminal.\n"
               "Keys: Tab views, Enter/Right/Left open and close, +/- all, h hot path, / search "
               "(n/N), s sort, m metrics, ? help, q quit. See docs/VIEWER.md.",
               "hpcviewer-tui"};
  app.formatter(std::make_shared<hpcl::analysis::WrappedHelp>());
  auto* db = app.add_option("DB", o.database, "database written by hpcprof-lite merge")->type_name("FILE");
  app.add_option("--diff", o.diff,
                 "show the diff of two databases (as hpcprof-lite diff BEFORE AFTER) instead of DB")
      ->expected(2)
      ->type_name("BEFORE AFTER")
      ->excludes(db);
  app.add_option("--view", o.view, "view shown first")
      ->check(CLI::IsMember({"data", "top-down", "flat"}))
      ->capture_default_str();
  app.add_flag("--no-color,--no-colour", o.no_colour, "draw without colours (also when NO_COLOR is set)");
  app.add_flag("--no-group", o.no_group,
               "list the variables of runtime libraries one by one, as hpcprof-lite report --no-group");
  app.add_option("--alloc-wrapper", o.alloc_wrappers,
                 "treat functions matching REGEX as allocation wrappers when naming heap variables, "
                 "as hpcprof-lite report --alloc-wrapper (repeatable)")
      ->type_name("REGEX");
  app.add_option("--startup-report", o.startup_report,
                 "write the seconds from start to the first full screen into FILE (benchmarks, tests)")
      ->type_name("FILE");
  app.set_version_flag("--version", "hpcviewer-tui " HPCL_VERSION_TEXT);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "hpcviewer-tui: %s\nRun with --help for more information.\n", e.what());
    return 2;  // a usage error, as hpcprof-lite's
  }
  if (o.database.empty() && o.diff.empty()) {
    std::fprintf(stderr, "hpcviewer-tui: DB is required (or --diff BEFORE AFTER)\nRun with --help for more information.\n");
    return 2;
  }
  return run(o, start);
}
