// Every unwind goes through the fork guard (unwind/unwind.h): while a fork is pending, none
// starts, so the child never inherits libunwind's mutex held. capture_path_outside, the PAPI
// software-event path, once called libunwind directly. Its own binary: it resolves the table of
// real functions and loads libunwind, which the core tests expect untouched.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include "base/real_fns.h"
#include "unwind/unwind.h"

using namespace hpcrun;

namespace {

__attribute__((noinline)) int outside(uint64_t* out, int max) {
  int n = capture_path_outside(nullptr, 0, out, max);
  asm volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
  return n;
}

__attribute__((noinline)) int alloc_path(uint64_t* out, int max) {
  int n = capture_alloc_path(out, max);
  asm volatile("" ::: "memory");
  return n;
}

TEST(UnwindFork, NoUnwindStartsWhileAForkIsPending) {
  // What unwind_init needs of the table (no wrappers of ours in this binary).
  real.dlopen = ::dlopen;
  real.dl_iterate_phdr = ::dl_iterate_phdr;
  ASSERT_TRUE(unwind_init()) << "libunwind (libunwind8) is needed";
  uint64_t frames[kMaxSampleFrames];
  ASSERT_GT(outside(frames, kMaxSampleFrames), 0);
  ASSERT_GT(alloc_path(frames, kMaxSampleFrames), 0);
  unwind_before_fork();
  EXPECT_EQ(outside(frames, kMaxSampleFrames), 0) << "capture_path_outside unwound during a fork";
  EXPECT_EQ(alloc_path(frames, kMaxSampleFrames), 0);
  unwind_after_fork(false);
  EXPECT_GT(outside(frames, kMaxSampleFrames), 0);
}

}  // namespace
