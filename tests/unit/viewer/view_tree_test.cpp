// ViewTree operations on the view model of a database built in code: sort by column and by
// name, search among visible rows and then through closed ones (n, N, not found), the hot path,
// open all / close all, and the source pane's excerpts.
#include <gtest/gtest.h>

#include <fstream>

#include "hpcl/view/view_model.h"
#include "hpcl/view/view_source.h"
#include "viewer_db.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

std::vector<std::string> root_labels(const ViewTree& t) {
  std::vector<std::string> out;
  for (const ViewNode* r : t.rows())
    if (r->parent == nullptr) out.push_back(r->label);
  return out;
}

TEST(ViewTree, SortsByNameAndBackByColumn) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::DataCentric);
  const auto by_samples = root_labels(t);
  t.sort_by(kSortByName);
  auto sorted = by_samples;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(root_labels(t), sorted);
  t.sort_by(0);
  EXPECT_EQ(root_labels(t), by_samples);
  // Children already built are sorted too.
  ViewTree& td = vm.view(ViewKind::TopDown);
  td.open(*td.rows()[0]);
  td.sort_by(kSortByName);
  ASSERT_EQ(td.rows().size(), 5u);
  EXPECT_EQ(td.rows()[0]->label, "bad?]0;title?name (x.c:1)");
  EXPECT_EQ(td.rows()[1]->label, "main (main.c:14)");
  EXPECT_EQ(td.rows()[2]->label, "compute (kernel.c:20)");
  EXPECT_EQ(td.rows()[3]->label, "count_it (main.c:7)");
  EXPECT_EQ(td.rows()[4]->label, "update (kernel.c:30)");
}

TEST(ViewTree, SearchFindsVisibleRowsThenOpensClosedOnes) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::DataCentric);
  ASSERT_TRUE(t.search("STACK", true));  // case-insensitive, a variable further down
  EXPECT_EQ(t.selected()->label, "[stack]");
  // A function only in closed access paths: found, its parents opened.
  ASSERT_TRUE(t.search("update", true));
  const ViewNode* hit = t.selected();
  EXPECT_EQ(hit->label, "update (kernel.c:30)");
  for (const ViewNode* p = hit->parent; p != nullptr; p = p->parent) EXPECT_TRUE(p->open);
  // n: the next match among visible rows, else the next closed one.
  ASSERT_TRUE(t.search("update", true));
  EXPECT_EQ(t.selected()->label, "update (kernel.c:30)");
  EXPECT_NE(t.selected(), hit);
  // N goes back to the first.
  ASSERT_TRUE(t.search("update", false));
  EXPECT_EQ(t.selected(), hit);
  // Files match too.
  ASSERT_TRUE(t.search("table.c", true));
  EXPECT_EQ(t.selected()->label, "make_table (table.c:9)");
  EXPECT_FALSE(t.search("no such thing", true));
}

TEST(ViewTree, HotPathOpensTheHottestChain) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::DataCentric);
  t.hot_path(0);  // on the hottest heap variable: access paths -> main -> compute (30 of 40)
  ASSERT_NE(t.selected(), nullptr);
  EXPECT_EQ(t.selected()->label, "compute (kernel.c:20)");
  // In top-down: main (80) -> compute (45 >= 40); below compute nothing.
  ViewTree& td = vm.view(ViewKind::TopDown);
  td.hot_path(0);
  EXPECT_EQ(td.selected()->label, "compute (kernel.c:20)");
}

TEST(ViewTree, HotPathStopsBelowHalf) {
  Profile db = make_viewer_database();
  // A third callee under main for the heap site: compute 30, count_it 29, update 10.
  heap_sample(db.trees[0], 0, {{0, 0x300}, {0, 0x600}}, 29);
  ViewModel vm(std::move(db));
  ViewTree& t = vm.view(ViewKind::DataCentric);
  t.hot_path(0);  // main has 69: compute 30 < 34.5, so the chain stops at main, opened
  EXPECT_EQ(t.selected()->label, "main (main.c:14)");
  EXPECT_TRUE(t.selected()->open);
  EXPECT_EQ(t.selected()->children.size(), 3u);
}

TEST(ViewTree, OpenAllAndCloseAll) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::DataCentric);
  const size_t roots = t.rows().size();
  t.open_all();
  EXPECT_GT(t.rows().size(), roots * 2);
  for (const ViewNode* r : t.rows()) EXPECT_TRUE(!r->expandable || r->open) << r->label;
  t.set_cursor(t.rows().size() - 1);
  t.close_all();
  EXPECT_EQ(t.rows().size(), roots);
  EXPECT_EQ(t.selected()->parent, nullptr);
}

TEST(ViewTree, LeftGoesToParentRightToChild) {
  ViewModel vm(make_viewer_database());
  ViewTree& t = vm.view(ViewKind::DataCentric);
  t.open_selected();
  EXPECT_TRUE(t.rows()[0]->open);
  t.open_selected();
  EXPECT_EQ(t.cursor(), 1u);
  t.close_selected();
  EXPECT_EQ(t.cursor(), 0u);
  t.close_selected();
  EXPECT_FALSE(t.rows()[0]->open);
}

TEST(SourceFiles, ExcerptAroundALine) {
  TempDir dir;
  const std::string path = dir.file("a.c");
  {
    std::ofstream out(path);
    for (int i = 1; i <= 20; ++i) out << "line " << i << (i == 10 ? "\x1b[2J\tx" : "") << "\n";
  }
  SourceFiles files;
  SourceExcerpt e = files.excerpt(path, 10, 5);
  ASSERT_TRUE(e.readable);
  EXPECT_EQ(e.first_line, 8u);
  ASSERT_EQ(e.lines.size(), 5u);
  EXPECT_EQ(e.lines[2], "line 10?[2J     x");  // the tab to column 16
  e = files.excerpt(path, 20, 5);
  EXPECT_EQ(e.first_line, 16u);
  EXPECT_FALSE(files.excerpt(path, 21, 5).readable);
  EXPECT_FALSE(files.excerpt(dir.file("missing.c"), 1, 5).readable);
}

}  // namespace
}  // namespace hpcl::analysis
