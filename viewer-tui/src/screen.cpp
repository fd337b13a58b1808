// Drawing one frame of hpcviewer-tui (see screen.h). Every string drawn is printable already
// (the model strips control characters); here it is only fitted to the width, and made ASCII
// when the terminal is not UTF-8.
#include "screen.h"

#include <ncurses.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "hpcl/text/cxx_names.h"
#include "hpcl/text/format_common.h"
#include "hpcl/text/table_names.h"
#include "keys.h"
#include "hpcl/view/view_evidence.h"
#include "hpcl/view/view_status.h"

namespace hpcl::viewer {

using analysis::Column;
using analysis::display_width;
using analysis::pad_left;
using analysis::pad_right;
using analysis::RowKind;
using analysis::ViewKind;
using analysis::ViewNode;

namespace {

enum Pair : short { kTitle = 1, kHeap, kStatic, kStack, kUnknown, kGroup, kDim };
constexpr int kTagWidth = 9;  // "unknown ~", "static ~"
constexpr int kBytesWidth = 10;
constexpr int kMinLabel = 24;

int screen_h() { return std::max(getmaxy(stdscr), 1); }
int screen_w() { return std::max(getmaxx(stdscr), 1); }

// Lines of the source pane, its separator included: none on a short terminal.
int source_rows(int h) { return h >= 20 ? std::max(5, (h - 3) / 4) : 0; }

// The text in ASCII for a terminal that is not UTF-8: the viewer's own glyphs by look-alikes,
// any other character by '?'.
std::string ascii(const std::string& s) {
  static const std::pair<const char*, char> kGlyphs[] = {
      {"\xe2\x96\xbc", 'v'}, {"\xe2\x96\xb2", '^'}, {"\xe2\x80\xa6", '~'}, {"\xe2\x94\x80", '-'}};
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += s[i];
      continue;
    }
    if ((c & 0xC0) == 0x80) continue;  // one '?' per code point: at its lead byte
    char glyph = '?';
    for (const auto& [utf8, look] : kGlyphs)
      if (s.compare(i, 3, utf8) == 0) glyph = look;
    out += glyph;
  }
  return out;
}

// At most `width` columns: the first code points of s.
std::string cut(const std::string& s, size_t width) {
  std::string out;
  size_t w = 0;
  for (size_t i = 0; i < s.size() && w < width; ++i) {
    out += s[i];
    if (i + 1 >= s.size() || (static_cast<unsigned char>(s[i + 1]) & 0xC0) != 0x80) ++w;
  }
  return out;
}

// Exactly `width` columns: shortened in the middle (a label keeps its name's end and its
// file:line) or padded.
std::string fit(const std::string& s, size_t width) {
  std::string t = display_width(s) > width ? analysis::shorten_label(s, width) : s;
  if (display_width(t) > width) t = cut(t, width);  // shorten_label keeps a suffix at tiny widths
  return pad_right(t, width);
}

// Exactly `width` columns, cut at the end: for lines whose start matters most.
std::string fit_right(const std::string& s, size_t width) { return pad_right(cut(s, width), width); }

void put(const UiState& ui, int y, int x, const std::string& s, attr_t attr = A_NORMAL, short pair = 0) {
  if (y < 0 || y >= screen_h() || x >= screen_w()) return;
  const std::string text = ui.utf8 ? s : ascii(s);
  attr_t a = attr;
  if (ui.colour && pair != 0) a |= COLOR_PAIR(pair);
  attron(a);
  mvaddstr(y, x, text.c_str());
  attroff(a);
}

short tag_pair(const ViewNode& n) {
  if (n.tag.starts_with("heap")) return kHeap;
  if (n.tag.starts_with("static")) return kStatic;
  if (n.tag == "stack") return kStack;
  if (n.tag == "unknown") return kUnknown;
  if (n.tag == "group") return kGroup;
  return 0;
}

struct Layout {
  std::vector<size_t> cols;  // shown columns that fit
  int label = 0;
  bool tags = false;
  bool bytes = false;  // the bytes column: not in a diff, whose rows have none
};

