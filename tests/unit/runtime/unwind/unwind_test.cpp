// Call paths through libunwind (unwind/unwind.h) leave the program's state as they found it.
// Linked into the unwind tests' own binary: it loads libunwind, which the core tests expect
// untouched.
#include "unwind/unwind.h"

#include <dlfcn.h>
#include <fenv.h>
#include <gtest/gtest.h>
#include <link.h>

#include "base/real_fns.h"

using namespace hpcrun;

namespace {

bool ready() {
  static const bool ok = [] {
    real.dlopen = ::dlopen;
    real.dl_iterate_phdr = ::dl_iterate_phdr;
    return unwind_init();
  }();
  return ok;
}

uint16_t x87_control() {
  uint16_t cw;
  asm volatile("fnstcw %0" : "=m"(cw));
  return cw;
}

// A program that unmasked x87 exceptions (feenableexcept sets the x87 control word as well as
// MXCSR) keeps them unmasked after a tracked allocation's unwind. unw_getcontext would not keep
// them (its fnstenv masks every x87 exception and nothing restores the word); unw_backtrace
// takes its context with a lighter copy of the registers (libunwind 1.6), which this checks.
TEST(Unwind, AnAllocationPathKeepsTheX87ControlWord) {
  ASSERT_TRUE(ready()) << "libunwind (libunwind8) is needed";
  fenv_t saved;
  fegetenv(&saved);
  ASSERT_NE(feenableexcept(FE_INVALID | FE_DIVBYZERO), -1);
  const uint16_t before = x87_control();
  ASSERT_EQ(before & 0x5, 0) << "invalid and divide-by-zero unmasked";
  uint64_t frames[kMaxSampleFrames];
  EXPECT_GT(capture_alloc_path(frames, kMaxSampleFrames), 0);
  const uint16_t after = x87_control();
  fesetenv(&saved);
  EXPECT_EQ(after, before) << std::hex << "x87 control word 0x" << before << " became 0x" << after;
}

}  // namespace
