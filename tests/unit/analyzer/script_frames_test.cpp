// Python frames in the analyzer: the merge maps each input's SCRIPT_FRAMES into one list (the
// same frame of two processes is one frame, its sites one site), in canonical order whatever the
// inputs' order; the symbolizer answers them from that list; a heap variable allocated from
// Python is named by the program's own statement, past NumPy's Python code and the interpreter,
// and the interpreter's own data is one [Python runtime data] row.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "merge/accumulator.h"
#include "model/heap_naming.h"
#include "model/report_model.h"
#include "model/runtime_libs.h"
#include "hpcl/text/cxx_names.h"
#include "hpcl/text/table_names.h"
#include "profile_builder.h"
#include "symbols/script_code.h"
#include "symbols/symbolize.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

const Module kPython{"/usr/bin/python3.11", "ab12", 0};
const Module kNumpy{"/usr/lib/python3/dist-packages/numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
                    "cd34", 0};
const Module kScript{kScriptModulePath, "", 0};

const ScriptFrame kOnes{"/usr/lib/python3/dist-packages/numpy/core/numeric.py", "ones", 191};
const ScriptFrame kMake{"/work/solver.py", "make", 12};
const ScriptFrame kMain{"/work/solver.py", "<module>", 40};

// A rank whose modules and script frames come in an order of its own: np.ones's data allocated
// by `make`, and a sample of it read by `<module>`.
Profile rank(int r) {
  Profile p = new_process(r);
  p.modules = r == 0 ? std::vector<Module>{kPython, kNumpy, kScript}
                     : std::vector<Module>{kScript, kNumpy, kPython};
  const uint32_t py = r == 0 ? 0 : 2, np = 1, script = r == 0 ? 2 : 0;
  p.script_frames = r == 0 ? std::vector<ScriptFrame>{kOnes, kMake, kMain}
                           : std::vector<ScriptFrame>{kMain, kMake, kOnes, kMake};  // a repeat too
  const uint64_t ones = r == 0 ? 0 : 2, make = r == 0 ? 1 : 3, main = r == 0 ? 2 : 0;
  p.sites = {{AllocApi::Malloc, 0, {{np, 0x500}, {py, 0x900}, {script, ones}, {script, make}, {script, main}},
              1, 32000000}};
  Tree t = new_tree(10 + r);
  heap_sample(t, 0, {{script, main}, {np, 0x700}}, 5);
  p.trees = {t};
  return p;
}

TEST(ScriptFramesMerge, OneListOneSiteCanonicalOrder) {
  Accumulator a;
  ASSERT_EQ(a.add_process(rank(0)), "");
  ASSERT_EQ(a.add_process(rank(1)), "");
  Profile db = a.finish();
  ASSERT_EQ(db.sites.size(), 1u);  // the same Python path in both ranks
  EXPECT_EQ(db.sites[0].allocations, 2u);
  ASSERT_EQ(db.script_frames.size(), 3u);
  EXPECT_TRUE(std::is_sorted(db.script_frames.begin(), db.script_frames.end()));
  const uint32_t script = db.script_module();
  ASSERT_NE(script, kNoModule);
  const std::vector<Frame>& f = db.sites[0].frames;
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(db.script_frames[f[2].offset], kOnes);
  EXPECT_EQ(db.script_frames[f[3].offset], kMake);
  EXPECT_EQ(db.script_frames[f[4].offset], kMain);
  // The access path's Python frame is one node with both ranks' samples.
  uint64_t main_nodes = 0;
  for (const Node& n : db.trees[0].nodes)
    if (n.kind == NodeKind::Frame && n.a == script) {
      EXPECT_EQ(db.script_frames[n.b], kMain);
      ++main_nodes;
    }
  EXPECT_EQ(main_nodes, 1u);

  // Whatever order the ranks come in, the same database.
  Accumulator b;
  ASSERT_EQ(b.add_process(rank(1)), "");
  ASSERT_EQ(b.add_process(rank(0)), "");
  EXPECT_EQ(encode_profile(b.finish(), 0), encode_profile(db, 0));
}

TEST(ScriptFramesMerge, PartialsCarryThem) {
  Accumulator one, two, all;
  ASSERT_EQ(one.add_process(rank(0)), "");
  ASSERT_EQ(two.add_process(rank(1)), "");
  one.absorb(two);
  ASSERT_EQ(all.add_process(rank(0)), "");
  ASSERT_EQ(all.add_process(rank(1)), "");
  EXPECT_EQ(encode_profile(one.finish(), 0), encode_profile(all.finish(), 0));
}

