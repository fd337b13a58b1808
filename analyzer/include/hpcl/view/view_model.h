// The viewer's model: a database opened once, the report model built from it (so variable names
// and heap allocation-site labels are the report's), and three views of it as ViewTrees:
//  - data-centric: the variables, hottest first; a heap variable opens to its allocation path,
//    then its access paths; a static or unknown-data one ([stack], [unknown data]) to its access
//    paths; a runtime-library group to its libraries;
//  - top-down: the calling-context tree of the code view, every variable's paths and the
//    no-data paths merged by call site;
//  - flat: functions, each opening to its source lines (exclusive samples, as the code view).
// Rows below the top level are built from the database tree when first opened. No ncurses here.
// A diff of two databases is shown by the same class as one flat view (view_diff.cpp).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/diff_model.h"
#include "hpcl/profile.h"
#include "model/report_model.h"
#include "hpcl/view/view_columns.h"
#include "hpcl/view/view_db.h"
#include "hpcl/view/view_tree.h"

namespace hpcl::analysis {

enum class ViewKind { DataCentric = 0, TopDown = 1, Flat = 2 };
inline constexpr size_t kViewCount = 3;

class ViewModel {
 public:
  // Takes the database (validated by load_database).
  explicit ViewModel(Profile db, const ReportModelOptions& options = {});
  ViewModel(const ViewModel&) = delete;
  ViewModel& operator=(const ViewModel&) = delete;

  // Loads and validates `path`; nullptr with *error naming the file on failure.
  static std::unique_ptr<ViewModel> open(const std::string& path, std::string* error,
                                         const ReportModelOptions& options = {});

  // The diff of two databases (diff_model.h) as one flat view: a row per variable, by how much
  // it changed, opening to its access paths; columns before, after, change, ratio.
  explicit ViewModel(const DiffModel& diff);
  static std::unique_ptr<ViewModel> open_diff(const std::string& before, const std::string& after,
                                              std::string* error);

  // 3 views of a database; 1 of a diff.
  size_t view_count() const { return view_count_; }
  bool is_diff() const { return view_count_ == 1; }
  const std::string& view_title(size_t i) const { return views_[i]->name(); }

  const ReportModel& report() const { return report_; }
  const Profile& database() const { return db_; }
  // The top-down and flat views get their rows when first asked for: the first screen is the
  // data-centric view's.
  ViewTree& view(ViewKind k);
  std::vector<Column>& columns() { return columns_; }
  // Indices of the shown columns, in order.
  std::vector<size_t> shown_columns() const;

  // The access evidence (patterns, fields, advice) of the hottest kEagerEvidence variables is
  // read from the binaries when the model opens (they decide whether the pattern column is
  // offered); any other variable's when a row of it is first shown: prepare() before drawing rows [first, first + count) of `t`, prepare_all() before
  // sorting by the pattern column. On CP2K's 990 variables the first screen took 5.2 s with
  // every variable analysed up front.
  static constexpr size_t kEagerEvidence = 16;
  void prepare(ViewTree& t, size_t first, size_t count);
  void prepare_all();

 private:
  std::unique_ptr<ViewNode> frame_row(const std::vector<uint32_t>& bundle) const;
  std::vector<std::unique_ptr<ViewNode>> merged_children(const std::vector<uint32_t>& bundle) const;
  std::vector<std::unique_ptr<ViewNode>> chain_rows(const std::vector<uint32_t>& frames, size_t outer) const;
  void set_bundle_values(ViewNode& row) const;
  std::unique_ptr<ViewNode> variable_row(size_t index) const;
  void build_data(ViewNode& node) const;
  void build_top_down(ViewNode& node) const;
  void build_flat(ViewNode& node) const;
  void add_code_values(ViewNode& row, const CodeLocation& l) const;
  std::vector<std::unique_ptr<ViewNode>> data_roots() const;
  std::vector<std::unique_ptr<ViewNode>> top_down_roots() const;
  std::vector<std::unique_ptr<ViewNode>> flat_roots();
  void prepare_row(ViewNode& row);
  // A sampled instruction's access pattern: known from an analysed variable, or read now when
  // the instruction is an access of a heap or static variable (not analysed: false).
  bool instruction_pattern(uint32_t node, PatternView* out) const;

  Profile db_;
  ReportModel report_;
  std::unique_ptr<EvidenceBuilder> evidence_;  // null in a diff
  DbIndex index_;
  std::vector<Column> columns_;
  std::vector<uint32_t> variable_node_;  // per report variable: its database node, or kNoParent
  // The sampled instructions' access patterns, filled as variables are analysed and frame rows
  // built (mutable: a cache of what the binaries say, the same whenever it is filled).
  mutable std::map<Frame, PatternView> patterns_;
  std::vector<std::vector<size_t>> function_lines_;  // flat: report locations per function
  std::unique_ptr<ViewTree> views_[kViewCount];
  size_t view_count_ = kViewCount;
  bool rooted_[kViewCount] = {};
};

const char* view_name(ViewKind k);  // "data-centric", "top-down", "flat"

}  // namespace hpcl::analysis
