// The layouts of python/py_layout.h.
#include "python/py_layout.h"

namespace hpcrun {
namespace {

// CPython 3.11 on x86-64 (Include/internal/pycore_runtime.h, pycore_frame.h, cpython/pystate.h,
// cpython/code.h, cpython/unicodeobject.h); Debian 12's 3.11.2 measured with offsetof.
constexpr PyLayout kPy311 = {
    .version = 0x030b,
    .runtime_gil_holder = 576,  // gilstate.tstate_current
    .runtime_tss_key = 596,     // gilstate.autoTSSkey._key
    .runtime_tss_initialized = 592,
    .runtime_finalizing = 24,
    .tstate_thread_id = 152,
    .tstate_cframe = 56,
    .cframe_current_frame = 8,
    .tstate_datastack_chunk = 296,
    .chunk_size = 8,
    .frame_code = 32,
    .frame_previous = 48,
    .frame_prev_instr = 56,
    .code_filename = 112,
    .code_qualname = 128,
    .code_firstlineno = 72,
    .code_linetable = 136,
    .code_bytecode = 184,
    .object_type = 8,
    .var_size = 16,
    .bytes_data = 32,
    .str_length = 16,
    .str_state = 32,
    .str_ascii_data = 48,
    .str_compact_data = 72,
};

}  // namespace

const PyLayout* py_layout_for(uint64_t version) {
  if (((version >> 16) & 0xffff) == kPy311.version) return &kPy311;
  return nullptr;
}

}  // namespace hpcrun
