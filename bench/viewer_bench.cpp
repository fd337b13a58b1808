// Times hpcviewer-tui's model on a database: opening it up to the rows of the first screen,
// then each key's work (open, hot path, open all, sort, search, switching views), and peak RSS.
// viewer_bench DB [rows]: prints one "name seconds" line per step; bench/viewer_bench.sh makes
// a database of a million tree nodes and runs it, and the real viewer in tmux.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "model/database.h"
#include "hpcl/text/format_common.h"
#include "hpcl/view/view_model.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace hpcl::analysis;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// What drawing a screen costs in the model: formatting `rows` visible rows' cells.
size_t format_screen(ViewModel& vm, ViewTree& t, size_t first, size_t rows) {
  size_t bytes = 0;
  for (size_t r = first; r < t.rows().size() && r < first + rows; ++r) {
    const ViewNode& n = *t.rows()[r];
    std::string s = shorten_label(n.label, 60);
    for (size_t c : vm.shown_columns()) s += format_cell(vm.columns()[c], n.values[c]);
    bytes += s.size();
  }
  return bytes;
}

template <typename F>
void step(const char* name, ViewModel& vm, ViewTree& t, F&& f) {
  const auto start = Clock::now();
  f();
  format_screen(vm, t, t.cursor() > 20 ? t.cursor() - 20 : 0, 45);
  std::printf("%-28s %.4f s   (%zu rows visible)\n", name, since(start), t.rows().size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: viewer_bench DB\n");
    return 2;
  }
  const auto start = Clock::now();
  std::string error;
  hpcl::Profile db;
  if (!load_database(argv[1], &db, &error)) {
    std::fprintf(stderr, "viewer_bench: %s\n", error.c_str());
    return 1;
  }
  const double loaded = since(start);
  auto vm = std::make_unique<ViewModel>(std::move(db));
  ViewTree& data = vm->view(ViewKind::DataCentric);
  vm->prepare(data, 0, 45);  // as the screen does before drawing: the shown rows' evidence
  format_screen(*vm, data, 0, 45);
  const double first = since(start);
  const size_t nodes = vm->database().trees.empty() ? 0 : vm->database().trees[0].nodes.size();
  std::printf("database                     %s: %zu tree nodes, %zu variables, %zu code locations\n", argv[1],
              nodes, vm->report().variables.size(), vm->report().locations.size());
  std::printf("%-28s %.4f s\n", "read + validate database", loaded);
  std::printf("%-28s %.4f s\n", "first screen (open+rows)", first);

  for (size_t r = 0; r < data.rows().size(); ++r)
    if (data.rows()[r]->tag == "heap") {
      data.set_cursor(r);  // the hottest heap variable: allocation path and access paths
      break;
    }
  step("enter (open heap variable)", *vm, data, [&] { data.toggle(); });
  step("hot path", *vm, data, [&] { data.hot_path(0); });
  std::printf("  hot path ends at depth %d: %s\n", data.selected()->depth, data.selected()->label.c_str());
  step("down x 100", *vm, data, [&] { data.set_cursor(data.cursor() + 100); });
  step("sort by name", *vm, data, [&] { data.sort_by(kSortByName); });
  step("sort by samples", *vm, data, [&] { data.sort_by(0); });
  step("analyse every variable", *vm, data, [&] { vm->prepare_all(); });
  const std::string last = data.rows().empty() ? "" : data.rows().back()->label;
  step("search last variable", *vm, data, [&] { data.search(last, true); });
  step("search absent (budget)", *vm, data, [&] { data.search("no-such-name-anywhere", true); });
  step("close all", *vm, data, [&] { data.close_all(); });
  step("open all (capped)", *vm, data, [&] { data.open_all(); });
  step("close all again", *vm, data, [&] { data.close_all(); });
  // The first Tab builds the view's top level.
  auto t0 = Clock::now();
  ViewTree& td = vm->view(ViewKind::TopDown);
  format_screen(*vm, td, 0, 45);
  std::printf("%-28s %.4f s   (%zu rows visible)\n", "tab: top-down (first)", since(t0), td.rows().size());
  step("top-down enter", *vm, td, [&] { td.toggle(); });
  step("top-down hot path", *vm, td, [&] { td.hot_path(0); });
  t0 = Clock::now();
  ViewTree& flat = vm->view(ViewKind::Flat);
  format_screen(*vm, flat, 0, 45);
  std::printf("%-28s %.4f s   (%zu rows visible)\n", "tab: flat (first)", since(t0), flat.rows().size());
  step("flat enter", *vm, flat, [&] { flat.toggle(); });
  step("flat sort by name", *vm, flat, [&] { flat.sort_by(kSortByName); });
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("%-28s %.1f MiB\n", "peak RSS", static_cast<double>(ru.ru_maxrss) / 1024.0);
  return 0;
}
