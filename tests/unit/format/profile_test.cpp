// The in-memory model's own behaviour: API names, the sorted zero-free metric list, META lookup.
#include <gtest/gtest.h>

#include <limits>

#include "hpcl/profile.h"

namespace hpcl {
namespace {

TEST(AllocApiName, NamesEveryApiOfTheSpec) {
  const char* expected[] = {"malloc", "calloc", "realloc", "reallocarray", "memalign",
                            "posix_memalign", "aligned_alloc", "valloc", "pvalloc", "operator new",
                            "operator new[]", "operator new (aligned)", "operator new[] (aligned)",
                            "mmap"};
  for (int i = 1; i <= 14; ++i) {
    EXPECT_STREQ(alloc_api_name(static_cast<AllocApi>(i)), expected[i - 1]) << "api " << i;
  }
}

TEST(AllocApiName, UnknownValues) {
  EXPECT_STREQ(alloc_api_name(static_cast<AllocApi>(0)), "unknown");
  EXPECT_STREQ(alloc_api_name(static_cast<AllocApi>(23)), "unknown");
  EXPECT_STREQ(alloc_api_name(static_cast<AllocApi>(255)), "unknown");
}

TEST(NodeMetric, AddKeepsSortedSumsAndSkipsZeros) {
  Node n;
  n.add_metric(16, 4);
  n.add_metric(0, 1);
  n.add_metric(1, 0);  // zero: not stored
  n.add_metric(300, 9);
  n.add_metric(1, 50);
  n.add_metric(16, 6);
  n.add_metric(0, 0);
  ASSERT_EQ(n.metrics.size(), 4u);
  EXPECT_EQ(n.metrics[0].id, 0);
  EXPECT_EQ(n.metrics[0].value, 1u);
  EXPECT_EQ(n.metrics[1].id, 1);
  EXPECT_EQ(n.metrics[1].value, 50u);
  EXPECT_EQ(n.metrics[2].id, 16);
  EXPECT_EQ(n.metrics[2].value, 10u);
  EXPECT_EQ(n.metrics[3].id, 300);
  EXPECT_EQ(n.metric(16), 10u);
  EXPECT_EQ(n.metric(300), 9u);
  EXPECT_EQ(n.metric(2), 0u);
  EXPECT_EQ(n.metric(65535), 0u);
  EXPECT_EQ(Node{}.metric(0), 0u);
}

TEST(NodeMetric, SumSaturatesInsteadOfWrapping) {
  Node n;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  n.add_metric(0, kMax - 1);
  n.add_metric(0, 5);
  EXPECT_EQ(n.metric(0), kMax);
  ASSERT_EQ(n.metrics.size(), 1u);
}

TEST(ProfileMeta, FindAndSet) {
  Profile p;
  EXPECT_EQ(p.find_meta("pid"), nullptr);
  p.set_meta("tool", "hpcrun-lite");
  p.set_meta("pid", "1");
  p.set_meta("tool", "hpcprof-lite");  // replaces in place, keeps order
  ASSERT_EQ(p.meta.size(), 2u);
  EXPECT_EQ(p.meta[0].first, "tool");
  EXPECT_EQ(p.meta[0].second, "hpcprof-lite");
  ASSERT_NE(p.find_meta("pid"), nullptr);
  EXPECT_EQ(*p.find_meta("pid"), "1");
  p.set_meta("", "empty key is a key");
  ASSERT_NE(p.find_meta(""), nullptr);
  EXPECT_EQ(p.meta.size(), 3u);
}

}  // namespace
}  // namespace hpcl
