// The source pane's text: lines of a source file around a line, read once per file and kept
// (a few files, each up to a size limit), with control characters made printable. No ncurses.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <utility>
#include <vector>

namespace hpcl::analysis {

struct SourceExcerpt {
  bool readable = false;
  uint32_t first_line = 0;          // line number of lines[0]
  std::vector<std::string> lines;   // printable, tabs expanded
};

class SourceFiles {
 public:
  static constexpr size_t kMaxFiles = 8;
  static constexpr uint64_t kMaxBytes = 16u << 20;  // a larger file is not shown

  // `count` lines of `path` centred on `line` (1-based); readable false when the file cannot
  // be read, is too large, or is shorter than `line`.
  SourceExcerpt excerpt(const std::string& path, uint32_t line, size_t count);

 private:
  const std::vector<std::string>* lines_of(const std::string& path);
  std::list<std::pair<std::string, std::vector<std::string>>> files_;  // most recent first
  std::list<std::string> unreadable_;
};

}  // namespace hpcl::analysis
