// The stack reader of py_stack.h.
#include "python/py_stack.h"

#include <pthread.h>

#include <cstring>
#include <initializer_list>

#include "loader/dynamic_tls.h"
#include "python/py_linetable.h"

namespace hpcrun {
namespace {

// A pointer the interpreter could have made: non-null, word-aligned, in the user half of the
// address space and above the page the kernel never maps.
bool plausible(uint64_t p) { return p >= 4096 && p < (uint64_t{1} << 47) && (p & 7) == 0; }

template <typename T>
T load(uint64_t addr) {
  T v;
  memcpy(&v, reinterpret_cast<const void*>(addr), sizeof v);
  return v;
}

uint64_t word(uint64_t addr) { return load<uint64_t>(addr); }

bool is_code(const PyTarget& t, uint64_t code) {
  return plausible(code) && word(code + t.layout->object_type) == t.code_type;
}

// The UTF-8 of a compact str object into out[0, cap), cut at a character boundary; its length.
// Compact strs keep their characters inside the object: 1 byte each when ASCII (after the ASCII
// header) or Latin-1, 2 or 4 when wider (after the longer compact header).
uint32_t str_utf8(const PyLayout& l, uint64_t str, char* out, uint32_t cap) {
  if (!plausible(str)) return 0;
  int64_t length = load<int64_t>(str + l.str_length);
  uint32_t state = load<uint32_t>(str + l.str_state);
  // state: interned:2, kind:3, compact:1, ascii:1, ready:1 (3.11)
  uint32_t kind = (state >> 2) & 7;
  bool compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
  if (!compact || length < 0 || length > (1 << 20)) return 0;
  uint64_t data = str + (ascii ? l.str_ascii_data : l.str_compact_data);
  uint32_t n = 0;
  for (int64_t i = 0; i < length; ++i) {
    uint32_t c = kind == 1 ? load<uint8_t>(data + i) : kind == 2 ? load<uint16_t>(data + 2 * i)
                                                                 : load<uint32_t>(data + 4 * i);
    char enc[4];
    uint32_t len;
    if (c < 0x80) {
      enc[0] = char(c);
      len = 1;
    } else if (c < 0x800) {
      enc[0] = char(0xc0 | (c >> 6));
      enc[1] = char(0x80 | (c & 63));
      len = 2;
    } else if (c < 0x10000) {
      enc[0] = char(0xe0 | (c >> 12));
      enc[1] = char(0x80 | ((c >> 6) & 63));
      enc[2] = char(0x80 | (c & 63));
      len = 3;
    } else {
      enc[0] = char(0xf0 | ((c >> 18) & 7));
      enc[1] = char(0x80 | ((c >> 12) & 63));
      enc[2] = char(0x80 | ((c >> 6) & 63));
      enc[3] = char(0x80 | (c & 63));
      len = 4;
    }
    if (n + len > cap) break;
    memcpy(out + n, enc, len);
    n += len;
  }
  return n;
}

// A word read through the kernel (dynamic_tls.h): 0 where nothing is mapped, instead of a fault.
// Where the kernel refuses such reads, a plain load.
uint64_t checked_word(uint64_t addr) {
  uint64_t v = 0;
  if (safe_read(addr, &v, sizeof v)) return v;
  return safe_read_works() ? 0 : word(addr);
}

// Loads through the kernel or plainly: see py_read_stack.
struct Reader {
  bool through_kernel;
  uint64_t operator()(uint64_t addr) const { return through_kernel ? checked_word(addr) : word(addr); }
};

// This thread's state, or 0. First the thread's own slot of the interpreter's pthread key (a read
// of the thread's key array in glibc: no lock, no system call): it holds the thread's live state,
// or null, for the interpreter clears it before it frees the state (a key the interpreter has
// not made, or deleted, is not read: its number would be another library's). A thread that holds
// the GIL under a state the key does not keep (a subinterpreter's) is found as the GIL's holder,
// which may be another thread's state, freed as it is read: through the kernel.
uint64_t own_state(const PyTarget& t, Reader read) {
  const PyLayout& l = *t.layout;
  const uint64_t self = uint64_t(pthread_self());
  uint64_t tstate = 0;
  if (load<int>(t.runtime + l.runtime_tss_initialized))
    tstate = reinterpret_cast<uint64_t>(pthread_getspecific(load<pthread_key_t>(t.runtime + l.runtime_tss_key)));
  if (plausible(tstate) && read(tstate + l.tstate_thread_id) == self) return tstate;
  tstate = word(t.runtime + l.runtime_gil_holder);
  if (plausible(tstate) && checked_word(tstate + l.tstate_thread_id) == self) return tstate;
  return 0;
}

}  // namespace

int py_read_stack(const PyTarget& t, PyRawFrame* out, int max) {
  if (!t.layout || !plausible(t.runtime)) return 0;
  const PyLayout& l = *t.layout;
  // While the interpreter finalizes it frees the states of threads that still run (daemon
  // threads): everything down to the innermost code object is then read through the kernel.
  Reader read{word(t.runtime + l.runtime_finalizing) != 0};
  const uint64_t tstate = own_state(t, read);
  if (!tstate) return 0;
  uint64_t cframe = read(tstate + l.tstate_cframe);
  if (!plausible(cframe)) return 0;
  uint64_t frame = read(cframe + l.cframe_current_frame);
  if (!plausible(frame)) return 0;
  // Returning out of the first frame of a chunk, the interpreter unmaps the chunk before it points
  // the thread at the frame below, and a thread ending unmaps all its chunks: a handler may find
  // the innermost frame in a chunk that is gone. The interpreter moves the state off a chunk
  // before it frees it, so a frame inside the state's current chunk is alive and read plainly;
  // any other (a generator's frame lives in the generator; a push caught half-way) through the
  // kernel. Outer frames are in chunks as old or older, alive while the innermost is.
  if (!read.through_kernel) {
    uint64_t chunk = word(tstate + l.tstate_datastack_chunk);
    read.through_kernel = !plausible(chunk) || frame < chunk || frame - chunk >= word(chunk + l.chunk_size);
  }
  if (uint64_t code = read(frame + l.frame_code); !plausible(code) || read(code + l.object_type) != t.code_type)
    return 0;
  int n = 0;
  // A chain longer than this is one the reader went astray in (or a recursion it need not show).
  for (int hops = 0; plausible(frame) && n < max && hops < 4096; ++hops) {
    uint64_t code = word(frame + l.frame_code);
    if (!is_code(t, code)) break;
    uint64_t prev_instr = word(frame + l.frame_prev_instr);
    int64_t unit = (int64_t(prev_instr) - int64_t(code + l.code_bytecode)) / 2;
    // A frame whose first instruction has not started yet (being set up) is left out, as the
    // interpreter's own tracebacks leave it out.
    if (unit >= 0) out[n++] = PyRawFrame{code, unit};
    frame = word(frame + l.frame_previous);
  }
  return n;
}

uint64_t py_frame_key(const PyTarget& t, const PyRawFrame& f) {
  const PyLayout& l = *t.layout;
  uint64_t h = f.code * 0x9e3779b97f4a7c15ull;
  for (uint64_t v : {uint64_t(f.unit), word(f.code + l.code_qualname), word(f.code + l.code_filename),
                     uint64_t(load<uint32_t>(f.code + l.code_firstlineno))})
    h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
  return h ? h : 1;
}

bool py_frame_text(const PyTarget& t, const PyRawFrame& f, PyFrameText* out) {
  if (!t.layout || !is_code(t, f.code)) return false;
  const PyLayout& l = *t.layout;
  out->file_len = str_utf8(l, word(f.code + l.code_filename), out->file, PyFrameText::kMaxFile);
  out->function_len =
      str_utf8(l, word(f.code + l.code_qualname), out->function, PyFrameText::kMaxFunction);
  if (out->function_len == 0) return false;
  out->line = 0;
  uint64_t table = word(f.code + l.code_linetable);
  if (plausible(table)) {
    int64_t size = load<int64_t>(table + l.var_size);
    if (size > 0 && size < (1 << 24))
      out->line = py311_line_of(reinterpret_cast<const uint8_t*>(table + l.bytes_data), size_t(size),
                                load<int32_t>(f.code + l.code_firstlineno), f.unit);
  }
  return true;
}

}  // namespace hpcrun
