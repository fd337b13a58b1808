// The Python stack reader (python/py_stack.h) against a real CPython embedded in the test: the
// layout table against the interpreter's own headers, the frames read from inside a call made by
// Python code against the source the test ran, and the line of every instruction against the
// interpreter's own PyCode_Addr2Line.
#include <Python.h>
#include <gtest/gtest.h>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "py_offsets.h"
#include "python/py_layout.h"
#include "python/py_linetable.h"
#include "python/py_stack.h"

namespace hpcrun {
namespace {

struct Seen {
  std::string file, function;
  uint32_t line;
};

PyTarget target() {
  return PyTarget{reinterpret_cast<uint64_t>(py_runtime_address()), reinterpret_cast<uint64_t>(&PyCode_Type),
                  py_layout_for(Py_Version)};
}

std::vector<Seen> g_seen, g_seen_released;
int g_other_thread_frames = -1;

std::vector<Seen> read_here() {
  std::vector<Seen> out;
  PyRawFrame raw[32];
  int n = py_read_stack(target(), raw, 32);
  for (int i = 0; i < n; ++i) {
    PyFrameText t;
    if (!py_frame_text(target(), raw[i], &t)) break;
    out.push_back({std::string(t.file, t.file_len), std::string(t.function, t.function_len), t.line});
  }
  return out;
}

PyObject* probe(PyObject*, PyObject*) {
  g_seen = read_here();
  // Another thread, without the GIL, has no Python stack to read (it is not running Python).
  std::thread([] {
    PyRawFrame raw[8];
    g_other_thread_frames = py_read_stack(target(), raw, 8);
  }).join();
  Py_RETURN_NONE;
}

// As NumPy's loops run: the GIL released, the thread still inside the Python call.
PyObject* probe_released(PyObject*, PyObject*) {
  Py_BEGIN_ALLOW_THREADS
  g_seen_released = read_here();
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

PyMethodDef g_probe_def = {"probe", probe, METH_NOARGS, nullptr};
PyMethodDef g_probe_released_def = {"probe_released", probe_released, METH_NOARGS, nullptr};

class PyStack : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Py_InitializeEx(0);
    PyObject* main = PyImport_AddModule("__main__");
    PyObject* fn = PyCFunction_New(&g_probe_def, nullptr);
    PyDict_SetItemString(PyModule_GetDict(main), "probe", fn);
    Py_DECREF(fn);
    fn = PyCFunction_New(&g_probe_released_def, nullptr);
    PyDict_SetItemString(PyModule_GetDict(main), "probe_released", fn);
    Py_DECREF(fn);
  }
  static PyObject* run(const char* source, const char* file) {
    PyObject* code = Py_CompileString(source, file, Py_file_input);
    if (!code) {
      PyErr_Print();
      return nullptr;
    }
    PyObject* globals = PyModule_GetDict(PyImport_AddModule("__main__"));
    PyObject* r = PyEval_EvalCode(code, globals, globals);
    if (!r) PyErr_Print();
    Py_DECREF(code);
    Py_XDECREF(r);
    return globals;
  }
};

TEST(PyLayout, MatchesTheHeadersOfThisPython) {
  PyHeaderOffsets h;
  py_header_offsets(&h);
  const PyLayout* l = py_layout_for(h.version);
  ASSERT_NE(l, nullptr) << "no layout for Python " << (h.version >> 24) << "."
                        << ((h.version >> 16) & 0xff) << ", the Python the tests embed";
  EXPECT_EQ(l->runtime_gil_holder, h.runtime_gil_holder);
  EXPECT_EQ(l->runtime_tss_key, h.runtime_tss_key);
  EXPECT_EQ(l->runtime_tss_initialized, h.runtime_tss_initialized);
  EXPECT_EQ(l->runtime_finalizing, h.runtime_finalizing);
  EXPECT_EQ(l->tstate_thread_id, h.tstate_thread_id);
  EXPECT_EQ(l->tstate_cframe, h.tstate_cframe);
  EXPECT_EQ(l->cframe_current_frame, h.cframe_current_frame);
  EXPECT_EQ(l->tstate_datastack_chunk, h.tstate_datastack_chunk);
  EXPECT_EQ(l->chunk_size, h.chunk_size);
  EXPECT_EQ(l->frame_code, h.frame_code);
  EXPECT_EQ(l->frame_previous, h.frame_previous);
  EXPECT_EQ(l->frame_prev_instr, h.frame_prev_instr);
  EXPECT_EQ(l->code_filename, h.code_filename);
  EXPECT_EQ(l->code_qualname, h.code_qualname);
  EXPECT_EQ(l->code_firstlineno, h.code_firstlineno);
  EXPECT_EQ(l->code_linetable, h.code_linetable);
  EXPECT_EQ(l->code_bytecode, h.code_bytecode);
  EXPECT_EQ(l->object_type, h.object_type);
  EXPECT_EQ(l->var_size, h.var_size);
  EXPECT_EQ(l->bytes_data, h.bytes_data);
  EXPECT_EQ(l->str_length, h.str_length);
  EXPECT_EQ(l->str_state, h.str_state);
  EXPECT_EQ(l->str_ascii_data, h.str_ascii_data);
  EXPECT_EQ(l->str_compact_data, h.str_compact_data);
}

TEST(PyLayout, OtherVersionsHaveNone) {
  EXPECT_EQ(py_layout_for(0x030a0cf0), nullptr);  // 3.10.12
  EXPECT_EQ(py_layout_for(0x030c00f0), nullptr);  // 3.12.0
  EXPECT_NE(py_layout_for(0x030b07f0), nullptr);  // 3.11.7: one layout for the whole minor
}

TEST_F(PyStack, ReadsTheFramesOfTheCallingThread) {
  g_seen.clear();
  run("class Solver:\n"               // 1
      "    def norm(self):\n"         // 2
      "        x = 1\n"               // 3
      "        return probe()\n"      // 4
      "def step(s):\n"                // 5
      "    y = [1, 2]\n"              // 6
      "    return s.norm()\n"         // 7
      "\n"                            // 8
      "step(Solver())\n",             // 9
      "/work/solver_ü.py");
  ASSERT_EQ(g_seen.size(), 3u);
  EXPECT_EQ(g_seen[0].function, "Solver.norm");
  EXPECT_EQ(g_seen[0].line, 4u);
  EXPECT_EQ(g_seen[0].file, "/work/solver_ü.py");  // a non-ASCII path, back as UTF-8
  EXPECT_EQ(g_seen[1].function, "step");
  EXPECT_EQ(g_seen[1].line, 7u);
  EXPECT_EQ(g_seen[2].function, "<module>");
  EXPECT_EQ(g_seen[2].line, 9u);
  EXPECT_EQ(g_other_thread_frames, 0);
}

TEST_F(PyStack, ReadsThemWithTheGilReleased) {
  g_seen_released.clear();
  run("def loop():\n"
      "    return probe_released()\n"
      "loop()\n",
      "released.py");
  ASSERT_EQ(g_seen_released.size(), 2u);
  EXPECT_EQ(g_seen_released[0].function, "loop");
  EXPECT_EQ(g_seen_released[0].line, 2u);
  EXPECT_EQ(g_seen_released[1].function, "<module>");
}

TEST_F(PyStack, NoPythonFramesOutsideACall) {
  // The test's own thread holds the GIL but runs no Python code now.
  PyRawFrame raw[4];
  EXPECT_EQ(py_read_stack(target(), raw, 4), 0);
}

TEST_F(PyStack, EveryInstructionHasTheInterpretersLine) {
  PyObject* g = run("def f(a, b):\n"
                    "    if a:\n"
                    "        b = [x * 2\n"
                    "             for x in range(3)]\n"
                    "\n"
                    "\n"
                    "\n"
                    "    return (a,\n"
                    "            b)\n",
                    "lines.py");
  ASSERT_NE(g, nullptr);
  PyObject* f = PyDict_GetItemString(g, "f");
  ASSERT_NE(f, nullptr);
  auto* code = reinterpret_cast<PyCodeObject*>(PyFunction_GetCode(f));
  PyObject* table = code->co_linetable;
  const auto* bytes = reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(table));
  Py_ssize_t units = Py_SIZE(code);
  ASSERT_GT(units, 10);
  for (Py_ssize_t u = 0; u < units; ++u) {
    int want = PyCode_Addr2Line(code, int(u * 2));
    EXPECT_EQ(py311_line_of(bytes, size_t(PyBytes_GET_SIZE(table)), code->co_firstlineno, u),
              uint32_t(want < 0 ? 0 : want))
        << "code unit " << u;
  }
}

