// Source lines for the viewer's source pane (see view_source.h).
#include "hpcl/view/view_source.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "hpcl/text/format_common.h"

namespace hpcl::analysis {

namespace {

std::string expand_tabs(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\t') out.append(8 - out.size() % 8, ' ');
    else if (c != '\r') out += c;
  }
  return printable_for_terminal(out);
}

}  // namespace

const std::vector<std::string>* SourceFiles::lines_of(const std::string& path) {
  for (auto it = files_.begin(); it != files_.end(); ++it)
    if (it->first == path) {
      files_.splice(files_.begin(), files_, it);
      return &files_.front().second;
    }
  if (std::find(unreadable_.begin(), unreadable_.end(), path) != unreadable_.end()) return nullptr;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  std::ifstream in(path);
  if (ec || size > kMaxBytes || !in || !std::filesystem::is_regular_file(path, ec)) {
    unreadable_.push_front(path);
    if (unreadable_.size() > 64) unreadable_.pop_back();
    return nullptr;
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(expand_tabs(line));
  files_.emplace_front(path, std::move(lines));
  if (files_.size() > kMaxFiles) files_.pop_back();
  return &files_.front().second;
}

SourceExcerpt SourceFiles::excerpt(const std::string& path, uint32_t line, size_t count) {
  SourceExcerpt e;
  if (path.empty() || line == 0 || count == 0) return e;
  const std::vector<std::string>* lines = lines_of(path);
  if (lines == nullptr || line > lines->size()) return e;
  const size_t half = count / 2;
  size_t first = line > half ? line - half : 1;
  if (first + count - 1 > lines->size()) first = lines->size() >= count ? lines->size() - count + 1 : 1;
  e.readable = true;
  e.first_line = static_cast<uint32_t>(first);
  for (size_t i = first; i < first + count && i <= lines->size(); ++i) e.lines.push_back((*lines)[i - 1]);
  return e;
}

}  // namespace hpcl::analysis
