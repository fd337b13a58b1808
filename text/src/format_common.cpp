// Shared text helpers for the formatters (see format_common.h).
#include "hpcl/text/format_common.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "hpcl/text/cxx_names.h"  // last_scope

namespace hpcl::analysis {
namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

// Byte offset after the first `cols` code points.
size_t prefix_bytes(std::string_view s, size_t cols) {
  size_t i = 0;
  for (size_t seen = 0; i < s.size(); ++i) {
    if (!is_continuation(s[i])) {
      if (seen == cols) break;
      ++seen;
    }
  }
  return i;
}

// The cut of `s` to `width` columns with "…" between its first `head` columns and the rest of
// the tail.
std::string elide(std::string_view s, size_t head, size_t width) {
  size_t w = display_width(s);
  if (w <= width) return std::string(s);
  if (width == 0) return {};
  head = std::min(head, width - 1);
  size_t tail = width - 1 - head;
  std::string out(s.substr(0, prefix_bytes(s, head)));
  out += "\u2026";
  out += s.substr(prefix_bytes(s, w - tail));
  return out;
}

// The name part shortened to `width`, keeping its last scope component.
std::string shorten_name(std::string_view f, size_t width) {
  size_t w = display_width(f);
  if (w <= width) return std::string(f);
  size_t scope = last_scope(f);
  // Code known by its bounds only, "mca_btl_vader.so!0x4d50+0x62": the address part says which.
  if (size_t bang = f.rfind("!0x"); scope == std::string_view::npos && bang != std::string_view::npos)
    scope = bang;
  if (scope != std::string_view::npos && scope > 0) {
    size_t tail = display_width(f.substr(scope));
    // At least three columns of the qualifier stay, so the scope is still recognisable.
    if (tail + 1 + 3 <= width) return elide(f, width - 1 - tail, width);
  }
  return elide(f, (width - 1) / 2 + (width - 1) % 2, width);
}

}  // namespace

std::string shorten_label(std::string_view s, size_t width) {
  if (display_width(s) <= width) return std::string(s);
  // " #2": which of several sites sharing one label this is (docs/REPORT.md); it stays, or two
  // rows would look alike.
  if (size_t hash = s.rfind(" #"); hash != std::string_view::npos && hash > 0 && hash + 2 < s.size() &&
                                   s.find_first_not_of("0123456789", hash + 2) == std::string_view::npos) {
    const std::string_view number = s.substr(hash);
    if (display_width(number) + 8 <= width)
      return shorten_label(s.substr(0, hash), width - display_width(number)) + std::string(number);
  }
  // A heap label's " ← caller" only tells sites with the same label apart (docs/REPORT.md): it
  // goes first, or the row would be named after the end of the caller's name.
  constexpr std::string_view kCallerMark = " \u2190 ";
  if (size_t mark = s.find(kCallerMark); mark != std::string_view::npos && mark > 0)
    return shorten_label(s.substr(0, mark), width);
  // The name says what it is; the location only where. A name squeezed below this many columns
  // to keep its location is worth less than the whole name without it.
  constexpr size_t kMinName = 16;
  size_t paren = s.rfind(" (");
  if (paren == std::string_view::npos || s.back() != ')' || paren == 0 ||
      s.substr(paren + 2).find('(') != std::string_view::npos)
    return shorten_name(s, width);
  std::string_view name = s.substr(0, paren), where = s.substr(paren);
  size_t wwhere = display_width(where);
  if (wwhere + std::min(kMinName, display_width(name)) <= width)
    return shorten_name(name, width - wwhere) + std::string(where);
  // Without line information the location is "(module+0xOFFSET)": the offset alone still tells
  // two sites in one function apart, where the module name adds nothing within one table. Kept
  // only beside the whole name: a cut name with an offset reads worse than the name alone.
  if (size_t plus = where.rfind("+0x"); plus != std::string_view::npos && where.find(':') == std::string_view::npos) {
    std::string offset = " (" + std::string(where.substr(plus));
    if (display_width(offset) + display_width(name) <= width) return std::string(name) + offset;
  }
  return shorten_name(name, width);
}

std::string csv_field(std::string_view raw) {
  // CSV has no escape for control characters and is read in terminals too (`column -t`, `less`):
  // they become '?' as in the text report, line breaks and tabs too (one record, one line).
  const std::string s = printable_line(raw);
  if (s.find_first_of(",\"") == std::string_view::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string human_bytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    if (!is_continuation(c)) ++n;
  return n;
}

std::string pad_left(std::string_view s, size_t width) {
  size_t w = display_width(s);
  return std::string(w < width ? width - w : 0, ' ') + std::string(s);
}

std::string pad_right(std::string_view s, size_t width) {
  size_t w = display_width(s);
  return std::string(s) + std::string(w < width ? width - w : 0, ' ');
}

std::string printable_line(std::string_view s) {
  std::string out = printable_for_terminal(s);
  for (char& c : out)
    if (c == '\n') c = '?';
  return out;
}

std::string printable_for_terminal(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') out += '\n';
    else if (c == '\t') out += ' ';
    else if (c < 0x20 || c == 0x7f) out += '?';
    else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
             static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      out += '?';
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void print_wrapped(const std::string& prefix, const std::string& text, size_t limit, std::ostream& out) {
  const size_t kWidth = limit == 0 ? 100 : std::clamp<size_t>(limit, 40, 100);
  const std::string indent(display_width(prefix), ' ');
  std::istringstream words(text);
  std::string word, line = prefix;
  while (words >> word) {
    if (display_width(line) + 1 + display_width(word) > kWidth && line.size() > prefix.size() + 1) {
      out << line << '\n';
      line = indent;
    }
    line += (line.empty() ? "" : " ") + word;
  }
  out << line << '\n';
}

}  // namespace hpcl::analysis
