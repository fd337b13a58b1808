// Dynamic TLS: the __thread array of a library opened with dlopen after the module registry's
// first scan is found through each thread's DTV, in the calling thread and in another live
// thread, and bad thread pointers read nothing instead of faulting.
#include "loader/dynamic_tls.h"
#include "loader/modules.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

namespace {
uint64_t thread_pointer() {
  uint64_t tp;
  __asm__("mov %%fs:0, %0" : "=r"(tp));
  return tp;
}

std::string tls_name(uint64_t addr, uint64_t tp) {
  hpcrun::StaticHit hit;
  if (!hpcrun::modules_find_tls(addr, tp, true, &hit)) return "<none>";
  if (hit.symbol < 0) return "<section>";
  const hpcrun::ModuleEntry* m = hpcrun::module_get(hit.module);
  char name[256];
  if (!hpcrun::read_symbol_name(m->path, m->symbols, m->symbols.syms[hit.symbol], name, sizeof name))
    return "<unreadable>";
  return name;
}
}  // namespace

TEST(DynamicTls, SafeReadReadsMappedAndRefusesUnmapped) {
  uint64_t value = 0x1234, got = 0;
  EXPECT_TRUE(hpcrun::safe_read(uint64_t(&value), &got, sizeof got));
  EXPECT_EQ(got, value);
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  EXPECT_FALSE(hpcrun::safe_read(uint64_t(page), &got, sizeof got));
  munmap(page, 4096);
  EXPECT_FALSE(hpcrun::safe_read(16, &got, sizeof got));
}

TEST(DynamicTls, PluginTlsOfThisAndAnotherThread) {
  hpcrun::modules_scan();  // the start-up scan, before the plugin exists
  void* plugin = dlopen(HPCL_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(plugin, nullptr) << dlerror();
  auto tls_data = reinterpret_cast<double* (*)()>(dlsym(plugin, "plugin_tls_data"));
  ASSERT_NE(tls_data, nullptr);
  hpcrun::modules_scan();

  double* mine = tls_data();
  mine[0] = 1.0;
  EXPECT_EQ(tls_name(uint64_t(&mine[10]), thread_pointer()), "plugin_tls");

  // Another thread touches its own block and waits while we look it up from here.
  std::mutex mu;
  std::condition_variable cv;
  double* theirs = nullptr;
  uint64_t their_tp = 0;
  bool done = false;
  std::thread other([&] {
    std::unique_lock<std::mutex> lock(mu);
    theirs = tls_data();
    theirs[0] = 2.0;
    their_tp = thread_pointer();
    cv.notify_all();
    cv.wait(lock, [&] { return done; });
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return theirs != nullptr; });
  }
  EXPECT_NE(theirs, mine);
  EXPECT_EQ(tls_name(uint64_t(&theirs[100]), their_tp), "plugin_tls");
  // The other thread's block is not this thread's.
  EXPECT_EQ(tls_name(uint64_t(&theirs[100]), thread_pointer()), "<none>");
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  other.join();

  // Thread pointers that name no thread: nothing found, nothing faults.
  EXPECT_EQ(tls_name(uint64_t(&mine[10]), 0), "<none>");
  EXPECT_EQ(tls_name(uint64_t(&mine[10]), 4096), "<none>");
  static uint64_t fake_tcb[4] = {0, 0, 0, 0};
  EXPECT_EQ(tls_name(uint64_t(&mine[10]), uint64_t(fake_tcb)), "<none>");
  EXPECT_TRUE(hpcrun::modules_maybe_dynamic_tls_block(4u << 20));
  EXPECT_FALSE(hpcrun::modules_maybe_dynamic_tls_block(12345));
  dlclose(plugin);
}
