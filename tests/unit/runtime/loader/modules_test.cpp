// The module registry across dlclose (issue 11): a library closed and another (here the same file
// again) mapped at its address must be scanned as new, not taken as already known; the closed
// entry stays for naming old frames but no longer answers data lookups.
#include "loader/modules.h"

#include <dlfcn.h>
#include <link.h>

#include <gtest/gtest.h>

#include <vector>

namespace {
uint64_t bias_of(void* handle) { return reinterpret_cast<link_map*>(handle)->l_addr; }

std::vector<std::pair<uint64_t, uint64_t>> g_forgotten;
void remember(uint64_t lo, uint64_t hi) { g_forgotten.emplace_back(lo, hi); }
}  // namespace

TEST(Modules, ALibraryMappedWhereAClosedOneWasIsScannedAsNew) {
  hpcrun::modules_scan();
  void* h = dlopen(HPCL_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  hpcrun::modules_scan();
  const uint64_t bias = bias_of(h);
  const uint32_t before = hpcrun::modules_count();
  ASSERT_EQ(dlclose(h), 0);
  // The test must see a real unmap: nobody else may hold the plugin open.
  ASSERT_EQ(dlopen(HPCL_TEST_PLUGIN, RTLD_NOW | RTLD_NOLOAD), nullptr);
  g_forgotten.clear();
  EXPECT_EQ(hpcrun::modules_forget_unloaded(remember), 1u);
  ASSERT_EQ(g_forgotten.size(), 1u);
  EXPECT_LE(g_forgotten[0].first, bias + 0x1000);
  // The closed entry no longer answers a data lookup in its old range.
  hpcrun::StaticHit hit;
  EXPECT_FALSE(hpcrun::modules_find_static(g_forgotten[0].first, 0, &hit));

  h = dlopen(HPCL_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  // The loader usually reuses the address; the new mapping must be registered either way.
  EXPECT_EQ(hpcrun::modules_scan(), 1u) << "reloaded at the same address: " << (bias_of(h) == bias);
  EXPECT_EQ(hpcrun::modules_count(), before + 1);
  auto data = reinterpret_cast<uint64_t>(dlsym(h, "plugin_tls_data"));
  ASSERT_NE(data, 0u);
  EXPECT_EQ(hpcrun::modules_find_code(data), before);
  // Nothing more to forget while it is open.
  EXPECT_EQ(hpcrun::modules_forget_unloaded(remember), 0u);
  dlclose(h);
  hpcrun::modules_forget_unloaded(remember);
}
