// Little-endian put/get with bounds checking; see wire.h.
#include "wire.h"

namespace hpcl::wire {

void Writer::str(std::string_view s) {
  u32(static_cast<uint32_t>(s.size()));
  out_.insert(out_.end(), s.begin(), s.end());
}

void Writer::patch_u64(size_t pos, uint64_t v) {
  for (int i = 0; i < 8; ++i) out_[pos + i] = static_cast<uint8_t>(v >> (8 * i));
}

bool Reader::take(uint64_t n) {
  if (!ok_) return false;
  if (n > remaining()) {
    ok_ = false;
    failed_at_ = pos_;
    return false;
  }
  return true;
}

uint64_t Reader::get(int n) {
  if (!take(n)) return 0;
  uint64_t v = load_le(data_ + pos_, n);
  pos_ += n;
  return v;
}

std::string Reader::str() {
  uint32_t len = u32();
  if (!take(len)) return {};
  std::string s(reinterpret_cast<const char*>(data_ + pos_), len);
  pos_ += len;
  return s;
}

void Reader::skip(uint64_t n) {
  if (take(n)) pos_ += n;
}

}  // namespace hpcl::wire
