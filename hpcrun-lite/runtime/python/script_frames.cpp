// The table of script_frames.h.
#include "python/script_frames.h"

#include <sys/mman.h>

#include <cstring>

#include "base/raw_sys.h"

namespace hpcrun {

ScriptFrames g_script_frames;

namespace {

uint64_t mix(uint64_t h, const char* s, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) h = (h ^ uint8_t(s[i])) * 0x100000001b3ull;  // FNV-1a
  return h;
}

constexpr int kReserveFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

}  // namespace

bool ScriptFrames::reserve() {
  if (entries_.load(std::memory_order_acquire)) return true;
  auto* e = static_cast<ScriptFrameEntry*>(
      raw_mmap(sizeof(ScriptFrameEntry) * kMaxFrames, PROT_READ | PROT_WRITE, kReserveFlags));
  // The index is written at random (a hash per frame): its 512 KiB made at once, not a page
  // fault for most frames interned (60-odd of a NumPy import's start-up).
  auto* s = static_cast<std::atomic<uint32_t>*>(
      raw_mmap(sizeof(uint32_t) * kSlots, PROT_READ | PROT_WRITE, kReserveFlags | MAP_POPULATE));
  auto* t = static_cast<char*>(raw_mmap(kTextBytes, PROT_READ | PROT_WRITE, kReserveFlags));
  if (!e || !s || !t) {
    if (e) raw_munmap(e, sizeof(ScriptFrameEntry) * kMaxFrames);
    if (s) raw_munmap(s, sizeof(uint32_t) * kSlots);
    if (t) raw_munmap(t, kTextBytes);
    return false;
  }
  slots_ = s;
  text_ = t;
  entries_.store(e, std::memory_order_release);
  return true;
}

uint32_t ScriptFrames::intern(const char* file, uint32_t file_len, const char* function,
                              uint32_t function_len, uint32_t line) {
  ScriptFrameEntry* entries = entries_.load(std::memory_order_acquire);
  if (!entries) return kNoFrame;
  uint64_t h = mix(mix(0xcbf29ce484222325ull, file, file_len), function, function_len);
  h = (h ^ line) * 0x100000001b3ull;
  h ^= uint64_t(file_len) << 40 ^ uint64_t(function_len) << 20;
  auto same = [&](const ScriptFrameEntry& e) {
    return e.hash == h && e.line == line && e.file_len == file_len && e.function_len == function_len &&
           memcmp(e.file, file, file_len) == 0 && memcmp(e.function, function, function_len) == 0;
  };
  uint32_t mine = kNoFrame;  // the entry this call wrote, once it has written one
  for (uint64_t i = h, probes = 0; probes < kSlots; ++i, ++probes) {
    std::atomic<uint32_t>& slot = slots_[i & (kSlots - 1)];
    uint32_t v = slot.load(std::memory_order_acquire);
    if (v == 0) {
      if (mine == kNoFrame) {
        uint32_t id = next_.fetch_add(1, std::memory_order_acq_rel);
        uint64_t at = text_used_.fetch_add(file_len + function_len, std::memory_order_relaxed);
        if (id >= kMaxFrames || at + file_len + function_len > kTextBytes) return kNoFrame;
        ScriptFrameEntry& e = entries[id];
        memcpy(text_ + at, file, file_len);
        memcpy(text_ + at + file_len, function, function_len);
        e.hash = h;
        e.file = text_ + at;
        e.function = text_ + at + file_len;
        e.file_len = file_len;
        e.function_len = function_len;
        e.line = line;
        e.ready.store(1, std::memory_order_release);
        mine = id;
      }
      if (slot.compare_exchange_strong(v, mine + 1, std::memory_order_acq_rel)) return mine;
      // Another thread (or a handler that interrupted this call) took the slot first: `v` is
      // its entry, read below like any other.
    }
    const ScriptFrameEntry& e = entries[v - 1];
    if (e.ready.load(std::memory_order_acquire) && same(e)) return v - 1;
  }
  return mine;
}

const ScriptFrameEntry* ScriptFrames::get(uint32_t id) const {
  ScriptFrameEntry* entries = entries_.load(std::memory_order_acquire);
  if (!entries || id >= size() || !entries[id].ready.load(std::memory_order_acquire)) return nullptr;
  return &entries[id];
}

}  // namespace hpcrun
