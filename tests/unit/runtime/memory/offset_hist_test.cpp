// The runtime's offset histograms: the bin of an offset, heap samples counted per site with their
// lowest and highest offset, static samples binned over the symbol found by modules_find_static,
// and concurrent counting from many threads losing nothing.
#include <gtest/gtest.h>

#include <map>
#include <thread>
#include <vector>

#include "memory/offset_hist.h"

namespace hpcrun {
namespace {

// A static array of this test program, found through the module registry like a profiled one.
double g_quarter_table[4096];

std::map<std::pair<bool, uint64_t>, OffsetRecord> snapshot() {
  std::map<std::pair<bool, uint64_t>, OffsetRecord> out;
  offsets_for_each(
      [](const OffsetRecord& r, void* ctx) {
        auto* m = static_cast<std::map<std::pair<bool, uint64_t>, OffsetRecord>*>(ctx);
        uint64_t key = r.is_static ? (uint64_t(r.module) << 32) | uint32_t(r.symbol) : r.site;
        (*m)[{r.is_static, key}] = r;
      },
      &out);
  return out;
}

TEST(OffsetHist, Bins) {
  EXPECT_EQ(offset_bin(0, 1024), 0u);
  EXPECT_EQ(offset_bin(31, 1024), 0u);
  EXPECT_EQ(offset_bin(32, 1024), 1u);
  EXPECT_EQ(offset_bin(1023, 1024), 31u);
  EXPECT_EQ(offset_bin(5000, 1024), 31u);  // beyond the extent: the last bin
  EXPECT_EQ(offset_bin(7, 0), 0u);         // unknown size
  EXPECT_EQ(offset_bin(~0ull - 1, ~0ull), 31u);  // no overflow
  EXPECT_EQ(offset_bin(3, 8), 12u);
}

TEST(OffsetHist, HeapSamplesPerSite) {
  offsets_reset();
  BlockInfo a{0x100000, 1 << 20, 7};
  BlockInfo b{0x900000, 64, 8};
  offsets_count(a.start + 100, 0, &a, nullptr);
  offsets_count(a.start + (1 << 18), 0, &a, nullptr);  // first byte of the second quarter: bin 8
  offsets_count(b.start + 63, 0, &b, nullptr);
  offsets_count(0x42, 0, nullptr, nullptr);  // neither heap nor static: nothing
  auto s = snapshot();
  ASSERT_TRUE(s.count({false, 7}));
  const OffsetRecord& r = s[{false, 7}];
  EXPECT_EQ(r.bins[0], 1u);
  EXPECT_EQ(r.bins[8], 1u);
  EXPECT_EQ(r.min, 100u);
  EXPECT_EQ(r.max, uint64_t(1) << 18);
  const OffsetRecord& small = s[std::make_pair(false, uint64_t{8})];
  EXPECT_EQ(small.bins[31], 1u);
  EXPECT_EQ(small.min, 63u);
  EXPECT_EQ(offsets_lost(), 0u);
  offsets_reset();
  EXPECT_TRUE(snapshot().empty());
}

TEST(OffsetHist, StaticSamplesOverTheSymbol) {
  offsets_reset();
  modules_scan();
  uint64_t ea = uint64_t(&g_quarter_table[1024 + 3]);  // 25% in, plus 24 bytes: bin 8
  StaticHit hit{};
  ASSERT_TRUE(modules_find_static(ea, 0, &hit));
  ASSERT_GE(hit.symbol, 0) << "the test binary has a symbol table";
  offsets_count(ea, 0, nullptr, &hit);
  auto s = snapshot();
  ASSERT_EQ(s.size(), 1u);
  const OffsetRecord& r = s.begin()->second;
  EXPECT_TRUE(r.is_static);
  EXPECT_EQ(r.module, hit.module);
  EXPECT_EQ(r.symbol, hit.symbol);
  EXPECT_EQ(r.bins[8], 1u);
  EXPECT_EQ(r.min, 1027u * sizeof(double));
  // An address the symbol does not cover from this thread (another thread's TLS block, say) is
  // not binned but tallied as lost.
  offsets_count(uint64_t(&g_quarter_table[4096]) + 64, 0, nullptr, &hit);
  EXPECT_EQ(offsets_lost(), 1u);
  EXPECT_EQ(snapshot().begin()->second.bins[31], 0u);
}

TEST(OffsetHist, ConcurrentCountsAddUp) {
  offsets_reset();
  constexpr int kThreads = 4, kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < kEach; ++i) {
        BlockInfo blk{0x200000, 3200, uint32_t(100 + i % 50)};  // 50 sites claimed concurrently
        offsets_count(blk.start + uint64_t((i * 7 + t) % 3200), 0, &blk, nullptr);
      }
    });
  for (auto& th : threads) th.join();
  uint64_t total = 0;
  for (auto& [key, r] : snapshot())
    for (uint64_t b : r.bins) total += b;
  EXPECT_EQ(total, uint64_t(kThreads) * kEach);
  EXPECT_EQ(offsets_lost(), 0u);
}

}  // namespace
}  // namespace hpcrun
