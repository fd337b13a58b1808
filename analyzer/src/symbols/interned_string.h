// A string stored once per process and shared by every holder: the function, file and module
// names of report locations. A database of a thousand ranks has millions of access-path frames
// but a few thousand distinct names; a Location holding three pointers instead of three owned
// strings is what keeps a report's memory a small multiple of the database's.
//
// It reads like a `const std::string`: it converts to `const std::string&` and to
// `std::string_view`, compares with strings by content, and has their common const members. Two
// interned strings are equal exactly when their pointers are (one pool), so equality is cheap;
// ordering compares the text. The pool only grows; interning takes a lock, so threads may share it.
#pragma once

#include <compare>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace hpcl::analysis {

class InternedString {
 public:
  InternedString() noexcept : s_(empty_string()) {}
  InternedString(std::string_view s) : s_(intern(s)) {}  // NOLINT: implicit, like a string
  InternedString(const std::string& s) : s_(intern(s)) {}  // NOLINT
  InternedString(const char* s) : s_(intern(s)) {}  // NOLINT

  const std::string& str() const noexcept { return *s_; }
  operator const std::string&() const noexcept { return *s_; }  // NOLINT
  operator std::string_view() const noexcept { return *s_; }    // NOLINT

  bool empty() const noexcept { return s_->empty(); }
  size_t size() const noexcept { return s_->size(); }
  size_t length() const noexcept { return s_->size(); }
  const char* c_str() const noexcept { return s_->c_str(); }
  const char* data() const noexcept { return s_->data(); }
  char operator[](size_t i) const noexcept { return (*s_)[i]; }
  std::string::const_iterator begin() const noexcept { return s_->begin(); }
  std::string::const_iterator end() const noexcept { return s_->end(); }
  bool starts_with(std::string_view p) const noexcept { return s_->starts_with(p); }
  bool ends_with(std::string_view p) const noexcept { return s_->ends_with(p); }
  size_t find(std::string_view p, size_t pos = 0) const noexcept { return s_->find(p, pos); }
  size_t find(char c, size_t pos = 0) const noexcept { return s_->find(c, pos); }
  size_t rfind(std::string_view p, size_t pos = std::string::npos) const noexcept { return s_->rfind(p, pos); }
  size_t rfind(char c, size_t pos = std::string::npos) const noexcept { return s_->rfind(c, pos); }
  std::string substr(size_t pos = 0, size_t n = std::string::npos) const { return s_->substr(pos, n); }
  int compare(std::string_view o) const noexcept { return std::string_view(*s_).compare(o); }

  friend bool operator==(const InternedString& a, const InternedString& b) noexcept { return a.s_ == b.s_; }
  friend bool operator==(const InternedString& a, std::string_view b) noexcept { return *a.s_ == b; }
  friend bool operator==(const InternedString& a, const std::string& b) noexcept { return *a.s_ == b; }
  friend bool operator==(const InternedString& a, const char* b) noexcept { return *a.s_ == b; }
  friend std::strong_ordering operator<=>(const InternedString& a, const InternedString& b) noexcept {
    return a.s_ == b.s_ ? std::strong_ordering::equal : *a.s_ <=> *b.s_;
  }
  friend std::strong_ordering operator<=>(const InternedString& a, std::string_view b) noexcept {
    return std::string_view(*a.s_) <=> b;
  }
  friend std::string operator+(const InternedString& a, std::string_view b) { return *a.s_ + std::string(b); }
  friend std::string operator+(std::string_view a, const InternedString& b) { return std::string(a) + *b.s_; }
  friend std::string operator+(const InternedString& a, const char* b) { return *a.s_ + b; }
  friend std::string operator+(const char* a, const InternedString& b) { return a + *b.s_; }
  friend std::string operator+(const InternedString& a, const std::string& b) { return *a.s_ + b; }
  friend std::string operator+(const std::string& a, const InternedString& b) { return a + *b.s_; }
  friend std::ostream& operator<<(std::ostream& out, const InternedString& s) { return out << *s.s_; }

  // Distinct strings interned so far (the empty string is not counted): what a test of memory
  // at scale checks instead of wall time.
  static size_t pool_size();

 private:
  static const std::string* empty_string() noexcept;
  static const std::string* intern(std::string_view s);

  const std::string* s_;
};

}  // namespace hpcl::analysis

template <>
struct std::hash<hpcl::analysis::InternedString> {
  size_t operator()(const hpcl::analysis::InternedString& s) const noexcept {
    return std::hash<const void*>()(s.data());
  }
};
