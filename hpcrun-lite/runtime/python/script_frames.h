// The frames of interpreted code the process met, each (file, function, line) once, by a small
// integer id. A call path holds a Python frame as a tagged "address" (script_frame_address) in
// place of a code address; the writer turns the tag into a frame of the profile's [python]
// pseudo-module and the table into its SCRIPT_FRAMES section (docs/FORMAT.md).
//
// Interning is lock-free and allocates nothing, so the sample handler may intern the frames of
// the code it interrupted: storage is mapped once (reserve(), when an interpreter is found), an
// entry's id and text are claimed with atomic adds, and the entry is published in the index by a
// compare-and-swap. Two threads interning one new frame at once may both write it; the loser's
// entry is a duplicate, which the format allows, and every later lookup finds the winner's.
// Entries are never freed, so ids stay valid for the life of the process.
#pragma once

#include <atomic>
#include <cstdint>

namespace hpcrun {

// Bits 48-62 of a code address are copies of bit 47 on x86-64; a value with bit 63 set and
// bits 48-62 clear is no address, user or kernel.
inline constexpr uint64_t kScriptFrameTag = uint64_t{1} << 63;
inline constexpr uint64_t script_frame_address(uint32_t id) { return kScriptFrameTag | id; }
inline constexpr bool is_script_frame_address(uint64_t a) { return (a >> 48) == 0x8000; }
inline constexpr uint32_t script_frame_id(uint64_t a) { return uint32_t(a); }

struct ScriptFrameEntry {
  uint64_t hash;
  const char* file;
  const char* function;
  uint32_t file_len, function_len;
  uint32_t line;
  std::atomic<uint32_t> ready;  // 1 once the fields above are written
};

class ScriptFrames {
 public:
  static constexpr uint32_t kMaxFrames = 1u << 16;
  static constexpr uint32_t kNoFrame = 0xffffffffu;

  // Maps the storage (not signal-safe; idempotent). False when it cannot be mapped: interning
  // then always fails.
  bool reserve();
  // The id of (file, function, line), created if new; kNoFrame when the table is full or not
  // reserved. Async-signal-safe.
  uint32_t intern(const char* file, uint32_t file_len, const char* function, uint32_t function_len,
                  uint32_t line);
  // Ids below size() were claimed; an entry is readable once get() returns it.
  uint32_t size() const {
    uint32_t n = next_.load(std::memory_order_acquire);
    return n < kMaxFrames ? n : kMaxFrames;
  }
  const ScriptFrameEntry* get(uint32_t id) const;

 private:
  static constexpr uint32_t kSlots = kMaxFrames * 2;  // open addressing, load <= 1/2
  static constexpr uint64_t kTextBytes = uint64_t{64} << 20;  // virtual; touched as used

  std::atomic<ScriptFrameEntry*> entries_{nullptr};
  std::atomic<uint32_t>* slots_ = nullptr;  // id + 1, 0 = empty
  char* text_ = nullptr;
  std::atomic<uint64_t> text_used_{0};
  std::atomic<uint32_t> next_{0};
};

extern ScriptFrames g_script_frames;

}  // namespace hpcrun
