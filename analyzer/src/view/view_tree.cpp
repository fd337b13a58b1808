// A view's tree of rows: lazy children, open/close, sort, hot path, search (see view_tree.h).
#include "hpcl/view/view_tree.h"

#include <algorithm>
#include <cctype>
#include <deque>

namespace hpcl::analysis {

namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(std::string_view haystack, const std::string& lowercase_needle) {
  return lowercase(haystack).find(lowercase_needle) != std::string::npos;
}

// Whether a is before b: larger values first, rows without a value last.
bool before_by_value(double a, double b) {
  if (!has_value(b)) return has_value(a);
  if (!has_value(a)) return false;
  return a > b;
}

}  // namespace

bool row_matches(const ViewNode& node, const std::string& q) {
  return contains(node.label, q) || contains(node.function, q) || contains(node.file, q);
}

ViewTree::ViewTree(std::string name, Builder build) : name_(std::move(name)), build_(std::move(build)) {}

void ViewTree::set_roots(std::vector<std::unique_ptr<ViewNode>> roots) {
  rows_.clear();
  roots_ = std::move(roots);
  for (auto& r : roots_) {
    r->parent = nullptr;
    r->depth = 0;
  }
  sort_children(roots_);
  cursor_ = 0;
  refresh();
}

void ViewTree::build(ViewNode& node) {
  if (node.built) return;
  node.built = true;
  if (!node.expandable) return;
  build_(node);
  for (auto& c : node.children) {
    c->parent = &node;
    c->depth = node.depth + 1;
  }
  if (!node.fixed_order) sort_children(node.children);
  if (node.children.empty()) node.expandable = false;
}

void ViewTree::refresh() {
  const ViewNode* keep = selected();
  rows_.clear();
  std::vector<ViewNode*> stack;
  for (auto it = roots_.rbegin(); it != roots_.rend(); ++it) stack.push_back(it->get());
  while (!stack.empty()) {
    ViewNode* n = stack.back();
    stack.pop_back();
    rows_.push_back(n);
    if (!n->open) continue;
    for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) stack.push_back(it->get());
  }
  select(keep);
}

void ViewTree::select(const ViewNode* node) {
  if (node != nullptr) {
    auto it = std::find(rows_.begin(), rows_.end(), node);
    if (it != rows_.end()) {
      cursor_ = static_cast<size_t>(it - rows_.begin());
      return;
    }
  }
  cursor_ = rows_.empty() ? 0 : std::min(cursor_, rows_.size() - 1);
}

void ViewTree::set_cursor(size_t row) {
  cursor_ = rows_.empty() ? 0 : std::min(row, rows_.size() - 1);
}

void ViewTree::open(ViewNode& node) {
  build(node);
  if (!node.expandable || node.open) return;
  node.open = true;
  refresh();
}

void ViewTree::close(ViewNode& node) {
  if (!node.open) return;
  node.open = false;
  refresh();
}

void ViewTree::toggle() {
  if (ViewNode* n = selected()) n->open ? close(*n) : open(*n);
}

void ViewTree::open_selected() {
  ViewNode* n = selected();
  if (n == nullptr) return;
  if (!n->open) open(*n);
  else if (!n->children.empty()) set_cursor(cursor_ + 1);
}

void ViewTree::close_selected() {
  ViewNode* n = selected();
  if (n == nullptr) return;
  if (n->open) close(*n);
  else if (n->parent != nullptr) select(n->parent);
}

void ViewTree::open_all() {
  std::deque<ViewNode*> queue;
  size_t visible = roots_.size();
  for (auto& r : roots_) queue.push_back(r.get());
  while (!queue.empty() && visible < kOpenAllRows) {
    ViewNode* n = queue.front();
    queue.pop_front();
    build(*n);
    if (!n->expandable) continue;
    if (!n->open) {
      n->open = true;
      visible += n->children.size();
    }
    for (auto& c : n->children) queue.push_back(c.get());
  }
  refresh();
}

void ViewTree::close_all() {
  std::vector<ViewNode*> stack;
  for (auto& r : roots_) stack.push_back(r.get());
  while (!stack.empty()) {
    ViewNode* n = stack.back();
    stack.pop_back();
    n->open = false;
    for (auto& c : n->children) stack.push_back(c.get());
  }
  ViewNode* top = selected();
  while (top != nullptr && top->parent != nullptr) top = top->parent;
  refresh();
  select(top);
}

void ViewTree::hot_path(size_t column) {
  ViewNode* n = selected();
  if (n == nullptr) return;
  for (bool first = true;; first = false) {
    build(*n);
    ViewNode* hot = nullptr;
    for (auto& c : n->children)
      if (c->values.size() > column && has_value(c->values[column]) &&
          (hot == nullptr || c->values[column] > hot->values[column]))
        hot = c.get();
    if (hot == nullptr) {
      if (first && n->expandable) n->open = true;
      break;
    }
    const double parent = n->values.size() > column ? n->values[column] : kNoValue;
    if (!first && has_value(parent) && hot->values[column] < 0.5 * parent) {
      n->open = true;  // the chain ends here: show where it splits
      break;
    }
    n->open = true;
    n = hot;
  }
  refresh();
  select(n);
}

void ViewTree::sort_children(std::vector<std::unique_ptr<ViewNode>>& list) const {
  if (sort_ == kSortNone) return;
  if (sort_ == kSortByName) {
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a->label < b->label; });
    return;
  }
  const size_t col = static_cast<size_t>(sort_);
  std::stable_sort(list.begin(), list.end(), [col](const auto& a, const auto& b) {
    const double x = a->values.size() > col ? a->values[col] : kNoValue;
    const double y = b->values.size() > col ? b->values[col] : kNoValue;
    return before_by_value(x, y);
  });
}

void ViewTree::sort_recursive(std::vector<std::unique_ptr<ViewNode>>& list) {
  sort_children(list);
  for (auto& n : list)
    if (n->built && !n->children.empty()) {
      if (n->fixed_order) {
        for (auto& c : n->children)
          if (c->built) sort_recursive(c->children);
      } else {
        sort_recursive(n->children);
      }
    }
}

void ViewTree::sort_by(int column) {
  sort_ = column;
  sort_recursive(roots_);
  refresh();
}

bool ViewTree::search(const std::string& query, bool forward) {
  if (query.empty() || rows_.empty()) return false;
  const std::string q = lowercase(query);
  const size_t n = rows_.size();
  for (size_t k = 1; k < n; ++k) {
    size_t i = forward ? (cursor_ + k) % n : (cursor_ + n - k) % n;
    if (row_matches(*rows_[i], q)) {
      cursor_ = i;
      return true;
    }
  }
  // Not among the visible rows: depth-first through the closed ones, building as it goes.
  ViewNode* found = nullptr;
  size_t budget = kSearchNodes;
  std::vector<std::pair<ViewNode*, bool>> stack;  // node, visible
  for (auto it = roots_.rbegin(); it != roots_.rend(); ++it) stack.emplace_back(it->get(), true);
  while (!stack.empty() && budget > 0) {
    auto [node, visible] = stack.back();
    stack.pop_back();
    --budget;
    if (!visible && row_matches(*node, q)) {
      found = node;
      if (forward) break;
    }
    build(*node);
    for (auto it = node->children.rbegin(); it != node->children.rend(); ++it)
      stack.emplace_back(it->get(), visible && node->open);
  }
  if (found == nullptr) return row_matches(*rows_[cursor_], q);  // the only match: stay
  for (ViewNode* p = found->parent; p != nullptr; p = p->parent) p->open = true;
  refresh();
  select(found);
  return true;
}

}  // namespace hpcl::analysis
