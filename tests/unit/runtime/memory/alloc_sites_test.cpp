// Allocation sites: the same (API, path) gets the same id, anything different a new one; flags
// are OR-ed into the site, not part of its identity;
// counts add up; concurrent interning from two threads agrees.
#include "memory/alloc_sites.h"

#include "hpcl/profile.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <memory>
#include <string>
#include <thread>
#include <vector>

using hpcrun::AllocSites;

TEST(AllocSites, SamePathSameId) {
  auto s = std::make_unique<AllocSites>();
  uint64_t a[] = {0x1000, 0x2000, 0x3000};
  uint64_t b[] = {0x1000, 0x2000, 0x3001};
  uint32_t x = s->intern(1, 0, a, 3);
  EXPECT_EQ(s->intern(1, 0, a, 3), x);
  EXPECT_NE(s->intern(1, 0, b, 3), x);
  EXPECT_NE(s->intern(2, 0, a, 3), x);  // another API
  EXPECT_NE(s->intern(1, 0, a, 2), x);  // shorter path
  EXPECT_EQ(s->size(), 4u);
  ASSERT_NE(s->get(x), nullptr);
  EXPECT_EQ(s->get(x)->nframes, 3u);
  uint64_t back[hpcrun::kMaxAllocFrames];
  ASSERT_EQ(hpcrun::unpack_frames(*s->get(x), back), 3u);
  EXPECT_EQ(back[2], 0x3000u);
}

// Frames are kept packed (deltas): every address comes back, across modules and back again, at
// the ends of the address space too, and paths that differ in one frame stay two sites.
TEST(AllocSites, PackedFramesComeBackWhole) {
  auto s = std::make_unique<AllocSites>();
  uint64_t path[hpcrun::kMaxAllocFrames];
  const uint64_t far[] = {0x401000, 0x7f0000123456, 0x401008, 0, ~uint64_t{0}, 0x55555555a000,
                          0x7ffff7dd1234, 0x7ffff7dd1200, 1, 0x8000000000000000ull};
  const uint32_t n = sizeof far / sizeof far[0];
  for (uint32_t i = 0; i < hpcrun::kMaxAllocFrames; ++i) path[i] = far[i % n] + i;
  uint32_t id = s->intern(0, 0, path, hpcrun::kMaxAllocFrames);
  uint64_t back[hpcrun::kMaxAllocFrames];
  ASSERT_EQ(hpcrun::unpack_frames(*s->get(id), back), uint32_t(hpcrun::kMaxAllocFrames));
  for (uint32_t i = 0; i < hpcrun::kMaxAllocFrames; ++i) EXPECT_EQ(back[i], path[i]) << i;
  for (uint32_t i = 0; i < hpcrun::kMaxAllocFrames; ++i) {
    uint64_t other[hpcrun::kMaxAllocFrames];
    std::copy(path, path + hpcrun::kMaxAllocFrames, other);
    other[i] ^= 0x10;
    EXPECT_NE(s->intern(0, 0, other, hpcrun::kMaxAllocFrames), id) << i;
  }
  EXPECT_EQ(s->intern(0, 0, path, hpcrun::kMaxAllocFrames), id);
}

// A site's name is part of its identity (two files mapped from one call path are two variables),
// stored with the site, cut at kMaxSiteName bytes.
TEST(AllocSites, NamesAreIdentity) {
  auto s = std::make_unique<AllocSites>();
  uint64_t a[] = {0x1000, 0x2000};
  uint32_t plain = s->intern(15, 0, a, 2);
  uint32_t wfn = s->intern(15, 0, a, 2, "/run/wfn.bin", 12);
  uint32_t rho = s->intern(15, 0, a, 2, "/run/rho.bin", 12);
  EXPECT_NE(plain, wfn);
  EXPECT_NE(wfn, rho);
  EXPECT_EQ(s->intern(15, 0, a, 2, "/run/wfn.bin", 12), wfn);
  ASSERT_NE(s->get(wfn), nullptr);
  EXPECT_EQ(std::string(s->get(wfn)->name, s->get(wfn)->name_len), "/run/wfn.bin");
  EXPECT_EQ(s->get(plain)->name_len, 0u);
  std::string long_name(400, 'x');
  uint32_t cut = s->intern(18, 0, a, 2, long_name.c_str(), uint32_t(long_name.size()));
  EXPECT_EQ(s->get(cut)->name_len, hpcrun::kMaxSiteName);
  EXPECT_EQ(s->intern(18, 0, a, 2, long_name.c_str(), hpcrun::kMaxSiteName), cut);
}

