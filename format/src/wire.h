// Little-endian byte encoding for the profile format (docs/FORMAT.md "Conventions"). Values are
// written and read one field at a time, never as struct dumps, so the bytes do not depend on the
// compiler's layout or the host's byte order. The reader checks every access against the end of
// its buffer and remembers where it first ran out, so a parser can read a whole record and test
// once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <bit>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace hpcl::wire {

// Appends to a byte vector.
class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}

  void u8(uint8_t v) { out_.push_back(v); }
  void u16(uint16_t v) { put(v, 2); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void str(std::string_view s);
  // resize + memcpy rather than insert: gcc 12 at -O3 misreports insert of a small constant
  // array as an overflow (-Wstringop-overflow), which breaks Release builds with -Werror.
  void bytes(const uint8_t* data, size_t n) {
    size_t old = out_.size();
    out_.resize(old + n);
    if (n) std::memcpy(out_.data() + old, data, n);
  }

  size_t size() const { return out_.size(); }
  // Overwrites a u64 written earlier at `pos`: section lengths are known only after the body.
  void patch_u64(size_t pos, uint64_t v);

 private:
  // Inline and one append per field: a process profile is millions of fields, and a byte at a
  // time through an out-of-line call was most of the encoder's time.
  void put(uint64_t v, int n) {
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    size_t old = out_.size();
    out_.resize(old + static_cast<size_t>(n));
    std::memcpy(out_.data() + old, b, static_cast<size_t>(n));
  }
  std::vector<uint8_t>& out_;
};

// Reads from a borrowed byte range. After the first read past the end every further read returns
// zero and ok() stays false; failed_at() is the offset of the read that did not fit.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t u8() { return static_cast<uint8_t>(get(1)); }
  uint16_t u16() { return static_cast<uint16_t>(get(2)); }
  uint32_t u32() { return static_cast<uint32_t>(get(4)); }
  uint64_t u64() { return get(8); }
  std::string str();
  // Skips n bytes (a section this reader does not know).
  void skip(uint64_t n);
  // The next unread byte: a hot loop that has checked remaining() reads fixed-size records there
  // with load_le32/64 and then skip()s them.
  const uint8_t* cursor() const { return data_ + pos_; }

  bool ok() const { return ok_; }
  size_t pos() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  size_t failed_at() const { return failed_at_; }
  // True if `count` records of at least `min_size` bytes each can still fit. Checked before
  // reserving, so a corrupt count cannot make the reader allocate far more than the input.
  bool can_hold(uint64_t count, size_t min_size) const { return count <= remaining() / min_size; }

 private:
  uint64_t get(int n);
  bool take(uint64_t n);
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t failed_at_ = 0;
  bool ok_ = true;
};

// Fixed-position accessors for the header.
inline uint64_t load_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The same for the hot loops of the tree reader: one load (and a byte swap on a big-endian host).
inline uint32_t load_le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}
inline uint64_t load_le64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
inline uint16_t load_le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

}  // namespace hpcl::wire
