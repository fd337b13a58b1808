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
  EXPECT_EQ(l->tstate_thread_id, h.tstate_thread_id);
  EXPECT_EQ(l->tstate_cframe, h.tstate_cframe);
  EXPECT_EQ(l->cframe_current_frame, h.cframe_current_frame);
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

// A state the interpreter still points at after it unmapped the state's frames (a thread ending,
// the interpreter finalizing): the reader finds nothing there instead of faulting.
TEST(PyStackSafety, FramesUnmappedUnderAStaleStateReadAsNone) {
  const PyLayout* l = py_layout_for(0x030b02f0);
  ASSERT_NE(l, nullptr);
  alignas(8) static uint8_t runtime[4096], tstate[1024], cframe[64];
  const long page = sysconf(_SC_PAGESIZE);
  void* gone = mmap(nullptr, size_t(page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  munmap(gone, size_t(page));
  auto put = [](uint8_t* base, uint32_t at, uint64_t v) { std::memcpy(base + at, &v, sizeof v); };
  put(runtime, l->runtime_gil_holder, reinterpret_cast<uint64_t>(tstate));
  put(tstate, l->tstate_thread_id, uint64_t(pthread_self()));
  put(tstate, l->tstate_cframe, reinterpret_cast<uint64_t>(cframe));
  put(cframe, l->cframe_current_frame, reinterpret_cast<uint64_t>(gone));
  PyTarget t{reinterpret_cast<uint64_t>(runtime), 0x1000, l};
  PyRawFrame raw[4];
  EXPECT_EQ(py_read_stack(t, raw, 4), 0);
  // And a state pointer that itself points at nothing.
  put(runtime, l->runtime_gil_holder, reinterpret_cast<uint64_t>(gone));
  EXPECT_EQ(py_read_stack(t, raw, 4), 0);
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
