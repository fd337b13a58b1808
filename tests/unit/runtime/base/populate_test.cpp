// populate.h: pages made present ahead of a front-to-back fill, one system call per stripe.
#include "base/populate.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace {

constexpr size_t kPage = 4096;

struct Mapping {
  explicit Mapping(size_t n) : bytes(n) {
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
  }
  ~Mapping() {
    if (base) munmap(base, bytes);
  }
  // Which pages are resident (mincore), without touching any.
  std::vector<bool> present() const {
    std::vector<unsigned char> v(bytes / kPage);
    EXPECT_EQ(mincore(base, bytes, v.data()), 0);
    std::vector<bool> out;
    for (unsigned char c : v) out.push_back(c & 1);
    return out;
  }
  uint8_t* base;
  size_t bytes;
};

size_t count(const std::vector<bool>& v, size_t from, size_t to) {
  size_t n = 0;
  for (size_t i = from; i < to; ++i) n += v[i];
  return n;
}

TEST(Populate, WholePagesInsideTheRangeOnly) {
  Mapping m(16 * kPage);
  ASSERT_NE(m.base, nullptr);
  // From the middle of page 1 to the middle of page 5: pages 2..4 are wholly inside.
  if (!hpcrun::populate_write(m.base + kPage + 100, 4 * kPage)) GTEST_SKIP() << "MADV_POPULATE_WRITE unsupported";
  const auto p = m.present();
  EXPECT_EQ(count(p, 0, 2), 0u);
  EXPECT_EQ(count(p, 2, 5), 3u);
  EXPECT_EQ(count(p, 5, 16), 0u);
}

TEST(Populate, FrontStaysAStripeAheadOfTheFill) {
  const size_t stripe_pages = hpcrun::kPopulateStripe / kPage;
  Mapping m(4 * hpcrun::kPopulateStripe);
  ASSERT_NE(m.base, nullptr);
  if (!hpcrun::populate_write(m.base, kPage)) GTEST_SKIP() << "MADV_POPULATE_WRITE unsupported";
  hpcrun::PopulatedFront front;
  front.reach(m.base, m.base + 100, m.bytes);
  auto p = m.present();
  // The page being filled and one stripe beyond it; nothing further.
  EXPECT_EQ(count(p, 0, 1 + stripe_pages), 1 + stripe_pages);
  EXPECT_EQ(count(p, 1 + stripe_pages, p.size()), 0u);
  // A fill inside what is populated asks nothing more; one past it moves the front.
  front.reach(m.base, m.base + stripe_pages * kPage, m.bytes);
  EXPECT_EQ(count(m.present(), 0, p.size()), 1 + stripe_pages);
  front.reach(m.base, m.base + (stripe_pages + 1) * kPage + 1, m.bytes);
  p = m.present();
  EXPECT_EQ(count(p, 0, 2 + 2 * stripe_pages), 2 + 2 * stripe_pages);
  EXPECT_EQ(count(p, 2 + 2 * stripe_pages, p.size()), 0u);
  // Never past the region's end.
  front.reach(m.base, m.base + m.bytes, m.bytes);
  EXPECT_EQ(count(m.present(), 0, p.size()), p.size());
}

TEST(Populate, FrontStartsOverInANewRegion) {
  Mapping a(2 * hpcrun::kPopulateStripe), b(2 * hpcrun::kPopulateStripe);
  ASSERT_NE(a.base, nullptr);
  ASSERT_NE(b.base, nullptr);
  if (!hpcrun::populate_write(a.base, kPage)) GTEST_SKIP() << "MADV_POPULATE_WRITE unsupported";
  hpcrun::PopulatedFront front;
  front.reach(a.base, a.base + 8, a.bytes);
  front.reach(b.base, b.base + 8, b.bytes);
  EXPECT_GT(count(b.present(), 0, 2), 0u);
}

}  // namespace
