// One view of the viewer as a tree of rows, independent of any screen: nodes whose children are
// built on first opening (a database of a million tree nodes shows its first screen without
// building them), the visible rows, the cursor, open/close (one, all), sorting by a column,
// the hot path and search. view_model.h fills three of them (data-centric, top-down, flat);
// the ncurses layer only draws rows() and calls these operations on keys.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hpcl/view/view_columns.h"

namespace hpcl::analysis {

enum class RowKind {
  Variable,        // data-centric top level: heap, static, unknown
  Group,           // runtime libraries folded into one row (the report's Group rows)
  Library,         // one library of a Group
  GroupPart,       // one of the hottest variables a Group folds in
  AllocationPath,  // header of a heap variable's allocation path
  AllocationFrame, // one frame of it, innermost first
  AccessPaths,     // header of a variable's access paths (its calling-context subtree)
  Frame,           // a calling context: access paths, top-down
  InlineCaller,    // a function the compiler inlined the frames below into, at its call line
  Function,        // flat view: a function
  Line,            // flat view: one source line of it
};

struct ViewNode {
  RowKind kind = RowKind::Frame;
  std::string label;  // printable (control characters replaced), as the report labels it
  std::string tag;    // beside the label: "heap", "static", "unknown", "group", "" ...
  uint64_t bytes = 0; // heap: tracked bytes; static: symbol size; 0: none shown
  std::string function, file;  // for search and the source pane ("" when unknown)
  uint32_t line = 0;
  std::vector<double> values;  // one per column of the model (kNoValue: none)
  PatternView pattern;         // the access pattern of the row's instruction, or its variable's hottest
  std::vector<uint32_t> db_nodes;  // the database nodes the row stands for
  size_t ref = 0;                  // builder-specific: variable or function index

  bool expandable = false;
  bool fixed_order = false;  // children keep the builder's order (a path, headers), never sorted
  bool built = false;  // children made
  bool open = false;
  ViewNode* parent = nullptr;
  int depth = 0;
  std::vector<std::unique_ptr<ViewNode>> children;
};

// Sort orders: a column index (descending, rows without a value last), or by label.
inline constexpr int kSortByName = -1;
inline constexpr int kSortNone = -2;  // the builder's order (the diff's: by size of the change)

class ViewTree {
 public:
  using Builder = std::function<void(ViewNode&)>;  // fills node.children

  ViewTree(std::string name, Builder build);
  void set_roots(std::vector<std::unique_ptr<ViewNode>> roots);

  const std::string& name() const { return name_; }
  const std::vector<ViewNode*>& rows() const { return rows_; }
  const std::vector<std::unique_ptr<ViewNode>>& roots() const { return roots_; }
  size_t cursor() const { return cursor_; }
  void set_cursor(size_t row);
  ViewNode* selected() const { return rows_.empty() ? nullptr : rows_[cursor_]; }

  void open(ViewNode& node);
  void close(ViewNode& node);
  void toggle();        // Enter on the selected row
  void open_selected(); // Right: opens, or moves to the first child of an open row
  void close_selected();// Left: closes, or moves to the parent of a closed row
  // `+`: opens every row, breadth-first, until kOpenAllRows rows are visible (a huge database
  // stays answerable); `-`: closes every row.
  static constexpr size_t kOpenAllRows = 20000;
  void open_all();
  void close_all();
  // Opens the hottest chain below the selected row: descends into the hottest child (by
  // `column`) while it holds at least half of its parent's value, and selects and opens the
  // last one (so its children show where the cost splits).
  void hot_path(size_t column);

  int sort_column() const { return sort_; }
  void sort_by(int column);

  // Selects the next (forward) or previous row whose label, function or file contains `query`
  // (case-insensitive): among the other visible rows first, from the cursor on, wrapping; else
  // the first (forward) or last (backward) match in closed rows, depth-first, built on the way
  // (at most kSearchNodes of them), its parents opened; else the selected row if it matches.
  // False when nothing matches.
  static constexpr size_t kSearchNodes = 30000;
  bool search(const std::string& query, bool forward);

  // Builds node's children now (a no-op once built).
  void build(ViewNode& node);

 private:
  void refresh();  // rows_ from the open state
  void sort_children(std::vector<std::unique_ptr<ViewNode>>& list) const;
  void sort_recursive(std::vector<std::unique_ptr<ViewNode>>& list);
  void select(const ViewNode* node);

  std::string name_;
  Builder build_;
  std::vector<std::unique_ptr<ViewNode>> roots_;
  std::vector<ViewNode*> rows_;
  size_t cursor_ = 0;
  int sort_ = 0;  // samples: the report's order
};

bool row_matches(const ViewNode& node, const std::string& lowercase_query);

}  // namespace hpcl::analysis