Layout layout(UiState& ui, int w) {
  Layout l;
  l.tags = ui.view == ViewKind::DataCentric;
  l.bytes = l.tags && !ui.model->is_diff();
  l.cols = ui.model->shown_columns();
  auto used = [&] {
    int u = (l.tags ? kTagWidth + 1 : 0) + (l.bytes ? kBytesWidth + 1 : 0);
    for (size_t c : l.cols) u += static_cast<int>(analysis::cell_width(ui.model->columns()[c])) + 1;
    return u;
  };
  while (l.cols.size() > 1 && w - used() < kMinLabel) l.cols.pop_back();
  if (l.bytes && w - used() < kMinLabel) l.bytes = false;
  if (l.tags && w - used() < kMinLabel) l.tags = false;
  l.label = std::max(w - used(), 8);
  return l;
}

// A row with nothing beside its label (a header, a library) may use the whole line.
bool bare_row(const ViewNode& n) {
  return n.tag.empty() && n.bytes == 0 && std::none_of(n.values.begin(), n.values.end(), analysis::has_value);
}

int row_indent(const ViewNode& n, const Layout& l) { return std::min(2 * n.depth, l.label / 2); }

// The columns a row's label gets.
size_t label_room(const ViewNode& n, const Layout& l) {
  const int width = bare_row(n) ? screen_w() - 1 : l.label;
  return static_cast<size_t>(std::max(width - row_indent(n, l) - 2, 1));
}

// `label` is the row's label fitted to label_room (fitted_labels).
std::string row_text(UiState& ui, const ViewNode& n, const Layout& l, const std::string& label) {
  const int indent = row_indent(n, l);
  const char* marker = !n.expandable ? "  " : n.open ? (ui.utf8 ? "\xe2\x96\xbe " : "- ")
                                                     : (ui.utf8 ? "\xe2\x96\xb8 " : "+ ");
  const bool bare = bare_row(n);
  std::string s = std::string(static_cast<size_t>(indent), ' ') + marker + pad_right(label, label_room(n, l));
  if (bare) return s;
  if (l.tags) s += " " + fit(n.tag, kTagWidth);
  if (l.bytes) s += " " + pad_left(n.bytes > 0 ? analysis::human_bytes(n.bytes) : "", kBytesWidth);
  for (size_t c : l.cols) {
    const double v = c < n.values.size() ? n.values[c] : analysis::kNoValue;
    s += " " + analysis::row_cell(ui.model->columns()[c], n, v);
  }
  return s;
}

void draw_title(UiState& ui, int w) {
  std::string s = " hpcviewer-tui ";
  for (size_t v = 0; v < ui.model->view_count(); ++v) {
    const auto k = static_cast<ViewKind>(v);
    const std::string name = std::to_string(v + 1) + " " + ui.model->view_title(v);
    s += k == ui.view ? " [" + name + "]" : "  " + name + " ";
  }
  s += "   ";
  const size_t room = static_cast<size_t>(w) > display_width(s) ? static_cast<size_t>(w) - display_width(s) : 0;
  s += room >= 8 ? fit(ui.title, room) : std::string();
  put(ui, 0, 0, fit_right(s, static_cast<size_t>(w)), A_REVERSE | A_BOLD, kTitle);
}

void draw_header(UiState& ui, const Layout& l) {
  const int sort = ui.tree().sort_column();
  std::string s = fit(sort == analysis::kSortByName ? "name\xe2\x96\xb2" : "name", static_cast<size_t>(l.label));
  if (l.tags) s += " " + fit("kind", kTagWidth);
  if (l.bytes) s += " " + pad_left("bytes", kBytesWidth);
  for (size_t c : l.cols)
    s += " " + analysis::format_header(ui.model->columns()[c], static_cast<int>(c) == sort);
  put(ui, 1, 0, s, A_BOLD | A_UNDERLINE);
}

