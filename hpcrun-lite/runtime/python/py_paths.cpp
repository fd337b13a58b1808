// The call paths of py_paths.h.
#include "python/py_paths.h"

#include <atomic>

#include "python/py_probe.h"
#include "python/script_frames.h"

namespace hpcrun {
namespace {

// The ids of frames already interned, by py_frame_key: the same few hundred frames recur in
// every path (an import's dozens of importlib frames, the program's loop), and reading a
// frame's strings, decoding its line table and hashing them cost more than the rest of a
// tracked allocation. One word a slot, the key's top 48 bits over the id, so that a slot
// written by two threads (or a handler) at once is one or the other, never a mix.
constexpr uint32_t kFrameCacheSlots = 4096;
std::atomic<uint64_t> g_frame_cache[kFrameCacheSlots];

uint32_t frame_id(const PyTarget& t, const PyRawFrame& raw) {
  const uint64_t key = py_frame_key(t, raw);
  std::atomic<uint64_t>& slot = g_frame_cache[key % kFrameCacheSlots];
  const uint64_t tag = key & ~uint64_t{0xffff};
  if (uint64_t v = slot.load(std::memory_order_relaxed); v && (v & ~uint64_t{0xffff}) == tag)
    return uint32_t(v & 0xffff);
  PyFrameText text;
  if (!py_frame_text(t, raw, &text)) return ScriptFrames::kNoFrame;
  uint32_t id = g_script_frames.intern(text.file, text.file_len, text.function, text.function_len,
                                       text.line);
  static_assert(ScriptFrames::kMaxFrames <= 0x10000, "an id fits the slot's low 16 bits");
  if (id != ScriptFrames::kNoFrame) slot.store(tag | id, std::memory_order_relaxed);
  return id;
}

// out[0, keep) already holds the native frames; appends the thread's Python frames after them,
// up to `max` in all. Returns the new count, or `keep` when there are none.
int append_python_frames(const PyTarget& t, uint64_t* out, int keep, int max) {
  PyRawFrame raw[64];
  int room = max - keep < 64 ? max - keep : 64;
  int np = py_read_stack(t, raw, room);
  int n = keep;
  for (int i = 0; i < np; ++i) {
    uint32_t id = frame_id(t, raw[i]);
    if (id == ScriptFrames::kNoFrame) break;
    out[n++] = script_frame_address(id);
  }
  return n;
}

// How many native frames of frames[0, n) a path through Python keeps: down to the first frame of
// the interpreter, at most half the path (the Python frames are what place it); n when the path
// never enters the interpreter.
int native_part(const uint64_t* frames, int n, int max) {
  int k = 0;
  while (k < n && !python_interpreter_code(frames[k])) ++k;
  if (k == n) return n;
  return k + 1 < max / 2 ? k + 1 : max / 2;
}

}  // namespace

int python_alloc_path(uint64_t* frames, int n, int max) {
  const PyTarget* t = python_target();
  if (!t || n == 0 || python_interpreter_code(frames[0])) return n;
  int keep = native_part(frames, n, max);
  if (keep == n) return n;
  int out = append_python_frames(*t, frames, keep, max);
  return out == keep ? n : out;
}

int python_sample_path(const uint64_t* frames, int n, uint64_t* out, int max) {
  const PyTarget* t = python_target();
  if (!t || n == 0) return -1;
  int keep = native_part(frames, n, max);
  if (keep == n) return -1;
  for (int i = 0; i < keep; ++i) out[i] = frames[i];
  int count = append_python_frames(*t, out, keep, max);
  return count == keep ? -1 : count;
}

}  // namespace hpcrun
