// See text_wrap.h.
#include "text_wrap.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

namespace hpcrun {

namespace {

// Where the value column of `line` starts: after the last run of two or more spaces that follows
// text and starts within the first `width` characters; without one, two past the line's own
// indentation. Never past half the width, so that continuations keep room.
size_t value_column(const std::string& line, size_t width) {
  const size_t lead = line.find_first_not_of(' ');
  if (lead == std::string::npos) return 4;
  size_t col = lead + 2;
  for (size_t gap = line.find("  ", lead); gap != std::string::npos && gap < width;
       gap = line.find("  ", gap + 2)) {
    size_t next = line.find_first_not_of(' ', gap);
    if (next == std::string::npos) break;
    col = next;
    gap = next - 2;
  }
  return col > width / 2 ? 4 : col;
}

void wrap_one(const std::string& line, size_t width, std::string* out) {
  if (line.size() <= width) {
    *out += line;
    *out += '\n';
    return;
  }
  const size_t indent = value_column(line, width);
  size_t start = 0;
  bool first = true;
  while (start < line.size()) {
    const size_t room = first ? width : width - indent;
    std::string rest = line.substr(start);
    if (rest.size() <= room) {
      if (!first) out->append(indent, ' ');
      *out += rest;
      *out += '\n';
      break;
    }
    size_t cut = rest.rfind(' ', room);
    // A word longer than the room (a path) stays whole.
    if (cut == std::string::npos || cut <= (first ? indent : 0)) cut = rest.find(' ', room);
    if (cut == std::string::npos) cut = rest.size();
    if (!first) out->append(indent, ' ');
    *out += rest.substr(0, cut);
    *out += '\n';
    start += cut;
    while (start < line.size() && line[start] == ' ') ++start;
    first = false;
  }
}

}  // namespace

size_t terminal_width() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  if (const char* c = getenv("COLUMNS")) {
    long n = strtol(c, nullptr, 10);
    if (n >= 20 && n <= 10000) return size_t(n);
  }
  return 120;
}

std::string wrap_lines(const std::string& text, size_t width) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    wrap_one(text.substr(start, nl - start), width, &out);
    start = nl + 1;
  }
  return out;
}

}  // namespace hpcrun