// The labels of rows [top, top + count) cut as the report cuts a column (table_names.h): rows
// of one width (one depth) that differ keep looking different; the LAMMPS sites of one function
// read "LAMMPS_NS::AtomVec::grow(int)" three times at 80 columns otherwise.
std::vector<std::string> fitted_labels(const std::vector<ViewNode*>& rows, size_t top, size_t count,
                                       const Layout& l) {
  std::map<size_t, std::vector<size_t>> by_room;
  for (size_t r = top; r < top + count && r < rows.size(); ++r) by_room[label_room(*rows[r], l)].push_back(r);
  std::vector<std::string> out(count);
  for (auto& [room, members] : by_room) {
    std::vector<std::string> labels;
    for (size_t r : members) labels.push_back(rows[r]->label);
    analysis::simplify_names(labels);
    labels = analysis::fit_column(labels, room);
    for (size_t k = 0; k < members.size(); ++k) {
      std::string t = labels[k];
      if (display_width(t) > room) t = cut(t, room);
      out[members[k] - top] = t;
    }
  }
  return out;
}

void draw_rows(UiState& ui, const Layout& l, int first_y, int rows) {
  auto& t = ui.tree();
  size_t& top = ui.top[static_cast<size_t>(ui.view)];
  const size_t n = t.rows().size();
  const size_t visible = static_cast<size_t>(std::max(rows, 1));
  if (t.cursor() < top) top = t.cursor();
  if (t.cursor() >= top + visible) top = t.cursor() - visible + 1;
  if (top + visible > n) top = n > visible ? n - visible : 0;
  if (n == 0) put(ui, first_y, 0, "  (nothing in this view: the database has no samples)");
  ui.model->prepare(t, top, visible);  // the evidence of variables shown for the first time
  const std::vector<std::string> labels = fitted_labels(t.rows(), top, visible, l);
  for (int i = 0; i < rows && top + static_cast<size_t>(i) < n; ++i) {
    const size_t r = top + static_cast<size_t>(i);
    const ViewNode& node = *t.rows()[r];
    const attr_t a = r == t.cursor() ? A_REVERSE : A_NORMAL;
    put(ui, first_y + i, 0, row_text(ui, node, l, labels[static_cast<size_t>(i)]), a);
    if (l.tags && !node.tag.empty() && r != t.cursor())
      put(ui, first_y + i, l.label + 1, fit(node.tag, kTagWidth), A_NORMAL, tag_pair(node));
  }
}

void draw_source(UiState& ui, int y, int rows, int w) {
  const ViewNode* n = ui.tree().selected();
  std::string where = n == nullptr || n->file.empty() ? std::string("no source file for this row")
                                                      : n->file + (n->line ? ":" + std::to_string(n->line) : "");
  const char* bar = ui.utf8 ? "\xe2\x94\x80" : "-";
  std::string sep = std::string(bar) + std::string(bar) + " " + where + " ";
  while (display_width(sep) < static_cast<size_t>(w)) sep += bar;
  put(ui, y, 0, fit_right(sep, static_cast<size_t>(w)), A_NORMAL, kDim);
  if (n == nullptr || n->file.empty()) return;
  const analysis::SourceExcerpt e = ui.sources.excerpt(n->file, n->line, static_cast<size_t>(rows - 1));
  if (!e.readable) {
    put(ui, y + 1, 0, fit("  (source not readable here)", static_cast<size_t>(w)), A_DIM);
    return;
  }
  for (size_t i = 0; i < e.lines.size() && static_cast<int>(i) < rows - 1; ++i) {
    const uint32_t line = e.first_line + static_cast<uint32_t>(i);
    char num[16];
    std::snprintf(num, sizeof num, "%6u  ", line);
    put(ui, y + 1 + static_cast<int>(i), 0, fit_right(num + e.lines[i], static_cast<size_t>(w)),
        line == n->line ? A_BOLD | A_REVERSE : A_NORMAL);
  }
}

// The why pane (key d), in place of the source: the selected row's access evidence.
void draw_why(UiState& ui, int y, int rows, int w) {
  const ViewNode* n = ui.tree().selected();
  const char* bar = ui.utf8 ? "\xe2\x94\x80" : "-";
  std::string sep = std::string(bar) + std::string(bar) + " why: " + (n != nullptr ? n->label : std::string()) + " ";
  sep = cut(sep, static_cast<size_t>(w) > 4 ? static_cast<size_t>(w) - 4 : 1) + " ";
  while (display_width(sep) < static_cast<size_t>(w)) sep += bar;
  put(ui, y, 0, fit_right(sep, static_cast<size_t>(w)), A_NORMAL, kDim);
  if (n == nullptr) return;
  const std::vector<std::string> lines = analysis::why_lines(*ui.model, *n, static_cast<size_t>(std::max(w - 1, 40)));
  for (size_t i = 0; i < lines.size() && static_cast<int>(i) < rows - 1; ++i)
    put(ui, y + 1 + static_cast<int>(i), 0, fit_right(lines[i], static_cast<size_t>(w)));
}

