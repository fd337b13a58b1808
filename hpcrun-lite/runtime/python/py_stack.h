// Reads the Python call stack of the calling thread out of the interpreter's memory: the code
// object and last instruction of each frame, then a frame's file, qualified name and line. It only
// loads from memory (no call into the interpreter, no lock, no allocation), so it may run in a
// signal handler; every pointer is checked to look like one before it is followed, every code
// object by its type, and a chain caught mid-update ends early instead of being followed into
// garbage. A thread reads only its own stack: the interpreter changes a thread's frames only on
// that thread, so what the thread (or its signal handler) reads is whole, or cut short where the
// handler interrupted a push or a pop.
#pragma once

#include <cstddef>
#include <cstdint>

#include "python/py_layout.h"

namespace hpcrun {

// One interpreter, as found in the process (python/py_probe.h) or given by a test.
struct PyTarget {
  uint64_t runtime = 0;    // &_PyRuntime
  uint64_t code_type = 0;  // &PyCode_Type: what a code object's type pointer must be
  const PyLayout* layout = nullptr;
};

struct PyRawFrame {
  uint64_t code;  // the code object
  int64_t unit;   // the code unit of the last instruction started
};

// The calling thread's Python frames, innermost first, at most `max`; 0 when the thread runs no
// Python code (or released the GIL outside any) or the stack does not read as one.
int py_read_stack(const PyTarget& t, PyRawFrame* out, int max);

// What the report shows of a frame. Longer names are cut (at a UTF-8 character boundary).
struct PyFrameText {
  static constexpr size_t kMaxFile = 255, kMaxFunction = 127;
  char file[kMaxFile];
  char function[kMaxFunction];
  uint32_t file_len, function_len;
  uint32_t line;  // 0: unknown
};

// The frame's file, qualified name and line; false when the code object does not read as one.
bool py_frame_text(const PyTarget& t, const PyRawFrame& f, PyFrameText* out);

// A digest of what identifies a frame's text without reading it: the code object, the
// instruction, and the code's name, file and first line as the object holds them now (a code
// object freed and another made at its address differs in them). Never 0. Async-signal-safe.
uint64_t py_frame_key(const PyTarget& t, const PyRawFrame& f);

}  // namespace hpcrun
