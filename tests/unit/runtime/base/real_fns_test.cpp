// The table of real functions (hpcrun-lite/runtime/base/real_fns.h) when two threads make
// their first wrapper call at once: the second must not return while the first is still filling
// the table (its caller would call a null pointer). A fake lookup stands in for dlsym and holds
// the first thread inside the resolution until the second has returned.
#include "base/real_fns.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

namespace {

unsigned char g_fake_code[64];
std::atomic<bool> g_hold_first{false};
std::atomic<bool> g_second_done{false};
std::thread::id g_first;

void* fake_lookup(const char* name) {
  // The first thread stops at its first lookup until the second thread has finished (bounded:
  // before the fix the second thread returns at once, after it resolves on its own).
  if (g_hold_first.load() && std::this_thread::get_id() == g_first) {
    for (int i = 0; i < 2000 && !g_second_done.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return g_fake_code + (strlen(name) % sizeof g_fake_code);
}

TEST(RealFns, LateCallerGetsAFullTable) {
  ASSERT_EQ(hpcrun::g_real_state.load(), 0) << "nothing in this test binary resolves the table";
  g_hold_first = true;
  std::atomic<bool> first_started{false};
  std::thread first([&] {
    g_first = std::this_thread::get_id();
    first_started = true;
    hpcrun::resolve_real_fns_with(fake_lookup);
  });
  while (!first_started.load()) std::this_thread::yield();
  // Until the first thread has set the state to resolving.
  while (hpcrun::g_real_state.load() == 0) std::this_thread::yield();
  hpcrun::resolve_real_fns_with(fake_lookup);
  bool complete = hpcrun::real.malloc && hpcrun::real.free && hpcrun::real.mmap &&
                  hpcrun::real.sigaction && hpcrun::real.dl_iterate_phdr &&
                  hpcrun::real.pthread_create && hpcrun::real.execve;
  bool resolved = !hpcrun::real_fns_resolving();
  g_second_done = true;
  first.join();
  EXPECT_TRUE(complete) << "a late caller returned with null entries in the table";
  EXPECT_TRUE(resolved);
  EXPECT_EQ(hpcrun::g_real_state.load(), 2);
  // Leave nothing fake behind for the other tests (modules.cpp prefers the real table).
  memset(&hpcrun::real, 0, sizeof hpcrun::real);
  hpcrun::g_real_state = 0;
}

}  // namespace
