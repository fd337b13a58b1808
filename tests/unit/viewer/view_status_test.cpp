// The viewer's status line keeps "? help  q quit" at any width (at 80 columns it once ended
// "Tab view  ? he"), leaving out the other hints least needed first.
#include <gtest/gtest.h>

#include "hpcl/view/view_status.h"

namespace hpcl::analysis {
namespace {

TEST(ViewStatus, HelpAndQuitAlwaysStay) {
  const std::string wide = status_line(2, 120, 200);
  EXPECT_EQ(wide, "row 3/120    Enter open  h hot  / search  n N  s sort  m metrics  d why/source  Tab view  ? help  q quit");
  for (size_t w : {100u, 80u, 60u, 40u}) {
    const std::string s = status_line(2, 120, w);
    EXPECT_LE(s.size(), w) << s;
    EXPECT_TRUE(s.ends_with("? help  q quit")) << s;
    EXPECT_TRUE(s.starts_with("row 3/120")) << s;
  }
  EXPECT_NE(status_line(2, 120, 80).find("Enter open"), std::string::npos);
  EXPECT_EQ(status_line(0, 0, 80).substr(0, 7), "row 0/0");
}

}  // namespace
}  // namespace hpcl::analysis