// A fake interpreter in the test's own memory, its state this thread's by the interpreter's key:
// for the states the interpreter leaves behind, which a real one reaches only in a race.
class PyStackSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    l = py_layout_for(0x030b02f0);
    ASSERT_NE(l, nullptr);
    page = size_t(sysconf(_SC_PAGESIZE));
    gone = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(gone, MAP_FAILED);
    munmap(gone, page);
    ASSERT_EQ(pthread_key_create(&key, nullptr), 0);
    ASSERT_EQ(pthread_setspecific(key, tstate), 0);
    put(runtime, l->runtime_tss_initialized, 1);
    std::memcpy(runtime + l->runtime_tss_key, &key, sizeof key);
    put(tstate, l->tstate_thread_id, uint64_t(pthread_self()));
    put(tstate, l->tstate_cframe, addr(cframe));
    put(tstate, l->tstate_datastack_chunk, addr(chunk));
    put(chunk, l->chunk_size, sizeof chunk);
    // One frame in the chunk, running its code's fourth code unit.
    put(chunk, 64 + l->frame_code, addr(code));
    put(chunk, 64 + l->frame_prev_instr, addr(code) + l->code_bytecode + 2 * 3);
    put(code, l->object_type, kCodeType);
  }
  void TearDown() override { pthread_key_delete(key); }
  static uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }
  static void put(uint8_t* base, uint32_t at, uint64_t v) { std::memcpy(base + at, &v, sizeof v); }
  int read() {
    PyRawFrame raw[4];
    return py_read_stack(PyTarget{addr(runtime), kCodeType, l}, raw, 4);
  }
  static constexpr uint64_t kCodeType = 0x1000;
  const PyLayout* l = nullptr;
  size_t page = 0;
  void* gone = nullptr;
  pthread_key_t key{};
  alignas(8) uint8_t runtime[4096] = {}, tstate[1024] = {}, cframe[64] = {}, chunk[1024] = {}, code[512] = {};
};

