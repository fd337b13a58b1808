// A small streaming JSON writer: objects, arrays, strings (escaped, invalid UTF-8 replaced by
// U+FFFD so the output always parses), integers, fixed-point doubles and booleans. Pretty-printed
// with two-space indentation; a container opened "inline" stays on one line, which keeps frame
// lists readable in a diff. The text goes through a buffer of its own, handed to the stream in
// large pieces: a report of millions of frames made one `<<` per token spends most of its time
// in the stream's per-call overhead (std::cout is synchronised with stdio).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hpcl::analysis {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) { buf_.reserve(kFlushAt + 4096); }
  ~JsonWriter() { flush(); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void begin_object(bool inline_ = false) { open('{', inline_); }
  void end_object() { close('}'); }
  void begin_array(bool inline_ = false) { open('[', inline_); }
  void end_array() { close(']'); }

  // The key of the next value inside an object.
  void key(std::string_view k) {
    separate();
    write_string(k);
    buf_ += ": ";
    after_key_ = true;
  }

  void value(std::string_view s) { separate(); write_string(s); }
  // (No overload for std::string: it and any type that reads as one, an InternedString, take
  // the string_view overload; a const char* would otherwise become a bool.)
  void value(const char* s) { value(std::string_view(s)); }
  void value(bool b) { separate(); buf_ += b ? "true" : "false"; }
  void value(uint64_t v) { separate(); integer(v); }
  void value(int64_t v) { separate(); integer(v); }
  void value(uint32_t v) { value(static_cast<uint64_t>(v)); }
  void value(int v) { value(static_cast<int64_t>(v)); }
  void null_value() { separate(); buf_ += "null"; }
  // A key and its value: most fields of a report are one of these.
  template <typename T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  // Fixed point, so the same input always prints the same text.
  void value_fixed(double v, int decimals) {
    separate();
    char buf[64];
    int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    buf_.append(buf, n > 0 ? std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1) : 0);
  }
  void field_fixed(std::string_view k, double v, int decimals) {
    key(k);
    value_fixed(v, decimals);
  }

  // Ends the document with a newline and hands the text to the stream.
  void finish() {
    buf_ += '\n';
    flush();
  }

  static std::string escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    escape_into(out, s);
    return out;
  }

 private:
  struct Level {
    bool inline_;
    bool empty = true;
  };

  static constexpr size_t kFlushAt = 1 << 16;

  static void escape_into(std::string& out, std::string_view s);

  void flush() {
    if (!buf_.empty()) out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }
  template <typename T>
  void integer(T v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    buf_.append(buf, r.ptr);
  }

  void open(char c, bool inline_) {
    separate();
    buf_ += c;
    levels_.push_back(Level{inline_ || (!levels_.empty() && levels_.back().inline_)});
  }
  void close(char c) {
    Level l = levels_.back();
    levels_.pop_back();
    if (!l.empty && !l.inline_) newline();
    buf_ += c;
    if (buf_.size() >= kFlushAt) flush();
  }
  // Comma and line break before a value (not after a key).
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (levels_.empty()) return;
    Level& l = levels_.back();
    if (!l.empty) buf_ += l.inline_ ? ", " : ",";
    if (!l.inline_) newline();
    l.empty = false;
  }
  void newline() {
    buf_ += '\n';
    buf_.append(2 * levels_.size(), ' ');
  }
  void write_string(std::string_view s) {
    buf_ += '"';
    escape_into(buf_, s);
    buf_ += '"';
  }

  std::ostream& out_;
  std::string buf_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

inline void JsonWriter::escape_into(std::string& out, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    // Runs of printable ASCII other than '"' and '\\' (nearly all of a report) go in one piece.
    size_t run = i;
    while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\') ++run;
    if (run > i) {
      out.append(s.substr(i, run - i));
      i = run;
      continue;
    }
    unsigned char c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence is copied; anything else becomes U+FFFD.
    size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xc0) == 0x80;
    if (ok && len == 3) {
      unsigned cp = ((c & 0x0fu) << 12) | ((p[i + 1] & 0x3fu) << 6);
      ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);  // no overlongs, no surrogates
    } else if (ok && len == 4) {
      unsigned cp = ((c & 0x07u) << 18) | ((p[i + 1] & 0x3fu) << 12);
      ok = cp >= 0x10000 && cp <= 0x10ffff;
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
}

}  // namespace hpcl::analysis
