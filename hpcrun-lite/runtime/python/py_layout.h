// Where CPython keeps what the runtime reads to name Python code: the thread that holds the GIL,
// its chain of interpreter frames, and each frame's code object (file, qualified name, line
// table, bytecode). These are private structures of the interpreter, laid out differently in
// every minor version (3.11 moved frames out of frame objects into per-thread chunks), so each
// minor version the runtime reads has its own table, checked against that version's headers by
// tests/unit/runtime/python/py_stack_test.cpp. A version without a table keeps native names.
// 3.13 and later describe their own layout in _Py_DebugOffsets, the first member of _PyRuntime:
// the way to read them without a table per version.
#pragma once

#include <cstdint>

namespace hpcrun {

struct PyLayout {
  uint32_t version;  // 0x030b for 3.11: PY_VERSION_HEX >> 16
  // _PyRuntimeState: the thread state of the thread that holds the GIL (null when none does),
  // and the pthread key under which each thread keeps its own (the GIL's auto thread state):
  // a thread that released the GIL (NumPy does, around its loops) is found by the key.
  uint32_t runtime_gil_holder;
  uint32_t runtime_tss_key;
  uint32_t runtime_tss_initialized;  // int: whether the key exists (Py_tss_t._is_initialized)
  // _PyRuntimeState: the state of the thread finalizing the interpreter (null until it starts).
  uint32_t runtime_finalizing;
  // PyThreadState: the pthread_t of its thread; its _PyCFrame, whose current frame is the
  // innermost Python frame of the thread.
  uint32_t tstate_thread_id;
  uint32_t tstate_cframe;
  uint32_t cframe_current_frame;
  // PyThreadState: the chunk of frames the thread pushes on now; _PyStackChunk: its size in
  // bytes, from the chunk's start.
  uint32_t tstate_datastack_chunk;
  uint32_t chunk_size;
  // _PyInterpreterFrame: its code object, the frame that called it, the last instruction
  // started (a pointer into the code object's bytecode).
  uint32_t frame_code;
  uint32_t frame_previous;
  uint32_t frame_prev_instr;
  // PyCodeObject
  uint32_t code_filename;    // str
  uint32_t code_qualname;    // str
  uint32_t code_firstlineno; // int
  uint32_t code_linetable;   // bytes
  uint32_t code_bytecode;    // the first code unit (co_code_adaptive), inside the object
  // PyObject, PyVarObject, PyBytesObject, and the compact str objects (PyASCIIObject,
  // PyCompactUnicodeObject): where a str keeps its length, its kind bits and its characters.
  uint32_t object_type;
  uint32_t var_size;
  uint32_t bytes_data;
  uint32_t str_length;
  uint32_t str_state;
  uint32_t str_ascii_data;
  uint32_t str_compact_data;
};

// The table for `version` (PY_VERSION_HEX, as the interpreter's Py_Version holds it), or null.
const PyLayout* py_layout_for(uint64_t version);

}  // namespace hpcrun