void draw_status(UiState& ui, int y, int w) {
  std::string s;
  if (ui.mode == Mode::Search) {
    s = "/" + ui.input;
  } else if (!ui.message.empty()) {
    s = ui.message;
  } else {
    auto& t = ui.tree();
    s = analysis::status_line(t.cursor(), t.rows().size(), static_cast<size_t>(w));
  }
  put(ui, y, 0, fit_right(analysis::printable_for_terminal(s), static_cast<size_t>(w)));
  if (ui.mode == Mode::Search) {
    move(y, std::min(static_cast<int>(display_width(s)), w - 1));
    curs_set(1);
  } else {
    curs_set(0);
  }
}

void draw_box(UiState& ui, const std::vector<std::string>& lines, const std::string& title, int highlight) {
  const int h = screen_h(), w = screen_w();
  size_t width = display_width(title);
  for (const auto& l : lines) width = std::max(width, display_width(l));
  const int bw = std::min(static_cast<int>(width) + 4, w);
  const int bh = std::min(static_cast<int>(lines.size()) + 2, h);
  const int y0 = (h - bh) / 2, x0 = (w - bw) / 2;
  for (int i = 0; i < bh; ++i) {
    std::string text = i == 0 ? " " + title : (i - 1 < static_cast<int>(lines.size()) ? "  " + lines[static_cast<size_t>(i - 1)] : "");
    if (i == bh - 1 && bh >= 3) text = "";
    attr_t a = i == 0 ? A_REVERSE | A_BOLD : (i - 1 == highlight ? A_REVERSE : A_NORMAL);
    put(ui, y0 + i, x0, fit_right(text, static_cast<size_t>(bw)), a | (i == 0 ? 0 : A_BOLD));
  }
}

}  // namespace

void init_colours(UiState& ui) {
  ui.colour = ui.colour && has_colors();
  if (!ui.colour) return;
  start_color();
  use_default_colors();
  init_pair(kTitle, COLOR_CYAN, -1);
  init_pair(kHeap, COLOR_YELLOW, -1);
  init_pair(kStatic, COLOR_GREEN, -1);
  init_pair(kStack, COLOR_RED, -1);
  init_pair(kUnknown, COLOR_MAGENTA, -1);
  init_pair(kGroup, COLOR_CYAN, -1);
  init_pair(kDim, COLOR_BLUE, -1);
}

int tree_rows() {
  const int h = screen_h();
  return std::max(h - 3 - source_rows(h), 1);
}

void draw(UiState& ui) {
  erase();
  const int h = screen_h(), w = screen_w();
  const Layout l = layout(ui, w);
  draw_title(ui, w);
  draw_header(ui, l);
  const int rows = tree_rows();
  draw_rows(ui, l, 2, rows);
  if (const int src = source_rows(h); src > 0) {
    if (ui.why) draw_why(ui, 2 + rows, src, w);
    else draw_source(ui, 2 + rows, src, w);
  }
  if (ui.mode == Mode::Help) {
    std::vector<std::string> lines;
    for (const char* const* k = kKeyHelp; *k != nullptr; ++k) lines.emplace_back(*k);
    lines.emplace_back("");
    lines.emplace_back("any key closes this help");
    draw_box(ui, lines, "hpcviewer-tui keys", -1);
  } else if (ui.mode == Mode::Metrics) {
    std::vector<std::string> lines;
    for (const Column& c : ui.model->columns()) lines.push_back(std::string(c.shown ? "[x] " : "[ ] ") + c.name);
    lines.emplace_back("");
    lines.emplace_back("Space/Enter toggle, m or Esc done");
    draw_box(ui, lines, "metric columns", static_cast<int>(ui.metric_cursor));
  }
  draw_status(ui, h - 1, w);
  refresh();
}

}  // namespace hpcl::viewer
