// The viewer's diff (hpcviewer-tui --diff): one flat view of the diff model, in its order, with
// before, after, change and ratio columns, each variable opening to its access paths.
#include <gtest/gtest.h>

#include "hpcl/text/format_common.h"
#include "hpcl/view/view_model.h"
#include "viewer_db.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

TEST(ViewDiff, RowsInTheDiffsOrderWithChangeColumns) {
  const Profile before = make_viewer_database();
  Profile after = make_viewer_database();
  heap_sample(after.trees[0], 0, {{0, 0x300}, {0, 0x400}}, 50);  // make_grid: 40 -> 90
  const DiffModel diff = build_diff_model(before, after);
  ViewModel vm(diff);
  ASSERT_EQ(vm.view_count(), 1u);
  EXPECT_EQ(vm.view_title(0), "diff");
  std::vector<std::string> names;
  for (const Column& c : vm.columns()) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"before", "after", "change", "ratio"}));
  ViewTree& t = vm.view(ViewKind::DataCentric);
  ASSERT_EQ(t.rows().size(), diff.variables.size());
  for (size_t i = 0; i < diff.variables.size(); ++i)  // printable: the ESC and BEL are "?"
    EXPECT_EQ(t.rows()[i]->label, printable_line(diff.variables[i].name));
  const ViewNode& grid = *t.rows()[0];
  EXPECT_EQ(grid.label, "make_grid (grid.c:41)");
  // 40 -> 90 samples is more than noise: no "~" (as hpcprof-lite diff marks it), and no "*",
  // which means "sampled" in the report.
  EXPECT_EQ(grid.tag, "heap");
  for (const auto& r : t.rows()) EXPECT_EQ(r->tag.find('*'), std::string::npos) << r->label;
  EXPECT_NE(t.rows().back()->tag.find(" ~"), std::string::npos) << "an unchanged row is within noise";
  EXPECT_DOUBLE_EQ(grid.values[2], grid.values[1] - grid.values[0]);
  EXPECT_GT(grid.values[2], 0);
  EXPECT_DOUBLE_EQ(grid.values[3], grid.values[1] / grid.values[0]);
  EXPECT_EQ(format_cell(vm.columns()[2], 50).find('+') != std::string::npos, true);
  ASSERT_TRUE(grid.expandable);
  t.open(*t.rows()[0]);
  EXPECT_EQ(t.rows()[1]->parent, &grid);
  EXPECT_NE(t.rows()[1]->label.find("compute (kernel.c:20)"), std::string::npos);
  // s: by a column, then back to name; the diff's own order is the start.
  t.sort_by(kSortByName);
  EXPECT_EQ(t.rows()[0]->label, "[stack]");
}

}  // namespace
}  // namespace hpcl::analysis
