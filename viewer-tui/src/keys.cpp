// Key dispatch of hpcviewer-tui (see keys.h).
#include "keys.h"

#include <ncurses.h>

#include <algorithm>

#include "screen.h"

namespace hpcl::viewer {

using analysis::kSortByName;
using analysis::ViewKind;

const char* const kKeyHelp[] = {
    "Tab / Shift-Tab   next / previous view;  1 2 3   data-centric, top-down, flat",
    "Up Down PgUp PgDn Home End (k j g G)   move",
    "Enter             open or close the row",
    "Right / Left      open (or go to the first child) / close (or go to the parent)",
    "+ / -             open all rows / close all rows",
    "h                 hot path: open the hottest chain below the row",
    "/ TEXT Enter      search names, functions and files;  n / N   next / previous",
    "s                 sort by the next column (then by name)",
    "m                 choose the metric columns",
    "d                 bottom pane: why (access pattern, fields, what to try) / source",
    "?                 this help;  q   quit",
    nullptr,
};

namespace {

// The column the hot path follows: the sort column, or samples when sorted by name.
size_t hot_column(UiState& ui) {
  const int s = ui.tree().sort_column();
  return s >= 0 ? static_cast<size_t>(s) : 0;
}

void cycle_sort(UiState& ui) {
  const std::vector<size_t> shown = ui.model->shown_columns();
  const int current = ui.tree().sort_column();
  int next = kSortByName;
  if (current == kSortByName || current == analysis::kSortNone) {
    next = shown.empty() ? kSortByName : static_cast<int>(shown[0]);
  } else {
    auto it = std::find(shown.begin(), shown.end(), static_cast<size_t>(current));
    if (it != shown.end() && it + 1 != shown.end()) next = static_cast<int>(*(it + 1));
  }
  // Every variable's pattern is needed to sort by it, not only the rows shown so far.
  if (next >= 0 && ui.model->columns()[static_cast<size_t>(next)].kind == analysis::ColumnKind::Pattern)
    ui.model->prepare_all();
  ui.tree().sort_by(next);
  ui.message = next == kSortByName ? "sorted by name"
                                   : "sorted by " + ui.model->columns()[static_cast<size_t>(next)].name;
}

void search(UiState& ui, bool forward) {
  if (ui.query.empty()) {
    ui.message = "no search yet: / starts one";
    return;
  }
  if (!ui.tree().search(ui.query, forward)) ui.message = "not found: " + ui.query;
}

void move_cursor(UiState& ui, long delta) {
  auto& t = ui.tree();
  const long last = static_cast<long>(t.rows().size()) - 1;
  long to = static_cast<long>(t.cursor()) + delta;
  t.set_cursor(static_cast<size_t>(std::clamp(to, 0L, std::max(last, 0L))));
}

void key_search(UiState& ui, int key) {
  if (key == 27) {
    ui.mode = Mode::Browse;
  } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
    ui.mode = Mode::Browse;
    ui.query = ui.input;
    search(ui, true);
  } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
    // Remove one UTF-8 code point.
    while (!ui.input.empty() && (static_cast<unsigned char>(ui.input.back()) & 0xC0) == 0x80) ui.input.pop_back();
    if (!ui.input.empty()) ui.input.pop_back();
  } else if (key >= 32 && key < 256 && key != 127) {
    ui.input += static_cast<char>(key);
  }
}

void key_metrics(UiState& ui, int key) {
  auto& cols = ui.model->columns();
  if (key == KEY_UP || key == 'k') {
    if (ui.metric_cursor > 0) --ui.metric_cursor;
  } else if (key == KEY_DOWN || key == 'j') {
    if (ui.metric_cursor + 1 < cols.size()) ++ui.metric_cursor;
  } else if (key == ' ' || key == '\n' || key == '\r' || key == KEY_ENTER) {
    auto& c = cols[ui.metric_cursor];
    if (c.shown && ui.model->shown_columns().size() == 1) {
      ui.message = "at least one column stays shown";
    } else {
      c.shown = !c.shown;
    }
  } else if (key == 'm' || key == 'q' || key == 27) {
    ui.mode = Mode::Browse;
    // A hidden sort column would sort by something not on screen.
    const int s = ui.tree().sort_column();
    if (s >= 0 && !cols[static_cast<size_t>(s)].shown)
      for (size_t v = 0; v < ui.model->view_count(); ++v) ui.model->view(static_cast<ViewKind>(v)).sort_by(kSortByName);
  }
}

}  // namespace

void handle_key(UiState& ui, int key) {
  if (key == KEY_RESIZE) return;  // draw() reads the new size
  if (ui.mode == Mode::Search) return key_search(ui, key);
  if (ui.mode == Mode::Metrics) return key_metrics(ui, key);
  if (ui.mode == Mode::Help) {
    ui.mode = Mode::Browse;
    if (key != 'q') return;  // any key closes the help; q also quits
  }
  ui.message.clear();
  auto& t = ui.tree();
  const size_t n = ui.model->view_count();
  switch (key) {
    case 'q': ui.quit = true; break;
    case '\t': ui.view = static_cast<ViewKind>((static_cast<size_t>(ui.view) + 1) % n); break;
    case KEY_BTAB: ui.view = static_cast<ViewKind>((static_cast<size_t>(ui.view) + n - 1) % n); break;
    case '1': case '2': case '3':
      if (static_cast<size_t>(key - '1') < n) ui.view = static_cast<ViewKind>(key - '1');
      break;
    case KEY_UP: case 'k': move_cursor(ui, -1); break;
    case KEY_DOWN: case 'j': move_cursor(ui, 1); break;
    case KEY_PPAGE: move_cursor(ui, -tree_rows()); break;
    case KEY_NPAGE: case ' ': move_cursor(ui, tree_rows()); break;
    case KEY_HOME: case 'g': t.set_cursor(0); break;
    case KEY_END: case 'G': t.set_cursor(t.rows().empty() ? 0 : t.rows().size() - 1); break;
    case '\n': case '\r': case KEY_ENTER: t.toggle(); break;
    case KEY_RIGHT: case 'l': t.open_selected(); break;
    case KEY_LEFT: t.close_selected(); break;
    case '+': case '*': t.open_all(); break;
    case '-': t.close_all(); break;
    case 'h': t.hot_path(hot_column(ui)); break;
    case '/': ui.mode = Mode::Search; ui.input.clear(); break;
    case 'n': search(ui, true); break;
    case 'N': search(ui, false); break;
    case 's': cycle_sort(ui); break;
    case 'm': ui.mode = Mode::Metrics; ui.metric_cursor = 0; break;
    case 'd': ui.why = !ui.why; break;
    case '?': ui.mode = Mode::Help; break;
    default: break;
  }
}

}  // namespace hpcl::viewer
