// A small streaming JSON writer: objects, arrays, strings (escaped, invalid UTF-8 replaced by
// U+FFFD so the output always parses), integers, fixed-point doubles and booleans. Pretty-printed
// with two-space indentation; a container opened "inline" stays on one line, which keeps frame
// lists readable in a diff.
#pragma once

#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hpcl::analysis {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void begin_object(bool inline_ = false) { open('{', inline_); }
  void end_object() { close('}'); }
  void begin_array(bool inline_ = false) { open('[', inline_); }
  void end_array() { close(']'); }

  // The key of the next value inside an object.
  void key(std::string_view k) {
    separate();
    write_string(k);
    out_ << ": ";
    after_key_ = true;
  }

  void value(std::string_view s) { separate(); write_string(s); }
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(bool b) { separate(); out_ << (b ? "true" : "false"); }
  void value(uint64_t v) { separate(); out_ << v; }
  void value(int64_t v) { separate(); out_ << v; }
  void value(uint32_t v) { value(static_cast<uint64_t>(v)); }
  void value(int v) { value(static_cast<int64_t>(v)); }
  void null_value() { separate(); out_ << "null"; }
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
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    out_ << buf;
  }
  void field_fixed(std::string_view k, double v, int decimals) {
    key(k);
    value_fixed(v, decimals);
  }

  // Ends the document with a newline.
  void finish() { out_ << '\n'; }

  static std::string escape(std::string_view s);

 private:
  struct Level {
    bool inline_;
    bool empty = true;
  };

  void open(char c, bool inline_) {
    separate();
    out_ << c;
    levels_.push_back(Level{inline_ || (!levels_.empty() && levels_.back().inline_)});
  }
  void close(char c) {
    Level l = levels_.back();
    levels_.pop_back();
    if (!l.empty && !l.inline_) newline();
    out_ << c;
  }
  // Comma and line break before a value (not after a key).
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (levels_.empty()) return;
    Level& l = levels_.back();
    if (!l.empty) out_ << (l.inline_ ? ", " : ",");
    if (!l.inline_) newline();
    l.empty = false;
  }
  void newline() {
    out_ << '\n';
    for (size_t i = 0; i < levels_.size(); ++i) out_ << "  ";
  }
  void write_string(std::string_view s) { out_ << '"' << escape(s) << '"'; }

  std::ostream& out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

inline std::string JsonWriter::escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
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
  return out;
}

}  // namespace hpcl::analysis