TEST(ScriptFramesSymbolize, FromTheList) {
  std::vector<Module> modules = {kScript};
  std::vector<ScriptFrame> frames = {kMake, kMain};
  SymbolizeResult r = symbolize_frames(modules, {{0, 0}, {0, 1}, {0, 7}}, 1, frames);
  ASSERT_EQ(r.symbols.size(), 3u);
  EXPECT_EQ(r.symbols[0].locs[0].function, "make");
  EXPECT_EQ(r.symbols[0].locs[0].file, "/work/solver.py");
  EXPECT_EQ(r.symbols[0].locs[0].line, 12u);
  EXPECT_EQ(r.symbols[1].locs[0].function, "<module>");
  EXPECT_EQ(r.symbols[2].locs[0].function, "");  // out of the list: unknown, not a crash
  EXPECT_TRUE(r.warnings.empty());                // no file "[python]" was looked for
  EXPECT_TRUE(r.no_debug_info.empty());
}

Location script_loc(const ScriptFrame& f) {
  return Location{f.function, f.file, f.line, kScriptModulePath, 0, true};
}

TEST(ScriptNaming, TheProgramsStatementPastPackagesAndTheInterpreter) {
  std::vector<Location> path = {
      Location{"PyArray_NewFromDescr_int", "", 0, kNumpy.path, 0x500, true},
      Location{"_PyEval_EvalFrameDefault", "", 0, kPython.path, 0x900, true},
      script_loc(kOnes), script_loc(kMake), script_loc(kMain)};
  EXPECT_EQ(heap_site_frame(path), 3u);
  // Without the source at hand: the function and the line.
  EXPECT_EQ(heap_site_label(path[3]), "make (solver.py:12)");
  // With it: the statement as written.
  const std::string file = ::testing::TempDir() + "/hpcl_solver.py";
  {
    std::ofstream out(file);
    for (int i = 1; i < 12; ++i) out << "\n";
    out << "    u = np.zeros((nx, ny))   # the '#' in a string below is not a comment\n";
    out << "    label = f\"#{rank} \\\"x\\\"\"  # rank's label\n";
    out << "    # a comment alone\n";
  }
  EXPECT_EQ(heap_site_label(Location{"make", file, 13, kScriptModulePath, 0, true}),
            "label = f\"#{rank} \\\"x\\\"\" (hpcl_solver.py:13)");
  EXPECT_EQ(heap_site_label(Location{"make", file, 14, kScriptModulePath, 0, true}), "make (hpcl_solver.py:14)");
  EXPECT_EQ(heap_site_label(Location{"make", file, 12, kScriptModulePath, 0, true}),
            "u = np.zeros((nx, ny)) (hpcl_solver.py:12)");
  std::remove(file.c_str());
  // Wholly inside the interpreter (a dict, a frame): its module's group.
  std::vector<Location> own = {Location{"PyDict_New", "", 0, kPython.path, 0x100, true}};
  EXPECT_EQ(runtime_family(own[heap_site_frame(own)].module), RuntimeFamily::Python);
}

// An application's function that returns the array it makes (GPAW's gd.zeros, through
// gd._new_array) names nothing: the statement that called it does, even in an installed package.
TEST(ScriptNaming, AFunctionThatReturnsItsArrayIsPassedForItsCaller) {
  const std::string dir = ::testing::TempDir() + "/hpcl_app/dist-packages/app";
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  {
    std::ofstream grid(dir + "/grid.py");
    grid << "def _new_array(self, shape):\n"
            "    return np.zeros(shape)\n"
            "def zeros(self, n):\n"
            "    return self._new_array((n, 4))\n";
    std::ofstream fd(dir + "/fd.py");
    fd << "def allocate(self):\n"
          "    self.psit = self.gd.zeros(3)\n";
  }
  const Location new_array{"GridDescriptor._new_array", dir + "/grid.py", 2, kScriptModulePath, 0, true};
  const Location zeros{"GridDescriptor.zeros", dir + "/grid.py", 4, kScriptModulePath, 0, true};
  const Location allocate{"FDWaveFunctions.allocate", dir + "/fd.py", 2, kScriptModulePath, 0, true};
  std::vector<Location> path = {Location{"PyArray_NewFromDescr_int", "", 0, kNumpy.path, 0x500, true},
                                script_loc(kOnes), new_array, zeros, allocate, script_loc(kMain)};
  ASSERT_EQ(heap_site_frame(path), 4u);
  EXPECT_EQ(heap_site_label(path[4]), "self.psit = self.gd.zeros(3) (fd.py:2)");
  // With no caller left to name it, the outermost of them does.
  std::vector<Location> alone = {path[0], new_array, zeros};
  EXPECT_EQ(heap_site_frame(alone), 2u);
  ASSERT_EQ(std::system(("rm -rf " + ::testing::TempDir() + "/hpcl_app").c_str()), 0);
}

