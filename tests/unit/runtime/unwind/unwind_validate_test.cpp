// libunwind's memory checks answered without the kernel (unwind_validate.h): the calling
// thread's stacks are readable; anything else (a module's code included: a concurrent dlclose may
// have unmapped it) is not known, and goes to the kernel as before.
#include "unwind/unwind_validate.h"

#include <sys/mman.h>

#include <gtest/gtest.h>

#include <cstring>

#include "loader/modules.h"

namespace {
uint64_t g_stack_lo = 0, g_stack_hi = 0;
bool fake_stacks(uint64_t lo, uint64_t hi) { return lo >= g_stack_lo && hi <= g_stack_hi; }
}  // namespace

TEST(UnwindValidate, OnlyTheStacksAreKnownReadable) {
  hpcrun::modules_scan();
  hpcrun::unwind_validate_set_stack_check(fake_stacks);
  int local = 0;
  const auto here = reinterpret_cast<uint64_t>(&local);
  g_stack_lo = here & ~uint64_t(4095);
  g_stack_hi = g_stack_lo + 8192;
  EXPECT_TRUE(hpcrun::unwind_known_readable(g_stack_lo, g_stack_lo + 4096));
  EXPECT_FALSE(hpcrun::unwind_known_readable(g_stack_lo, g_stack_hi + 4096));  // past the stack
  // A loaded module's code: readable, but not known to stay so.
  const auto code = reinterpret_cast<uint64_t>(&strlen);
  EXPECT_FALSE(hpcrun::unwind_known_readable(code, code + 8));
  // An anonymous mapping the runtime knows nothing of: the kernel must be asked.
  void* anon = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(anon, MAP_FAILED);
  const auto a = reinterpret_cast<uint64_t>(anon);
  EXPECT_FALSE(hpcrun::unwind_known_readable(a, a + 4096));
  munmap(anon, 4096);
  EXPECT_FALSE(hpcrun::unwind_known_readable(0, 8));
  EXPECT_FALSE(hpcrun::unwind_known_readable(64, 64));  // empty
  hpcrun::unwind_validate_set_stack_check(nullptr);
}