// Blocks of one path tracked first for certain and later one in k are one variable, sampled.
TEST(AllocSites, SampledFlagJoinsTheSiteInsteadOfSplittingIt) {
  auto s = std::make_unique<AllocSites>();
  uint64_t a[] = {0x1000, 0x2000};
  uint32_t x = s->intern(1, 0, a, 2);
  EXPECT_EQ(s->get(x)->flags, 0u);
  EXPECT_EQ(s->intern(1, hpcl::kSiteSampled, a, 2), x);
  EXPECT_EQ(s->get(x)->flags, hpcl::kSiteSampled);
  EXPECT_EQ(s->intern(1, 0, a, 2), x);
  EXPECT_EQ(s->get(x)->flags, hpcl::kSiteSampled);  // stays
  EXPECT_EQ(s->size(), 1u);
}

// A thread's cache answers a site it met, with the table's id; a flag the cached entry lacks
// goes through the table, which records it.
TEST(AllocSites, ThreadCacheAnswersAsTheTable) {
  auto s = std::make_unique<AllocSites>();
  auto cache = std::make_unique<hpcrun::SiteCache>();
  uint64_t a[] = {0x1000, 0x2000}, b[] = {0x1000, 0x3000};
  const uint32_t x = s->intern(1, 0, a, 2);
  EXPECT_EQ(s->intern_cached(*cache, 1, 0, a, 2), x);  // a miss: filled from the table
  EXPECT_EQ(cache->hits, 0u);
  EXPECT_EQ(s->intern_cached(*cache, 1, 0, a, 2), x);
  EXPECT_EQ(cache->hits, 1u);
  EXPECT_NE(s->intern_cached(*cache, 2, 0, a, 2), x);  // another API: another site
  const uint32_t y = s->intern_cached(*cache, 1, 0, b, 2);
  EXPECT_NE(y, x);
  EXPECT_EQ(s->intern(1, 0, b, 2), y);
  EXPECT_EQ(s->intern_cached(*cache, 1, hpcl::kSiteSampled, a, 2), x);
  EXPECT_EQ(s->get(x)->flags, hpcl::kSiteSampled);
  EXPECT_EQ(s->intern_cached(*cache, 1, hpcl::kSiteSampled, a, 2), x);
  EXPECT_EQ(s->size(), 3u);
}

TEST(AllocSites, CountsAccumulate) {
  auto s = std::make_unique<AllocSites>();
  uint64_t a[] = {0x42};
  uint32_t id = s->intern(1, 0, a, 1);
  s->count(id, 100);
  s->count(id, 28);
  EXPECT_EQ(s->get(id)->allocations.load(), 2u);
  EXPECT_EQ(s->get(id)->bytes.load(), 128u);
}

TEST(AllocSites, ConcurrentInterningAgrees) {
  auto s = std::make_unique<AllocSites>();
  std::vector<uint32_t> ids[2];
  auto work = [&](int t) {
    for (uint64_t i = 0; i < 5000; ++i) {
      uint64_t path[] = {i, i * 7, 0x1234};
      ids[t].push_back(s->intern(1, 0, path, 3));
    }
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(ids[0], ids[1]);
  EXPECT_EQ(s->size(), 5000u);
}

// The index starts small and grows with the sites (issue 23: a 2 MiB index made each new site a
// cache and TLB miss), keeping its load at most 1/2; sites interned before a growth keep their ids.
TEST(AllocSites, TheIndexGrowsWithTheSites) {
  auto s = std::make_unique<AllocSites>();
  uint64_t first[] = {0xabc, 0xdef};
  uint32_t id0 = s->intern(1, 0, first, 2);
  EXPECT_LE(s->index_slots(), 4096u) << "a few sites need no large index";
  for (uint64_t i = 0; i < 100000; ++i) {
    uint64_t path[] = {0x400000 + i * 16, 0x500000 + (i % 97), 0x600000};
    uint32_t id = s->intern(2, 0, path, 3);
    ASSERT_EQ(id, i + 1);
    EXPECT_GE(uint64_t(s->index_slots()), 2 * uint64_t(s->size()));
  }
  EXPECT_EQ(s->intern(1, 0, first, 2), id0);
  for (uint64_t i = 0; i < 100000; i += 997) {
    uint64_t path[] = {0x400000 + i * 16, 0x500000 + (i % 97), 0x600000};
    EXPECT_EQ(s->intern(2, 0, path, 3), i + 1) << "site " << i << " lost its id";
  }
  EXPECT_EQ(s->size(), 100001u);
}
