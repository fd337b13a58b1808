// The allocation paths of py_paths.h.
#include "python/py_paths.h"

#include "python/py_probe.h"
#include "python/script_frames.h"

namespace hpcrun {

int python_alloc_path(uint64_t* frames, int n, int max) {
  const PyTarget* t = python_target();
  if (!t || n == 0 || python_interpreter_code(frames[0])) return n;
  int k = 0;
  while (k < n && !python_interpreter_code(frames[k])) ++k;
  if (k == n) return n;  // not called from the interpreter
  // The native frames down to the interpreter's entry (the extension's own call path), at most
  // half the path: the Python frames are what names the block.
  int keep = k + 1 < max / 2 ? k + 1 : max / 2;
  PyRawFrame raw[64];
  int room = max - keep < 64 ? max - keep : 64;
  int np = py_read_stack(*t, raw, room);
  if (np == 0) return n;
  int out = keep;
  for (int i = 0; i < np; ++i) {
    PyFrameText text;
    if (!py_frame_text(*t, raw[i], &text)) break;
    uint32_t id = g_script_frames.intern(text.file, text.file_len, text.function,
                                         text.function_len, text.line);
    if (id == ScriptFrames::kNoFrame) break;
    frames[out++] = script_frame_address(id);
  }
  return out == keep ? n : out;
}

}  // namespace hpcrun
