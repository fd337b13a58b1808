// A strict little JSON parser for the tests: it refuses anything RFC 8259 refuses (trailing
// commas, bare control characters, invalid escapes, trailing garbage), so "it parses" means the
// report is valid JSON, and the tree it returns lets tests check the schema field by field.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hpcl::testing {

struct Json {
  enum Type { Null, Bool, Number, String, Array, Object } type = Null;
  bool boolean = false;
  double number = 0;
  std::string text;  // String; for Number, the literal as written
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  const Json& operator[](const std::string& k) const {
    auto it = fields.find(k);
    if (type != Object || it == fields.end()) throw std::runtime_error("no field " + k);
    return it->second;
  }
  const Json& operator[](size_t i) const {
    if (type != Array || i >= items.size()) throw std::runtime_error("no item " + std::to_string(i));
    return items[i];
  }
  bool has(const std::string& k) const { return type == Object && fields.count(k) > 0; }
  uint64_t u64() const {
    if (type != Number || text.find_first_of(".eE-") != std::string::npos)
      throw std::runtime_error("not an unsigned integer: " + text);
    return std::stoull(text);
  }
};

class JsonParser {
 public:
  static Json parse(const std::string& s) {
    JsonParser p(s);
    p.ws();
    Json v = p.value();
    p.ws();
    if (p.i_ != s.size()) p.fail("trailing characters");
    return v;
  }

 private:
  explicit JsonParser(const std::string& s) : s_(s) {}
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at byte " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(const char* lit) {
    for (const char* p = lit; *p; ++p)
      if (!eat(*p)) fail(std::string("expected ") + lit);
  }
  Json value() {
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    char c = s_[i_];
    if (c == '{') {
      v.type = Json::Object;
      ++i_;
      ws();
      if (eat('}')) return v;
      do {
        ws();
        if (i_ >= s_.size() || s_[i_] != '"') fail("expected a key");
        std::string k = string();
        ws();
        if (!eat(':')) fail("expected ':'");
        ws();
        if (v.fields.count(k)) fail("duplicate key " + k);
        v.fields[k] = value();
        ws();
      } while (eat(','));
      if (!eat('}')) fail("expected '}'");
    } else if (c == '[') {
      v.type = Json::Array;
      ++i_;
      ws();
      if (eat(']')) return v;
      do {
        ws();
        v.items.push_back(value());
        ws();
      } while (eat(','));
      if (!eat(']')) fail("expected ']'");
    } else if (c == '"') {
      v.type = Json::String;
      v.text = string();
    } else if (c == 't') {
      expect("true");
      v.type = Json::Bool;
      v.boolean = true;
    } else if (c == 'f') {
      expect("false");
      v.type = Json::Bool;
    } else if (c == 'n') {
      expect("null");
    } else {
      v.type = Json::Number;
      size_t start = i_;
      eat('-');
      if (eat('0')) {
      } else if (!digits()) {
        fail("bad value");
      }
      if (eat('.') && !digits()) fail("bad fraction");
      if ((eat('e') || eat('E'))) {
        if (!eat('+')) eat('-');
        if (!digits()) fail("bad exponent");
      }
      v.text = s_.substr(start, i_ - start);
      v.number = std::stod(v.text);
    }
    return v;
  }
  bool digits() {
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > start;
  }
  std::string string() {
    ++i_;  // opening quote
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return out;
      if (c < 0x20) fail("control character in string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated escape");
      char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          unsigned cp = std::stoul(s_.substr(i_, 4), nullptr, 16);
          i_ += 4;
          if (cp >= 0x80) fail("test parser only decodes ASCII \\u escapes");
          out += static_cast<char>(cp);
          break;
        }
        default: fail("bad escape");
      }
    }
  }
  const std::string& s_;
  size_t i_ = 0;
};

}  // namespace hpcl::testing
