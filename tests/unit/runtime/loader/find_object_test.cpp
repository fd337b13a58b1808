// find_object (hpcrun-lite/runtime/loader/find_object.h): the loader's answer (_dl_find_object)
// and the snapshot's answer (glibc before 2.35) agree on which module maps an address and where
// its unwind table is, and both say "none" for memory outside every module.
#include "loader/find_object.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "loader/phdr_snapshot.h"

namespace {

using hpcrun::CodeObject;

int g_data_word = 1;  // .data of the test executable

void take_snapshot() { ASSERT_TRUE(hpcrun::phdr_snapshot_refresh(dl_iterate_phdr)); }

std::vector<const void*> module_addresses() {
  return {reinterpret_cast<const void*>(&take_snapshot),  // the test executable's code
          reinterpret_cast<const void*>(&g_data_word),    // its data
          reinterpret_cast<const void*>(&fopen),          // libc
          reinterpret_cast<const void*>(&dlopen)};
}

TEST(FindObject, SnapshotAgreesWithTheLoader) {
  take_snapshot();
  for (const void* addr : module_addresses()) {
    CodeObject snap;
    ASSERT_TRUE(hpcrun::find_object_snapshot(addr, &snap)) << addr;
    const uint64_t a = reinterpret_cast<uint64_t>(addr);
    EXPECT_LE(snap.map_start, a);
    EXPECT_LT(a, snap.map_end);
    EXPECT_NE(snap.eh_frame_hdr, nullptr) << "every module here has .eh_frame_hdr";
    CodeObject loader;
    if (!hpcrun::find_object_loader(addr, &loader)) continue;  // glibc < 2.35: nothing to compare
    // The loader's span is page-aligned; the snapshot's is the segments' own.
    EXPECT_LE(loader.map_start, snap.map_start);
    EXPECT_GE(loader.map_end, snap.map_end);
    EXPECT_LT(snap.map_start - loader.map_start, 4096u);
    EXPECT_EQ(loader.eh_frame_hdr, snap.eh_frame_hdr);
  }
}

TEST(FindObject, NothingOutsideTheModules) {
  take_snapshot();
  int local = 0;
  std::unique_ptr<char[]> big(new char[1 << 20]);  // an anonymous mapping, no module
  for (const void* addr : {static_cast<const void*>(&local), static_cast<const void*>(big.get()),
                           static_cast<const void*>(nullptr)}) {
    CodeObject out;
    EXPECT_FALSE(hpcrun::find_object_snapshot(addr, &out)) << addr;
    EXPECT_FALSE(hpcrun::find_object_loader(addr, &out)) << addr;
  }
}

// constant_data: read-only memory of a module (.rodata, .text, RELRO) is constant; its writable
// data, the stack, the heap and memory outside every module are not.
const double kReadOnlyHalf = 0.5;                        // .rodata of the test executable
double g_writable_bss;                                   // .bss
extern "C" const char* const g_relro_names[] = {"a", "b"};  // pointers relocated at load: RELRO

TEST(ConstantData, ReadOnlySegmentsOfAModule) {
  take_snapshot();
  const auto at = [](const void* p) { return reinterpret_cast<uint64_t>(p); };
  // volatile: the compiler must keep the constant in memory rather than fold it.
  const double* volatile half = &kReadOnlyHalf;
  EXPECT_TRUE(hpcrun::constant_data(at(half)));
  EXPECT_TRUE(hpcrun::constant_data(at(reinterpret_cast<const void*>(&take_snapshot))));  // .text
  EXPECT_TRUE(hpcrun::constant_data(at(reinterpret_cast<const void*>(&fopen))));         // libc's
  EXPECT_TRUE(hpcrun::constant_data(at(&g_relro_names[1])));
  EXPECT_FALSE(hpcrun::constant_data(at(&g_data_word)));
  EXPECT_FALSE(hpcrun::constant_data(at(&g_writable_bss)));
  int local = 0;
  std::unique_ptr<char[]> heap(new char[64]);
  EXPECT_FALSE(hpcrun::constant_data(at(&local)));
  EXPECT_FALSE(hpcrun::constant_data(at(heap.get())));
  EXPECT_FALSE(hpcrun::constant_data(0));
}

// A library opened after the snapshot is found once the snapshot is taken again (the runtime
// refreshes it after the module scan that follows every dlopen).
TEST(FindObject, LaterModuleAfterRefresh) {
  take_snapshot();
  void* h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) GTEST_SKIP() << "libzstd.so.1 not loadable";
  const void* fn = dlsym(h, "ZSTD_versionNumber");
  ASSERT_NE(fn, nullptr);
  CodeObject out;
  const bool already = hpcrun::find_object_snapshot(fn, &out);  // true if the test links it
  take_snapshot();
  EXPECT_TRUE(hpcrun::find_object_snapshot(fn, &out)) << "already before refresh: " << already;
  dlclose(h);
}

#ifdef HPCL_TEST_NO_DL_FIND_OBJECT
TEST(FindObject, OldGlibcUsesTheSnapshot) {
  EXPECT_TRUE(hpcrun::find_object_uses_snapshot());
  CodeObject out;
  EXPECT_FALSE(hpcrun::find_object_loader(reinterpret_cast<const void*>(&fopen), &out));
  take_snapshot();
  EXPECT_TRUE(hpcrun::find_object(reinterpret_cast<const void*>(&fopen), &out));
}
#endif

TEST(FindObject, TestVariableSelectsTheSnapshot) {
  setenv("HPCRUN_LITE_TEST_NO_DL_FIND_OBJECT", "1", 1);
  hpcrun::find_object_configure();
  EXPECT_TRUE(hpcrun::find_object_uses_snapshot());
  take_snapshot();
  CodeObject out;
  EXPECT_TRUE(hpcrun::find_object(reinterpret_cast<const void*>(&fopen), &out));
}

}  // namespace
