// The viewer's diff of two databases (hpcviewer-tui --diff BEFORE AFTER): the diff model of
// `hpcprof-lite diff` (diff_model.h) as one flat view, a row per variable in the diff's order,
// each opening to its access paths before and after. See view_model.h.
#include "model/database.h"
#include "hpcl/text/format_common.h"
#include "hpcl/view/view_model.h"

namespace hpcl::analysis {

namespace {

std::vector<Column> diff_columns(const DiffModel& d) {
  return {
      {"before", ColumnKind::Metric, kMetricSamples, d.before.samples, true},
      {"after", ColumnKind::Metric, kMetricSamples, d.after.samples, true},
      {"change", ColumnKind::Delta, 0, 0, true},
      {"ratio", ColumnKind::Ratio, 0, 0, true},
  };
}

std::unique_ptr<ViewNode> diff_row(RowKind kind, const std::string& label, double before, double after,
                                   bool has_before) {
  auto row = std::make_unique<ViewNode>();
  row->kind = kind;
  row->label = printable_line(label);
  row->values = {before, after, after - before, has_before && before > 0 ? after / before : kNoValue};
  return row;
}

}  // namespace

ViewModel::ViewModel(const DiffModel& diff) : index_(db_) {
  columns_ = diff_columns(diff);
  view_count_ = 1;
  rooted_[0] = true;
  // The rows are all built here (a diff keeps a few access paths per variable): the builder has
  // nothing left to do.
  views_[0] = std::make_unique<ViewTree>("diff", [](ViewNode&) {});
  std::vector<std::unique_ptr<ViewNode>> rows;
  for (const VariableDiff& v : diff.variables) {
    // Before the name, so that a shortened label keeps it.
    std::string label = v.match == MatchKind::Exact ? v.name : std::string("[") + match_name(v.match) + "] " + v.name;
    auto row = diff_row(RowKind::Variable, label, v.before.samples, v.after.samples, v.before.present);
    row->tag = kind_name(v.kind);
    // "~" as hpcprof-lite diff marks a change within noise: "*" is the report's mark of
    // sampled small allocations, and one sign must not mean two things.
    if (!v.significant) row->tag += " ~";
    if (v.kind == VariableKind::Heap && !v.allocation_path.empty()) {
      // The frame that names the variable, for the source pane: the first with a file.
      for (const Location& l : v.allocation_path)
        if (!l.file.empty()) {
          row->function = printable_line(l.function);
          row->file = printable_line(l.file);
          row->line = l.line;
          break;
        }
    }
    for (const AccessChange& a : v.accesses) {
      auto c = diff_row(RowKind::Frame, a.callers.empty() ? a.label : a.label + " < " + a.callers, a.before,
                        a.after, a.before > 0);
      c->parent = row.get();
      c->depth = 1;
      c->built = true;
      row->children.push_back(std::move(c));
    }
    row->expandable = !row->children.empty();
    row->built = true;
    row->fixed_order = false;
    rows.push_back(std::move(row));
  }
  // Kept in the diff's order (by |change|) until `s` asks for another.
  views_[0]->sort_by(kSortNone);
  views_[0]->set_roots(std::move(rows));
}

std::unique_ptr<ViewModel> ViewModel::open_diff(const std::string& before, const std::string& after,
                                                std::string* error) {
  Profile a, b;
  if (!load_database(before, &a, error) || !load_database(after, &b, error)) return nullptr;
  return std::make_unique<ViewModel>(build_diff_model(a, b));
}

}  // namespace hpcl::analysis