TEST_F(PyStackSafety, AFrameInTheCurrentChunkReads) {
  put(cframe, l->cframe_current_frame, addr(chunk) + 64);
  PyRawFrame raw[4];
  ASSERT_EQ(py_read_stack(PyTarget{addr(runtime), kCodeType, l}, raw, 4), 1);
  EXPECT_EQ(raw[0].code, addr(code));
  EXPECT_EQ(raw[0].unit, 3);
}

// Returning out of a chunk's first frame, the interpreter unmaps the chunk before it moves the
// thread to the frame below: the innermost frame outside the current chunk is read through the
// kernel, and one that is gone reads as no stack instead of a fault.
TEST_F(PyStackSafety, AFrameOutsideTheCurrentChunkThatIsGoneReadsAsNone) {
  put(cframe, l->cframe_current_frame, addr(gone));
  EXPECT_EQ(read(), 0);
  // A thread ending: its state has no chunk left.
  put(tstate, l->tstate_datastack_chunk, 0);
  EXPECT_EQ(read(), 0);
}

// While the interpreter finalizes, it frees the states of threads that still run: a state under
// the key, or holding the GIL, that is gone reads as no stack.
TEST_F(PyStackSafety, StatesGoneWhileTheInterpreterFinalizesReadAsNone) {
  put(runtime, l->runtime_finalizing, addr(tstate));
  ASSERT_EQ(pthread_setspecific(key, gone), 0);
  EXPECT_EQ(read(), 0);
  put(runtime, l->runtime_tss_initialized, 0);
  put(runtime, l->runtime_gil_holder, addr(gone));
  EXPECT_EQ(read(), 0);
}

// Another thread's state holding the GIL may be freed as it is read: read through the kernel.
TEST_F(PyStackSafety, AGilHolderThatIsGoneReadsAsNone) {
  put(runtime, l->runtime_tss_initialized, 0);
  put(runtime, l->runtime_gil_holder, addr(gone));
  EXPECT_EQ(read(), 0);
}

TEST(PyLineTable, ForeignBytesGiveNoLine) {
  const uint8_t not_a_table[] = {0x01, 0x02, 0x03};
  EXPECT_EQ(py311_line_of(not_a_table, sizeof not_a_table, 10, 0), 0u);
  EXPECT_EQ(py311_line_of(nullptr, 0, 10, 0), 0u);
  // One entry: form 13 (no columns), 2 code units, line +3 as signed varint 6.
  const uint8_t one[] = {0x80 | (13 << 3) | 1, 6};
  EXPECT_EQ(py311_line_of(one, sizeof one, 10, 1), 13u);
  EXPECT_EQ(py311_line_of(one, sizeof one, 10, 2), 0u);  // past the table
  EXPECT_EQ(py311_line_of(one, sizeof one, 10, -1), 0u);
}

}  // namespace
}  // namespace hpcrun
