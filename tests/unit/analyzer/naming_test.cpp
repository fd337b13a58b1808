// Naming rules: static-variable suffixes, demangling, and which frames of an allocation path
// belong to the allocator or the C++ runtime.
#include <gtest/gtest.h>

#include "naming.h"

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

TEST(Naming, Labels) {
  EXPECT_EQ(location_label(Location{"f", "/a/b/x.c", 12, "/bin/app", 0x10, true}), "f (x.c:12)");
  EXPECT_EQ(location_label(Location{"f", "/a/b/x.c", 0, "/bin/app", 0x10, true}), "f (x.c)");
  EXPECT_EQ(location_label(Location{"f", "", 0, "/bin/app", 0x10, true}), "f (app)");
  EXPECT_EQ(location_label(Location{"", "", 0, "/lib/libm.so.6", 0x1f2c, true}), "libm.so.6+0x1f2c");
  EXPECT_EQ(location_label(Location{"", "", 0, "", 0xabc, true}), "0xabc");
}

}  // namespace
}  // namespace hpcl::analysis
