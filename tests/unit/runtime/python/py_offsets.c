/* The offsets of python/py_layout.h as the interpreter's own headers give them: compiled as C
   (the internal headers are not C++) against the Python the tests embed. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <internal/pycore_runtime.h>

#include <stddef.h>

#include "py_offsets.h"

void py_header_offsets(struct PyHeaderOffsets* o) {
  o->runtime_gil_holder = offsetof(_PyRuntimeState, gilstate.tstate_current);
  o->runtime_tss_key = offsetof(_PyRuntimeState, gilstate.autoTSSkey._key);
  o->runtime_tss_initialized = offsetof(_PyRuntimeState, gilstate.autoTSSkey._is_initialized);
  o->runtime_finalizing = offsetof(_PyRuntimeState, _finalizing);
  o->tstate_thread_id = offsetof(PyThreadState, thread_id);
  o->tstate_cframe = offsetof(PyThreadState, cframe);
  o->cframe_current_frame = offsetof(_PyCFrame, current_frame);
  o->tstate_datastack_chunk = offsetof(PyThreadState, datastack_chunk);
  o->chunk_size = offsetof(_PyStackChunk, size);
  o->frame_code = offsetof(_PyInterpreterFrame, f_code);
  o->frame_previous = offsetof(_PyInterpreterFrame, previous);
  o->frame_prev_instr = offsetof(_PyInterpreterFrame, prev_instr);
  o->code_filename = offsetof(PyCodeObject, co_filename);
  o->code_qualname = offsetof(PyCodeObject, co_qualname);
  o->code_firstlineno = offsetof(PyCodeObject, co_firstlineno);
  o->code_linetable = offsetof(PyCodeObject, co_linetable);
  o->code_bytecode = offsetof(PyCodeObject, co_code_adaptive);
  o->object_type = offsetof(PyObject, ob_type);
  o->var_size = offsetof(PyVarObject, ob_size);
  o->bytes_data = offsetof(PyBytesObject, ob_sval);
  o->str_length = offsetof(PyASCIIObject, length);
  o->str_state = offsetof(PyASCIIObject, state);
  o->str_ascii_data = sizeof(PyASCIIObject);
  o->str_compact_data = sizeof(PyCompactUnicodeObject);
  o->version = PY_VERSION_HEX;
}

void* py_runtime_address(void) { return &_PyRuntime; }
