// Naming rules: static-variable suffixes, demangling, Fortran and OpenMP names, C++ name parsing,
// which frames of an allocation path belong to the allocator, the C++ runtime or the program's
// allocation wrappers, and the labels of heap sites.
#include <cstdio>
#include <gtest/gtest.h>

#include "model/heap_naming.h"
#include "symbols/naming.h"

namespace hpcl::analysis {
namespace {

TEST(Naming, StaticNamesDropGccSuffixesAndDemangle) {
  EXPECT_EQ(static_display_name("counter.3"), "counter");
  EXPECT_EQ(static_display_name("counter.3.12"), "counter");
  EXPECT_EQ(static_display_name("counter"), "counter");
  EXPECT_EQ(static_display_name("_ZZ4mainE5count.0"), "main::count");
  EXPECT_EQ(static_display_name("_ZL5table"), "table");
  EXPECT_EQ(static_display_name("_ZN4grid5cellsE"), "grid::cells");
  EXPECT_EQ(static_display_name("table.lto_priv.0"), "table");
  EXPECT_EQ(static_display_name("version.v2"), "version.v2");  // not a GCC suffix
  EXPECT_EQ(static_display_name("[libfoo.so.1]"), "[libfoo.so.1]");
  EXPECT_EQ(static_display_name(".Lconst"), ".Lconst");
}

TEST(Naming, DemangleLeavesCNamesAndJunkAlone) {
  EXPECT_EQ(demangle("_Z7computePdi"), "compute(double*, int)");
  EXPECT_EQ(demangle("compute"), "compute");
  EXPECT_EQ(demangle("_Znot_valid"), "_Znot_valid");
  EXPECT_EQ(demangle(""), "");
}

TEST(Naming, AllocationFunctions) {
  for (const char* f : {"malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc",
                        "operator new(unsigned long)", "operator new[](unsigned long)",
                        "operator new(unsigned long, std::align_val_t)",
                        "std::allocator<double>::allocate(unsigned long)",
                        "std::__new_allocator<int>::allocate(unsigned long, void const*)",
                        "__gnu_cxx::new_allocator<int>::allocate(unsigned long, void const*)",
                        "std::allocator_traits<std::allocator<int> >::allocate(std::allocator<int>&, unsigned long)"})
    EXPECT_TRUE(is_allocation_function(f)) << f;
  for (const char* f : {"make_grid", "mallocate_grid", "std::vector<int>::push_back(int const&)",
                        "Grid::allocate(int)", ""})
    EXPECT_FALSE(is_allocation_function(f)) << f;
}

Location loc(std::string function, std::string file, std::string module) {
  return Location{std::move(function), std::move(file), 1, std::move(module), 0x10, true};
}

TEST(Naming, AllocatorAndRuntimeFrames) {
  EXPECT_TRUE(is_allocator_or_runtime(loc("", "", "/lib/x86_64-linux-gnu/libc.so.6")));
  EXPECT_TRUE(is_allocator_or_runtime(loc("", "", "/lib/libc-2.31.so")));
  EXPECT_TRUE(is_allocator_or_runtime(loc("", "", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6")));
  EXPECT_TRUE(is_allocator_or_runtime(loc("", "", "/lib/x86_64-linux-gnu/libgcc_s.so.1")));
  EXPECT_TRUE(is_allocator_or_runtime(loc("", "", "/lib64/ld-linux-x86-64.so.2")));
  EXPECT_TRUE(is_allocator_or_runtime(loc("", "", "/opt/hpcl/lib/libhpcrun-lite.so")));
  EXPECT_TRUE(is_allocator_or_runtime(
      loc("std::vector<double, std::allocator<double> >::_M_default_append(unsigned long)",
          "/usr/include/c++/12/bits/vector.tcc", "/opt/app/bin/solver")));
  EXPECT_TRUE(is_allocator_or_runtime(loc("xmalloc_wrapper_calls", "", "/opt/app/bin/solver")) == false);
  EXPECT_TRUE(is_allocator_or_runtime(loc("calloc", "", "/opt/app/bin/solver")));
  EXPECT_FALSE(is_allocator_or_runtime(loc("Grid::Grid(int)", "/src/grid.cpp", "/opt/app/bin/solver")));
  EXPECT_FALSE(is_allocator_or_runtime(loc("", "", "/opt/app/bin/solver")));
  EXPECT_FALSE(is_allocator_or_runtime(loc("", "", "/usr/lib/libcrypto.so.3")));
}

TEST(Naming, HeapSiteIsInnermostUserFrame) {
  std::vector<Location> path = {
      loc("", "", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
      loc("std::__new_allocator<double>::allocate(unsigned long, void const*)",
          "/usr/include/c++/12/bits/new_allocator.h", "/opt/app/bin/solver"),
      loc("Grid::Grid(int)", "/src/grid.cpp", "/opt/app/bin/solver"),
      loc("main", "/src/main.cpp", "/opt/app/bin/solver")};
  EXPECT_EQ(heap_site_frame(path), 2u);
  std::vector<Location> only_runtime = {loc("", "", "/lib/x86_64-linux-gnu/libc.so.6"),
                                        loc("strdup", "", "/lib/x86_64-linux-gnu/libc.so.6")};
  EXPECT_EQ(heap_site_frame(only_runtime), 0u);
  EXPECT_EQ(heap_site_frame({}), 0u);
}

TEST(Naming, QualifiedNames) {
  EXPECT_EQ(qualified_name("compute(double*, int)"), "compute");
  EXPECT_EQ(qualified_name("compute"), "compute");
  EXPECT_EQ(qualified_name("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int>("
                           "__gnu_cxx::__normal_iterator<int*, std::vector<int> >, int&&)"),
            "std::vector<int, std::allocator<int> >::_M_realloc_insert<int>");
  EXPECT_EQ(qualified_name("LAMMPS_NS::Pair* LAMMPS_NS::Force::pair_creator<LAMMPS_NS::PairLJCut>("
                           "LAMMPS_NS::LAMMPS*)"),
            "LAMMPS_NS::Force::pair_creator<LAMMPS_NS::PairLJCut>");
  EXPECT_EQ(qualified_name("operator new(unsigned long)"), "operator new");
  EXPECT_EQ(qualified_name("std::less<int>::operator()(int const&, int const&) const"),
            "std::less<int>::operator()");
  EXPECT_EQ(qualified_name("Foo::operator<<(int)"), "Foo::operator<<");
  EXPECT_EQ(qualified_name("(anonymous namespace)::helper(int)"), "(anonymous namespace)::helper");
  EXPECT_EQ(qualified_name("run(int)::{lambda(int)#1}::operator()(int) const"),
            "run(int)::{lambda(int)#1}::operator()");
  EXPECT_EQ(qualified_name("gmx::formatStringV[abi:cxx11](char const*, __va_list_tag*)"),
            "gmx::formatStringV[abi:cxx11]");
  EXPECT_EQ(qualified_base_name("void std::vector<float, gmx::Allocator<float> >::_M_default_append"
                                "(unsigned long)"),
            "std::vector::_M_default_append");
  EXPECT_EQ(qualified_base_name("double* Memory::create<double>(double*&, int, char const*)"),
            "Memory::create");
  EXPECT_EQ(qualified_base_name("Foo::operator<(Foo const&) const"), "Foo::operator<");
}

TEST(Naming, CxxLibraryFunctionsByNameWithoutTheirSources) {
  // Frames of the program's own module without /usr/include/c++ sources (no DWARF, or LTO).
  for (const char* f :
       {"std::vector<float, std::allocator<float> >::_M_default_append(unsigned long)",
        "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>("
        "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)",
        "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_create("
        "unsigned long&, unsigned long)",
        "std::_Vector_base<double, std::allocator<double> >::_M_allocate(unsigned long)",
        "std::__detail::_Hashtable_alloc<std::allocator<std::__detail::_Hash_node<std::pair<int "
        "const, int>, false> > >::_M_allocate_buckets(unsigned long)",
        "std::_Rb_tree<int, int, std::_Identity<int>, std::less<int>, std::allocator<int> >::"
        "_M_get_node()",
        "std::unique_ptr<Foo, std::default_delete<Foo> > std::make_unique<Foo>()",
        "std::__shared_count<(__gnu_cxx::_Lock_policy)2>::__shared_count<Foo>(Foo*&, "
        "std::_Sp_alloc_shared_tag<std::allocator<Foo> >)",
        "__gnu_cxx::new_allocator<int>::allocate(unsigned long, void const*)"}) {
    EXPECT_TRUE(is_cxx_library_function(f)) << f;
    EXPECT_TRUE(is_allocator_or_runtime(loc(f, "", "/opt/app/bin/solver"))) << f;
  }
  for (const char* f : {"stdlib_like(int)", "mystd::vector<int>::grow()", "Grid::Grid(int)",
                        "void apply<std::vector<int> >(std::vector<int>&)", ""})
    EXPECT_FALSE(is_cxx_library_function(f)) << f;
}

TEST(Naming, AllocatingNames) {
  for (const char* f : {"LAMMPS_NS::Memory::smalloc(long, char const*)",
                        "double* LAMMPS_NS::Memory::create<double>(double*&, int, char const*)",
                        "gmx::AlignedAllocationPolicy::malloc(unsigned long)", "save_calloc",
                        "fftwf_malloc_plain", "xstrdup", "Grid::allocate(int)",
                        "tMPI_Malloc"})
    EXPECT_TRUE(has_allocating_name(f)) << f;
  for (const char* f : {"build_grid(int)", "Grid::Grid(int)", "Memoryless::create()",
                        "LAMMPS_NS::AtomVec::grow(int)", "main", ""})
    EXPECT_FALSE(has_allocating_name(f)) << f;
}

// An allocation path below `fn` (at `fn_offset`) called from `caller` at `line`.
std::vector<Location> via(const std::string& fn, uint64_t fn_offset, const std::string& caller,
                          uint32_t line) {
  const std::string app = "/opt/app/bin/app";
  return {Location{"malloc", "", 0, "/lib/x86_64-linux-gnu/libc.so.6", 0x100, true},
          Location{fn, "/src/mem.cpp", 12, app, fn_offset, true},
          Location{caller, "/src/user.cpp", line, app, 0x5000 + line, true},
          Location{"main", "/src/main.cpp", 3, app, 0x9000, true}};
}

TEST(Naming, WrapperNeedsAnAllocatingNameAndThreeCallingLocations) {
  std::vector<std::vector<Location>> paths = {
      via("Memory::smalloc(unsigned long, char const*)", 0x40, "setup_tables", 10),
      via("Memory::smalloc(unsigned long, char const*)", 0x40, "setup_tables", 11),
      via("Memory::smalloc(unsigned long, char const*)", 0x40, "Pair::init", 20),
      // Called from many places, but not named like an allocator: the user's own function.
      via("build_grid(int)", 0x80, "a", 1), via("build_grid(int)", 0x80, "b", 2),
      via("build_grid(int)", 0x80, "c", 3), via("build_grid(int)", 0x80, "d", 4),
      // Allocating name, but only two calling locations.
      via("Grid::allocate(int)", 0xc0, "a", 5), via("Grid::allocate(int)", 0xc0, "b", 6),
      via("Grid::allocate(int)", 0xc0, "b", 6)};
  AllocWrappers w;
  w.learn(paths);
  EXPECT_EQ(w.detected(), std::set<std::string>{"Memory::smalloc"});
  EXPECT_EQ(heap_site_frame(paths[0], &w), 2u);
  EXPECT_EQ(heap_site_label(paths[0][heap_site_frame(paths[0], &w)]), "setup_tables (user.cpp:10)");
  EXPECT_EQ(heap_site_frame(paths[3], &w), 1u);  // build_grid keeps its name
  EXPECT_EQ(heap_site_frame(paths[7], &w), 1u);  // Grid::allocate too
  EXPECT_EQ(heap_site_frame(paths[0]), 1u);      // without wrappers: the wrapper names it

  AllocWrappers off({}, /*automatic=*/false);
  off.learn(paths);
  EXPECT_TRUE(off.detected().empty());
  EXPECT_EQ(heap_site_frame(paths[0], &off), 1u);
}

TEST(Naming, WrapperTemplateInstancesAndChainsCountTogether) {
  auto chain = [](const std::string& inner, const std::string& outer, const std::string& caller,
                  uint32_t line) {
    std::vector<Location> p = via(inner, 0x40, outer, 7);
    p.insert(p.begin() + 3, Location{caller, "/src/user.cpp", line, "/opt/app/bin/app", 0x7000 + line, true});
    return p;
  };
  // Each instance of create<T> has one caller; save_malloc_aligned is only ever called by
  // save_calloc_aligned. Both are judged by the callers past the chain.
  std::vector<std::vector<Location>> paths = {
      chain("Memory::smalloc(unsigned long)", "double* Memory::create<double>(double*&, int)", "f", 1),
      chain("Memory::smalloc(unsigned long)", "int* Memory::create<int>(int*&, int)", "g", 2),
      chain("Memory::smalloc(unsigned long)", "float* Memory::create<float>(float*&, int)", "h", 3),
      chain("save_malloc_aligned", "save_calloc_aligned", "pmegrid_init", 4),
      chain("save_malloc_aligned", "save_calloc_aligned", "fft5d_plan_3d", 5),
      chain("save_malloc_aligned", "save_calloc_aligned", "fft5d_plan_3d", 6)};
  AllocWrappers w;
  w.learn(paths);
  EXPECT_EQ(w.detected(), (std::set<std::string>{"Memory::create", "Memory::smalloc",
                                                 "save_calloc_aligned", "save_malloc_aligned"}));
  EXPECT_EQ(paths[1][heap_site_frame(paths[1], &w)].function, "g");
  EXPECT_EQ(paths[4][heap_site_frame(paths[4], &w)].function, "fft5d_plan_3d");
}

TEST(Naming, UserWrapperPatterns) {
  std::vector<std::vector<Location>> paths = {via("build_grid(int)", 0x80, "a", 1)};
  AllocWrappers w({std::regex("^build_")});
  w.learn(paths);
  EXPECT_EQ(heap_site_frame(paths[0], &w), 2u);
  EXPECT_TRUE(w.is_wrapper(paths[0][1]));
  EXPECT_FALSE(w.is_wrapper(paths[0][2]));
  // Nothing but wrappers below main's missing frame: the outermost wrapper names the site.
  std::vector<Location> only = {paths[0][0], paths[0][1]};
  EXPECT_EQ(heap_site_frame(only, &w), 1u);
}

TEST(Naming, HeapSiteLabelsCarryTheOffsetWithoutLines) {
  EXPECT_EQ(heap_site_label(Location{"f", "/a/x.c", 12, "/bin/app", 0x10, true}), "f (x.c:12)");
  EXPECT_EQ(heap_site_label(Location{"f", "", 0, "/usr/lib/liblammps.so.0", 0x290efa, true}),
            "f (liblammps.so.0+0x290efa)");
  EXPECT_EQ(heap_site_label(Location{"f", "/a/x.c", 0, "/bin/app", 0x10, true}), "f (x.c, app+0x10)");
  EXPECT_EQ(heap_site_label(Location{"", "", 0, "/lib/libm.so.6", 0x1f2c, true}), "libm.so.6+0x1f2c");
  EXPECT_EQ(heap_site_label(Location{"operator new", "", 0, "", 0, false}), "operator new");
}

// A site in a function known only by its bounds (a stripped library) is labelled after what the
// path says a user knows: the C++ container that grew, and the nearest named caller past the
// OpenMP runtime (GROMACS's pairlist construction, from a real allocation path).
TEST(Naming, UnnamedSitesGetTheirContainerAndNamedCaller) {
  const std::string gmx = "/usr/lib/x86_64-linux-gnu/libgromacs_mpi.so.7";
  auto unnamed = [&](uint64_t start, uint64_t offset) {
    Location l{"libgromacs_mpi.so.7!0x" + [&] {
                 char b[32];
                 std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(start));
                 return std::string(b);
               }(),
               "", 0, gmx, offset, true};
    l.unnamed_function = true;
    l.function_start = start;
    return l;
  };
  std::vector<Location> path = {
      Location{"operator new(unsigned long)", "", 0, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 0x9d0, true},
      Location{"void std::vector<nbnxn_cj_t, gmx::DefaultInitializationAllocator<nbnxn_cj_t, "
               "std::allocator<nbnxn_cj_t> > >::_M_realloc_insert<nbnxn_cj_t const&>(__gnu_cxx::"
               "__normal_iterator<nbnxn_cj_t*, std::vector<nbnxn_cj_t> >, nbnxn_cj_t const&)",
               "", 0, gmx, 0x4dd000, true},
      unnamed(0x4df710, 0x4dfb41),
      unnamed(0x4e4310, 0x4e4a00),
      Location{"GOMP_parallel", "", 0, "/usr/lib/x86_64-linux-gnu/libgomp.so.1", 0x1c000, true},
      Location{"PairlistSet::constructPairlists(gmx::InteractionLocality, Nbnxm::GridSet const&)", "", 0,
               gmx, 0x4e9000, true},
  };
  ASSERT_EQ(heap_site_frame(path), 2u);
  EXPECT_EQ(heap_site_context_label(path, 2),
            "std::vector<nbnxn_cj_t> in PairlistSet::constructPairlists "
            "(libgromacs_mpi.so.7!0x4df710+0x431)");
  // No container in the path: the caller alone.
  std::vector<Location> plain = {path[0], path[2], path[3], path[4], path[5]};
  EXPECT_EQ(heap_site_context_label(plain, 1),
            "in PairlistSet::constructPairlists (libgromacs_mpi.so.7!0x4df710+0x431)");
  // Nothing named beyond it (a stripped program): the label alone, as before.
  std::vector<Location> stripped = {path[0], path[2], path[3]};
  EXPECT_EQ(heap_site_context_label(stripped, 1), "libgromacs_mpi.so.7!0x4df710+0x431");
  // A named site keeps its own label.
  std::vector<Location> named = {path[0], path[5]};
  EXPECT_EQ(heap_site_context_label(named, 1), heap_site_label(path[5]));
  // std::string and the library's internal classes.
  std::vector<Location> str = {path[0],
                               Location{"std::__cxx11::basic_string<char, std::char_traits<char>, "
                                        "std::allocator<char> >::_M_create(unsigned long&, unsigned long)",
                                        "", 0, gmx, 0x10, true},
                               path[2], path[5]};
  EXPECT_EQ(heap_site_context_label(str, 2),
            "std::string in PairlistSet::constructPairlists (libgromacs_mpi.so.7!0x4df710+0x431)");
  std::vector<Location> tree = {path[0],
                                Location{"std::_Rb_tree<int, std::pair<int const, int>, "
                                         "std::_Select1st<std::pair<int const, int> >, std::less<int>, "
                                         "std::allocator<std::pair<int const, int> > >::_M_insert_unique(int&&)",
                                         "", 0, gmx, 0x10, true},
                                path[2], path[5]};
  EXPECT_EQ(heap_site_context_label(tree, 2),
            "in PairlistSet::constructPairlists (libgromacs_mpi.so.7!0x4df710+0x431)");
}

TEST(Naming, SharedLabelsGetTheirCallerThenANumber) {
  std::vector<std::string> labels = {"f (a.c:10)", "f (a.c:10)", "g (a.c:20)", "h (a.c:30)",
                                     "h (a.c:30)", "h (a.c:30)"};
  std::vector<std::string> callers = {"main (m.c:1)", "main (m.c:2)", "main (m.c:3)",
                                      "k (k.c:4)", "k (k.c:4)", ""};
  disambiguate_labels(labels, callers);
  EXPECT_EQ(labels, (std::vector<std::string>{
                        "f (a.c:10) \u2190 main (m.c:1)", "f (a.c:10) \u2190 main (m.c:2)",
                        "g (a.c:20)", "h (a.c:30) \u2190 k (k.c:4)",
                        "h (a.c:30) \u2190 k (k.c:4) #2", "h (a.c:30)"}));
  // Callers that are all the same say nothing: numbers only.
  std::vector<std::string> same = {"f (a.c:10)", "f (a.c:10)"};
  disambiguate_labels(same, std::vector<std::string>{"main (m.c:1)", "main (m.c:1)"});
  EXPECT_EQ(same, (std::vector<std::string>{"f (a.c:10)", "f (a.c:10) #2"}));
}

// The sites of a shared label with the same caller are told apart by the first caller outward
// that differs, shown after an ellipsis; numbers only for what no caller tells apart (CP2K: 202,152
// of 218,842 heap rows carried a number when only the first caller was looked at).
TEST(Naming, SharedLabelsLookFurtherOutBeforeNumbers) {
  std::vector<std::string> labels = {"f (a.c:10)", "f (a.c:10)", "f (a.c:10)", "f (a.c:10)"};
  std::vector<std::vector<InternedString>> chains = {
      {"g (g.c:1)", "solve (s.c:80)", "main (m.c:1)"},
      {"g (g.c:1)", "setup (s.c:20)", "main (m.c:1)"},
      {"h (h.c:5)", "setup (s.c:20)", "main (m.c:1)"},
      {"g (g.c:1)", "setup (s.c:20)", "main (m.c:1)"}};
  disambiguate_labels(labels, chains);
  EXPECT_EQ(labels, (std::vector<std::string>{
                        "f (a.c:10) \u2190 \u2026 \u2190 solve (s.c:80)",
                        "f (a.c:10) \u2190 \u2026 \u2190 setup (s.c:20)",
                        "f (a.c:10) \u2190 h (h.c:5)",
                        "f (a.c:10) \u2190 \u2026 \u2190 setup (s.c:20) #2"}));
}

TEST(Naming, FortranNames) {
  EXPECT_EQ(static_display_name("__fields_MOD_mod_table"), "fields::mod_table");
  EXPECT_EQ(static_display_name("__my_mod_MOD_x"), "my_mod::x");
  EXPECT_EQ(static_display_name("_QMfieldsEmod_table"), "fields::mod_table");
  EXPECT_EQ(static_display_name("__MOD_x"), "__MOD_x");  // no module name
  EXPECT_EQ(display_function_name("__fields_MOD_fill_grid").name, "fields::fill_grid");
  EXPECT_FALSE(display_function_name("__fields_MOD_fill_grid").omp_region);
  EXPECT_EQ(display_function_name("_QMfieldsPfill_grid").name, "fields::fill_grid");
  EXPECT_EQ(display_function_name("_QPsolve").name, "solve");
  EXPECT_EQ(display_function_name("MAIN__").name, "MAIN__");  // no DWARF name: left alone
  EXPECT_EQ(display_function_name("naming_demo").name, "naming_demo");

  EXPECT_EQ(fortran_common_block_name("legacy_"), "/legacy/");
  EXPECT_EQ(fortran_common_block_name("blk2_data_"), "/blk2_data/");
  EXPECT_EQ(fortran_common_block_name("__BLNK__"), "//");
  for (const char* s : {"legacy", "Legacy_", "legacy__", "_start_", "_", "", "x.y_"})
    EXPECT_EQ(fortran_common_block_name(s), "") << s;
  for (const char* f : {"/src/a.f90", "b.F90", "c.f", "d.F", "e.f08", "g.for"})
    EXPECT_TRUE(is_fortran_source(f)) << f;
  for (const char* f : {"/src/a.c", "a.cpp", "", "/src.f90/a.c", "fortran"})
    EXPECT_FALSE(is_fortran_source(f)) << f;
}

TEST(Naming, OpenMpRegionsNamedAfterTheirParent) {
  struct Case {
    const char* symbol;
    const char* name;
  } cases[] = {{"total.1._omp_fn.0", "total [omp region 0]"},
               {"sum_array._omp_fn.0", "sum_array [omp region 0]"},
               {"__fields_MOD_x._omp_fn.1", "fields::x [omp region 1]"},
               {"main._omp_fn.12", "main [omp region 12]"},
               {"Grid::sweep(int) [clone ._omp_fn.3]", "Grid::sweep(int) [omp region 3]"}};
  for (const Case& c : cases) {
    FunctionName n = display_function_name(c.symbol);
    EXPECT_EQ(n.name, c.name) << c.symbol;
    EXPECT_TRUE(n.omp_region) << c.symbol;
  }
  for (const char* s : {"total._omp_fn.", "omp_fn", "f._omp_cpyfn.1"})
    EXPECT_FALSE(display_function_name(s).omp_region) << s;
}

TEST(Naming, Labels) {
  EXPECT_EQ(location_label(Location{"f", "/a/b/x.c", 12, "/bin/app", 0x10, true}), "f (x.c:12)");
  EXPECT_EQ(location_label(Location{"f", "/a/b/x.c", 0, "/bin/app", 0x10, true}), "f (x.c)");
  EXPECT_EQ(location_label(Location{"f", "", 0, "/bin/app", 0x10, true}), "f (app)");
  EXPECT_EQ(location_label(Location{"", "", 0, "/lib/libm.so.6", 0x1f2c, true}), "libm.so.6+0x1f2c");
  EXPECT_EQ(location_label(Location{"", "", 0, "", 0xabc, true}), "0xabc");
  EXPECT_EQ(location_label(Location{"hpcrun_lite_profiler_own_work", "/src/sampler.cpp", 50,
                                    "/opt/hpcl/lib/libhpcrun-lite.so", 0x9000, true}),
            "[profiler's own work]");
  EXPECT_EQ(location_label(Location{"hpcrun_lite_profiler_own_work", "", 0, "/bin/app", 0x10, true}),
            "hpcrun_lite_profiler_own_work (app)")
      << "only the runtime's own marker";
}

}  // namespace
}  // namespace hpcl::analysis
