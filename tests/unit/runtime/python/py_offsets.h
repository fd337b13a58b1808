/* What py_offsets.c reads from the interpreter's headers. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

struct PyHeaderOffsets {
  unsigned long runtime_gil_holder, runtime_tss_key, runtime_tss_initialized, runtime_finalizing, tstate_thread_id, tstate_cframe, cframe_current_frame,
      tstate_datastack_chunk, chunk_size;
  unsigned long frame_code, frame_previous, frame_prev_instr;
  unsigned long code_filename, code_qualname, code_firstlineno, code_linetable, code_bytecode;
  unsigned long object_type, var_size, bytes_data;
  unsigned long str_length, str_state, str_ascii_data, str_compact_data;
  unsigned long version;
};

void py_header_offsets(struct PyHeaderOffsets* o);
/* &_PyRuntime, which only the internal headers declare. */
void* py_runtime_address(void);

#ifdef __cplusplus
}
#endif
