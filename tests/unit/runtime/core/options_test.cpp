// Option parsing shared by the launcher and the runtime.
#include "options.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace hpcrun;

TEST(Options, ParsesSourcesAndRates) {
  Options o;
  char err[256];
  ASSERT_TRUE(parse_sources("soft@500,auto", &o, err, sizeof err)) << err;
  ASSERT_EQ(o.nsources, 2);
  EXPECT_EQ(o.sources[0].kind, SourceKind::Soft);
  EXPECT_EQ(o.sources[0].rate, 500u);
  EXPECT_EQ(o.sources[1].kind, SourceKind::Auto);
  EXPECT_EQ(o.sources[1].rate, 0u);
}

// -e soft -e page-faults reaches the runtime as "soft,page-faults": both kept, in order.
TEST(Options, PageFaultsBesideAnotherSource) {
  Options o;
  char err[256];
  ASSERT_TRUE(parse_sources("soft,page-faults@8", &o, err, sizeof err)) << err;
  ASSERT_EQ(o.nsources, 2);
  EXPECT_EQ(o.sources[0].kind, SourceKind::Soft);
  EXPECT_EQ(o.sources[1].kind, SourceKind::PageFaults);
  EXPECT_EQ(o.sources[1].rate, 8u);
  EXPECT_STREQ(source_name(SourceKind::PageFaults), "page-faults");
  ASSERT_TRUE(parse_sources("page-faults", &o, err, sizeof err)) << err;
  ASSERT_EQ(o.nsources, 1);
  EXPECT_EQ(o.sources[0].rate, 0u) << "0 = the default period, every fault";
  EXPECT_FALSE(parse_sources("page-fault", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "page-faults"), nullptr) << "the message lists the known names: " << err;
}

TEST(Options, RejectsBadSources) {
  Options o;
  char err[256];
  EXPECT_FALSE(parse_sources("bogus", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "unknown sampling source 'bogus'"), nullptr);
  EXPECT_FALSE(parse_sources("soft@", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("soft@0", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("soft@12x", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("soft@99999999", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "above the maximum"), nullptr);
}

TEST(Options, ParsesSizes) {
  uint64_t v;
  ASSERT_TRUE(parse_size("4096", &v));
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(parse_size("4k", &v));
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(parse_size("2M", &v));
  EXPECT_EQ(v, 2u << 20);
  ASSERT_TRUE(parse_size("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_FALSE(parse_size("", &v));
  EXPECT_FALSE(parse_size("-1", &v));
  EXPECT_FALSE(parse_size("99999999999999999999", &v));
  EXPECT_FALSE(parse_size("1t", &v));
}

TEST(Options, SmallEveryIsAutoOrANumber) {
  uint64_t v = 0;
  char buf[32];
  ASSERT_TRUE(parse_small_every("auto", &v));
  EXPECT_EQ(v, kSmallEveryAuto);
  EXPECT_STREQ(small_every_text(v, buf, sizeof buf), "auto");
  ASSERT_TRUE(parse_small_every("64", &v));
  EXPECT_EQ(v, 64u);
  EXPECT_STREQ(small_every_text(v, buf, sizeof buf), "64");
  ASSERT_TRUE(parse_small_every("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_FALSE(parse_small_every("Auto", &v));
  EXPECT_FALSE(parse_small_every("", &v));
  EXPECT_FALSE(parse_small_every("18446744073709551615", &v));  // would read as auto
  EXPECT_EQ(kDefaultSmallEvery, kSmallEveryAuto);
}
