// The frames of interpreted code the process met, each (file, function, line) once, by a small
// integer id. An allocation path holds a Python frame as a tagged "address" (script_frame_address)
// in place of a code address; the writer turns the tag into a frame of the profile's [python]
// pseudo-module and the table into its SCRIPT_FRAMES section (docs/FORMAT.md).
//
// Entries and their text live in mmap'd storage that is never freed, so ids stay valid for the
// life of the process. Interning takes a spinlock: it is called on an allocation's slow path
// (only by the thread holding the GIL, so it is hardly ever contended), never from a signal
// handler.
#pragma once

#include <cstdint>

#include "base/spinlock.h"

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
};

class ScriptFrames {
 public:
  static constexpr uint32_t kMaxFrames = 1u << 16;
  static constexpr uint32_t kNoFrame = 0xffffffffu;

  // The id of (file, function, line), created if new; kNoFrame when the table is full.
  uint32_t intern(const char* file, uint32_t file_len, const char* function, uint32_t function_len,
                  uint32_t line);
  uint32_t size() const { return count_.load(std::memory_order_acquire); }
  const ScriptFrameEntry* get(uint32_t id) const;
  // Fork support, as AllocSites.
  void lock() { lock_.lock(); }
  void unlock() { lock_.unlock(); }

 private:
  static constexpr uint32_t kSlots = kMaxFrames * 2;  // open addressing, load <= 1/2
  static constexpr uint64_t kTextChunk = 1u << 20;
  bool ensure_storage();
  const char* store(const char* text, uint32_t len);

  ScriptFrameEntry* entries_ = nullptr;
  uint32_t* slots_ = nullptr;  // id + 1, 0 = empty
  char* text_ = nullptr;
  uint64_t text_used_ = kTextChunk;
  std::atomic<uint32_t> count_{0};
  SpinLock lock_;
};

extern ScriptFrames g_script_frames;

}  // namespace hpcrun
