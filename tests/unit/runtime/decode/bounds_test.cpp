// function_bounds on functions of the test binary and of libc.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "decode/access_decode.h"

extern "C" {
extern const char hpcl_t_fn_loads[], hpcl_t_fn_loads_end[], hpcl_t_rmw[];
extern const char hpcl_t_fn_chain[];
}

namespace {

__attribute__((noinline)) int plain_cxx_function(int x) {
  asm volatile("" ::: "memory");
  return x * 3 + 1;
}

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

TEST(FunctionBounds, AsmFunctionWithFde) {
  uint64_t s = 0, e = 0;
  ASSERT_TRUE(hpcrun::function_bounds(addr(hpcl_t_rmw), &s, &e));
  EXPECT_EQ(s, addr(hpcl_t_fn_loads));
  // The FDE covers exactly the function: the end is its end (pc_range).
  EXPECT_EQ(e, addr(hpcl_t_fn_loads_end));
  ASSERT_TRUE(hpcrun::function_bounds(addr(hpcl_t_fn_loads), &s, &e));
  EXPECT_EQ(s, addr(hpcl_t_fn_loads));
  // Last byte of the function still inside; the padding after it is not covered by any FDE
  // unless the next function starts right there.
  ASSERT_TRUE(hpcrun::function_bounds(addr(hpcl_t_fn_loads_end) - 1, &s, &e));
  EXPECT_EQ(s, addr(hpcl_t_fn_loads));
  if (addr(hpcl_t_fn_loads_end) < addr(hpcl_t_fn_chain)) {
    EXPECT_FALSE(hpcrun::function_bounds(addr(hpcl_t_fn_loads_end), &s, &e));
  }
}

TEST(FunctionBounds, CompiledFunction) {
  const uint64_t f = addr(reinterpret_cast<const void*>(&plain_cxx_function));
  uint64_t s = 0, e = 0;
  ASSERT_TRUE(hpcrun::function_bounds(f + 1, &s, &e));
  EXPECT_EQ(s, f);
  EXPECT_GT(e, f + 1);
  EXPECT_LT(e - f, 4096u);
  EXPECT_EQ(plain_cxx_function(2), 7);
}

TEST(FunctionBounds, LibcFunctions) {
  // Non-IFUNC libc functions: the FDE start is the symbol's address.
  const void* fns[] = {reinterpret_cast<const void*>(&qsort), reinterpret_cast<const void*>(&strtol),
                       reinterpret_cast<const void*>(&getenv)};
  for (const void* fn : fns) {
    Dl_info info{};
    ASSERT_NE(dladdr(fn, &info), 0);
    uint64_t s = 0, e = 0;
    ASSERT_TRUE(hpcrun::function_bounds(addr(fn) + 4, &s, &e)) << info.dli_sname;
    EXPECT_EQ(s, addr(fn)) << info.dli_sname;
    EXPECT_GT(e, addr(fn) + 4) << info.dli_sname;
    EXPECT_GE(s, addr(info.dli_fbase)) << info.dli_sname;
  }
  // An IFUNC-selected implementation (memcpy's address is the selected variant): bounds found,
  // and the start is at or before it.
  const uint64_t mc = addr(reinterpret_cast<const void*>(&memcpy));
  uint64_t s = 0, e = 0;
  ASSERT_TRUE(hpcrun::function_bounds(mc, &s, &e));
  EXPECT_LE(s, mc);
  EXPECT_GT(e, mc);
}

TEST(FunctionBounds, NotInAModule) {
  uint64_t s = 0, e = 0;
  EXPECT_FALSE(hpcrun::function_bounds(0x1000, &s, &e));
  int local = 0;
  EXPECT_FALSE(hpcrun::function_bounds(addr(&local), &s, &e));
  void* heap = std::malloc(64);
  EXPECT_FALSE(hpcrun::function_bounds(addr(heap), &s, &e));
  std::free(heap);
}

TEST(FunctionBounds, DataOfTheModuleIsNotAFunction) {
  // .data / .bss of the test binary: inside the module mapping, after the last FDE's range.
  static int in_bss;
  uint64_t s = 0, e = 0;
  EXPECT_FALSE(hpcrun::function_bounds(addr(&in_bss), &s, &e));
}

}  // namespace
