// UsedSlots: the claimed slots of a fixed table are walked in claim order, each once, from any
// number of claiming threads, and forgotten by clear().
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "base/used_slots.h"

namespace hpcrun {
namespace {

std::vector<uint32_t> walked(const UsedSlots<1024>& u) {
  std::vector<uint32_t> out;
  u.for_each([&](uint32_t s) { out.push_back(s); });
  return out;
}

TEST(UsedSlots, WalksWhatWasClaimedInOrder) {
  static UsedSlots<1024> u;
  EXPECT_TRUE(walked(u).empty());
  u.add(700);
  u.add(0);  // slot 0 is a slot like any other
  u.add(1023);
  EXPECT_EQ(walked(u), (std::vector<uint32_t>{700, 0, 1023}));
  u.clear();
  EXPECT_TRUE(walked(u).empty());
  u.add(5);
  EXPECT_EQ(walked(u), std::vector<uint32_t>{5});
}

TEST(UsedSlots, ConcurrentClaimsAreAllWalked) {
  static UsedSlots<1024> u;
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (uint32_t i = 0; i < 200; ++i) u.add(t * 200 + i);
    });
  for (auto& th : threads) th.join();
  std::vector<uint32_t> got = walked(u);
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), 800u);
  for (uint32_t i = 0; i < 800; ++i) EXPECT_EQ(got[i], i);
}

}  // namespace
}  // namespace hpcrun
