// The viewer's status line (see view_status.h).
#include "hpcl/view/view_status.h"

#include <vector>

namespace hpcl::analysis {

std::string status_line(size_t cursor, size_t rows, size_t width) {
  struct Hint {
    const char* text;
    int keep;  // the larger, the later it is left out
  };
  static const Hint kHints[] = {{"Enter open", 5}, {"h hot", 2},   {"/ search", 4}, {"n N", 0},
                                {"s sort", 3},     {"m metrics", 1}, {"d why/source", 2}, {"Tab view", 6}, {"? help", 9},
                                {"q quit", 9}};
  const std::string counter = "row " + std::to_string(rows == 0 ? 0 : cursor + 1) + "/" + std::to_string(rows);
  std::vector<bool> shown(std::size(kHints), true);
  auto text = [&] {
    std::string s = counter + "  ";
    for (size_t i = 0; i < std::size(kHints); ++i)
      if (shown[i]) s += std::string("  ") + kHints[i].text;
    return s;
  };
  for (int level = 0; level < 9 && text().size() > width; ++level)
    for (size_t i = 0; i < std::size(kHints); ++i)
      if (kHints[i].keep == level) shown[i] = false;
  return text();
}

}  // namespace hpcl::analysis
