// --help at 80 columns (help_format.h): descriptions wrapped at word boundaries, explicit line
// breaks kept, and no continuation line that starts with a dash where it can be avoided (a
// reader takes such a line for an option). docs.man_pages checks the programs' real --help.
#include <gtest/gtest.h>

#include <sstream>

#include "hpcl/text/help_format.h"

namespace hpcl::analysis {
namespace {

using Lines = std::vector<std::string>;

TEST(HelpFormat, WrapsAtWordsAndKeepsLineBreaks) {
  EXPECT_EQ(wrap_words("one two three four", 9), (Lines{"one two", "three", "four"}));
  EXPECT_EQ(wrap_words("a  b", 80), (Lines{"a b"})) << "runs of spaces are one";
  EXPECT_EQ(wrap_words("first\nsecond line", 80), (Lines{"first", "second line"}));
  EXPECT_EQ(wrap_words("x averyveryverylongword y", 6), (Lines{"x", "averyveryverylongword", "y"}))
      << "a word wider than the line stands alone";
  EXPECT_EQ(wrap_words("", 10), (Lines{""}));
}

TEST(HelpFormat, NoLineStartsWithADashWhenAWordCanGoWithIt) {
  EXPECT_EQ(wrap_words("use it with --per-rank", 12), (Lines{"use it", "with --per-rank"}));
  EXPECT_EQ(wrap_words("x --long-option", 4), (Lines{"x", "--long-option"})) << "alone: nothing to carry";
}

TEST(HelpFormat, OptionsFitEightyColumns) {
  CLI::App app{"a program whose description is long enough to need two lines of eighty columns each, "
               "or more", "prog"};
  app.formatter(std::make_shared<WrappedHelp>());
  bool flag = false;
  app.add_flag("--flag", flag,
               "a description long enough to wrap under its column, with words such as --other "
               "that must not start a line of their own");
  const std::string help = app.help();
  std::istringstream in(help);
  size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    EXPECT_LE(line.size(), WrappedHelp::kWidth) << line;
    // A continuation line, in the description's column.
    const size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && first >= 30) {
      EXPECT_NE(line[first], '-') << line;
    }
  }
  EXPECT_NE(help.find("  --flag                      a description long enough to wrap under its\n"
                      "                              column"),
            std::string::npos)
      << help;
}

}  // namespace
}  // namespace hpcl::analysis