TEST(ScriptNaming, AnAccessIsPlacedByTheProgramsPythonFrame) {
  const ScriptFrame norm{"/work/solver.py", "norm", 31};
  std::vector<Location> path = {Location{"DOUBLE_add", "", 0, kNumpy.path, 0x700, true},
                                Location{"_PyEval_EvalFrameDefault", "", 0, kPython.path, 0x900, true},
                                script_loc(kOnes), script_loc(norm), script_loc(kMain)};
  ASSERT_NE(program_script_frame(path), nullptr);
  EXPECT_EQ(location_label(*program_script_frame(path)), "norm (solver.py:31)");
  std::vector<Location> only_library = {path[0], script_loc(kOnes)};
  EXPECT_EQ(program_script_frame(only_library), &only_library[1]);
  EXPECT_EQ(program_script_frame({path[0], path[1]}), nullptr);
}

// One NumPy loop that two Python functions call, over one array: the code view and the access
// patterns show it once per Python line that ran it, each with its samples.
TEST(ScriptNaming, CodeRanByTwoPythonLinesIsShownOncePerLine) {
  const ScriptFrame norm{"/work/solver.py", "norm", 31}, energy{"/work/solver.py", "energy", 44};
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("tool", "hpcprof-lite");
  db.modules = {kNumpy, kScript};
  db.script_frames = {kMain, kMake, energy, norm};
  db.sites = {{AllocApi::Malloc, 0, {{0, 0x500}, {1, 1}, {1, 0}}, 1, 32000000}};
  Tree t = new_tree(0);
  heap_sample(t, 0, {{1, 0}, {1, 3}, {0, 0x700}}, 30);
  heap_sample(t, 0, {{1, 0}, {1, 2}, {0, 0x700}}, 10);
  heap_sample(t, 0, {{1, 0}, {1, 3}, {0, 0x708}}, 5);
  db.trees = {t};
  db.symbols.push_back(Symbolized{{0, 0x500}, {{"PyDataMem_UserNEW", "", 0}}});
  db.symbols.push_back(Symbolized{{0, 0x700}, {{"DOUBLE_add", "loops.c", 120}}});
  db.symbols.push_back(Symbolized{{0, 0x708}, {{"DOUBLE_add", "loops.c", 120}}});
  for (uint32_t i = 0; i < db.script_frames.size(); ++i) {
    const ScriptFrame& f = db.script_frames[i];
    db.symbols.push_back(Symbolized{{1, i}, {{f.function, f.file, f.line}}});
  }
  ReportModel m = build_report_model(db);
  ASSERT_EQ(m.locations.size(), 2u);
  EXPECT_EQ(m.locations[0].caller, "norm (solver.py:31)");
  EXPECT_EQ(m.locations[0].samples, 35u);
  EXPECT_EQ(m.locations[0].label, "DOUBLE_add (loops.c:120) \u2190 norm (solver.py:31)");
  EXPECT_EQ(m.locations[1].caller, "energy (solver.py:44)");
  EXPECT_EQ(m.locations[1].samples, 10u);
  ASSERT_EQ(m.variables.size(), 1u);
  const AccessEvidence& e = m.variables[0].evidence;
  ASSERT_TRUE(e.analysed);
  ASSERT_EQ(e.lines.size(), 2u);
  EXPECT_EQ(line_label(e.lines[0]), "DOUBLE_add (loops.c:120) \u2190 norm (solver.py:31)");
  EXPECT_EQ(e.lines[0].samples, 35u);
  EXPECT_EQ(e.lines[1].caller, "energy (solver.py:44)");
  EXPECT_EQ(e.lines[1].samples, 10u);
  EXPECT_EQ(m.variables[0].hottest_access, "norm (solver.py:31)");
}

