// The table of script_frames.h.
#include "python/script_frames.h"

#include <cstring>

#include "base/raw_sys.h"

namespace hpcrun {

ScriptFrames g_script_frames;

namespace {

uint64_t mix(uint64_t h, const char* s, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) h = (h ^ uint8_t(s[i])) * 0x100000001b3ull;  // FNV-1a
  return h;
}

}  // namespace

bool ScriptFrames::ensure_storage() {
  if (entries_) return true;
  // Virtual sizes: 2.5 MiB of entries and 512 KiB of index, touched only as frames come.
  auto* e = static_cast<ScriptFrameEntry*>(raw_mmap(sizeof(ScriptFrameEntry) * kMaxFrames));
  auto* s = static_cast<uint32_t*>(raw_mmap(sizeof(uint32_t) * kSlots));
  if (!e || !s) {
    if (e) raw_munmap(e, sizeof(ScriptFrameEntry) * kMaxFrames);
    if (s) raw_munmap(s, sizeof(uint32_t) * kSlots);
    return false;
  }
  slots_ = s;
  entries_ = e;
  return true;
}

const char* ScriptFrames::store(const char* text, uint32_t len) {
  if (text_used_ + len > kTextChunk) {
    text_ = static_cast<char*>(raw_mmap(kTextChunk));
    if (!text_) return nullptr;
    text_used_ = 0;
  }
  char* dst = text_ + text_used_;
  memcpy(dst, text, len);
  text_used_ += len;
  return dst;
}

uint32_t ScriptFrames::intern(const char* file, uint32_t file_len, const char* function,
                              uint32_t function_len, uint32_t line) {
  uint64_t h = mix(mix(0xcbf29ce484222325ull, file, file_len), function, function_len);
  h = (h ^ line) * 0x100000001b3ull;
  h ^= uint64_t(file_len) << 40 ^ uint64_t(function_len) << 20;
  lock_.lock();
  uint32_t id = kNoFrame;
  if (ensure_storage()) {
    for (uint64_t i = h;; ++i) {
      uint32_t& slot = slots_[i & (kSlots - 1)];
      if (slot == 0) {
        uint32_t n = count_.load(std::memory_order_relaxed);
        if (n == kMaxFrames) break;
        const char* f = store(file, file_len);
        const char* fn = store(function, function_len);
        if (!f || !fn) break;
        entries_[n] = ScriptFrameEntry{h, f, fn, file_len, function_len, line};
        slot = n + 1;
        count_.store(n + 1, std::memory_order_release);
        id = n;
        break;
      }
      const ScriptFrameEntry& e = entries_[slot - 1];
      if (e.hash == h && e.line == line && e.file_len == file_len &&
          e.function_len == function_len && memcmp(e.file, file, file_len) == 0 &&
          memcmp(e.function, function, function_len) == 0) {
        id = slot - 1;
        break;
      }
    }
  }
  lock_.unlock();
  return id;
}

const ScriptFrameEntry* ScriptFrames::get(uint32_t id) const {
  return id < size() ? &entries_[id] : nullptr;
}

}  // namespace hpcrun
