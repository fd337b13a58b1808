// --help at 80 columns for the analyzer's commands (hpcprof-lite, hpcprof-lite-mpi,
// hpcviewer-tui). CLI11 prints each description on one line, however long: the merge options
// ran to 156 columns, and a terminal broke them mid-word. This formatter wraps descriptions,
// the programs' own text and footers at word boundaries, continuation lines indented under the
// description's column.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace hpcl::analysis {

// The words of `text` in lines of at most `width` columns (a longer word stands alone). A line
// does not start with a dash where moving one more word down avoids it: a reader of --help (and
// tests/docs/check_man_pages.sh) takes such a line for an option. Explicit line breaks stay.
inline std::vector<std::string> wrap_words(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::vector<std::string_view> line;
    size_t used = 0;
    auto flush = [&] {
      std::string s;
      for (std::string_view w : line) s += (s.empty() ? "" : " ") + std::string(w);
      lines.push_back(std::move(s));
      line.clear();
      used = 0;
    };
    for (size_t i = start; i < end;) {
      while (i < end && text[i] == ' ') ++i;
      size_t j = i;
      while (j < end && text[j] != ' ') ++j;
      if (j == i) break;
      std::string_view word = text.substr(i, j - i);
      if (!line.empty() && used + 1 + word.size() > width) {
        std::string_view carried;
        if (word.front() == '-' && line.size() >= 2) {
          carried = line.back();
          line.pop_back();
        }
        flush();
        if (!carried.empty()) {
          line.push_back(carried);
          used = carried.size();
        }
      }
      used += (line.empty() ? 0 : 1) + word.size();
      line.push_back(word);
      i = j;
    }
    flush();
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

class WrappedHelp : public CLI::Formatter {
 public:
  static constexpr size_t kWidth = 80;

  // "  NAME   description...": the description in the column, wrapped under it; a name as wide
  // as the column has the description on the lines below.
  std::string entry(const std::string& name, const std::string& description) const {
    const size_t column = get_column_width();
    std::string out = "  " + name;
    const std::vector<std::string> lines = wrap_words(description, width_ - column);
    if (description.empty() || lines.empty()) return out + "\n";
    if (out.size() >= column) out += "\n" + std::string(column, ' ');
    else out += std::string(column - out.size(), ' ');
    for (size_t k = 0; k < lines.size(); ++k) out += (k ? std::string(column, ' ') : "") + lines[k] + "\n";
    return out;
  }
  std::string paragraph(const std::string& text) const {
    std::string out;
    for (const std::string& line : wrap_words(text, width_)) out += line + "\n";
    return out;
  }

  std::string make_option(const CLI::Option* opt, bool positional) const override {
    return entry(make_option_name(opt, positional) + make_option_opts(opt), make_option_desc(opt));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    return entry(sub->get_display_name(true), sub->get_description());
  }
  std::string make_description(const CLI::App* app) const override {
    return app->get_description().empty() ? "" : paragraph(app->get_description());
  }
  std::string make_footer(const CLI::App* app) const override {
    return app->get_footer().empty() ? "" : paragraph(app->get_footer());
  }
  // `--help` of the whole program lists each command's options indented by 2 more columns.
  std::string make_expanded(const CLI::App* sub) const override {
    width_ = kWidth - 2;
    std::string out = CLI::Formatter::make_expanded(sub);
    width_ = kWidth;
    return out;
  }

 private:
  mutable size_t width_ = kWidth;  // the width of what is being formatted (make_expanded)
};

}  // namespace hpcl::analysis