TEST(ScriptNaming, LibraryFilesAndFamilies) {
  EXPECT_TRUE(is_python_runtime_file("/usr/lib/python3.11/json/decoder.py"));
  EXPECT_TRUE(is_python_runtime_file("/root/.pyenv/versions/3.11.7/lib/python3.11/runpy.py"));
  EXPECT_TRUE(is_python_runtime_file("/usr/lib/python3/dist-packages/numpy/core/numeric.py"));
  EXPECT_TRUE(is_python_runtime_file("/home/u/venv/lib/python3.12/site-packages/scipy/sparse.py"));
  EXPECT_TRUE(is_python_runtime_file("/usr/lib/python3/dist-packages/mpi4py/__init__.py"));
  EXPECT_TRUE(is_python_runtime_file("<frozen importlib._bootstrap>"));
  EXPECT_TRUE(is_python_runtime_file("<__array_function__ internals>"));
  EXPECT_FALSE(is_python_runtime_file("<stdin>"));
  EXPECT_FALSE(is_python_runtime_file("/work/solver.py"));
  EXPECT_FALSE(is_python_runtime_file("/home/u/lib/pythonic/solver.py"));
  EXPECT_FALSE(is_python_runtime_file("<string>"));
  // An application installed as a package is the program's own code.
  EXPECT_FALSE(is_python_runtime_file("/usr/lib/python3/dist-packages/gpaw/wavefunctions/fd.py"));
  EXPECT_FALSE(is_python_runtime_file("/home/u/venv/lib/python3.12/site-packages/numpyro/infer.py"));
  EXPECT_EQ(runtime_family("/usr/bin/python3.11"), RuntimeFamily::Python);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"), RuntimeFamily::Python);
  EXPECT_EQ(runtime_family(kNumpy.path), RuntimeFamily::Python);
  EXPECT_EQ(runtime_family_row(RuntimeFamily::Python), "[Python runtime data]");
}

TEST(ScriptNaming, StatementsKeepTheirBracketsAndTheirLine) {
  std::vector<std::string> names = {"c = np.arange(n, dtype=np.float64) (arrays.py:7)",
                                    "std::vector<int>::_M_realloc_insert(int&&) (a.cpp:3)"};
  simplify_names(names);
  EXPECT_EQ(names[0], "c = np.arange(n, dtype=np.float64) (arrays.py:7)");
  EXPECT_EQ(names[1], "std::vector::_M_realloc_insert (a.cpp:3)");
  std::vector<std::string> cells = fit_column({names[0]}, 34);
  EXPECT_EQ(cells[0].substr(cells[0].size() - 14), " (arrays.py:7)");
}

// Narrower, a statement keeps what it assigns and its line, whatever else goes: the table at 80
// columns gives the variable about 26.
TEST(ScriptNaming, NarrowStatementsKeepTheirTargetAndLine) {
  const std::vector<std::string> names = {"velocity = np.ones(n) (py_arrays.py:18)",
                                          "pressure = np.full(n, 2.0) (py_arrays.py:19)",
                                          "np.zeros(n) (py_arrays.py:21)"};
  EXPECT_EQ(fit_column(names, 35), (std::vector<std::string>{"velocity = np.on… (py_arrays.py:18)",
                                                            "pressure = np.fu… (py_arrays.py:19)",
                                                            "np.zeros(n) (py_arrays.py:21)"}));
  EXPECT_EQ(fit_column({names[0], names[1]}, 26),
            (std::vector<std::string>{"velocity (py_arrays.py:18)", "pressure (py_arrays.py:19)"}));
  // One statement of the file without it: all without it.
  EXPECT_EQ(fit_column(names, 26), (std::vector<std::string>{"velocity = np.ones(… (:18)",
                                                            "pressure = np.full(… (:19)",
                                                            "np.zeros(n) (:21)"}));
  EXPECT_EQ(fit_column(names, 20), (std::vector<std::string>{"velocity = np… (:18)",
                                                            "pressure = np… (:19)",
                                                            "np.zeros(n) (:21)"}));
  EXPECT_EQ(fit_column(names, 14), (std::vector<std::string>{"velocity (:18)", "pressure (:19)", "np.zeros(n)"}));
}

}  // namespace
}  // namespace hpcl::analysis
