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

// -e soft -e wp-sharing@20 -e wp-reuse: the watchpoint analyses beside the address source.
TEST(Options, WatchpointAnalyses) {
  Options o;
  char err[256];
  ASSERT_TRUE(parse_sources("soft,wp-sharing@20,wp-reuse", &o, err, sizeof err)) << err;
  ASSERT_EQ(o.nsources, 3);
  EXPECT_EQ(o.sources[1].kind, SourceKind::WpSharing);
  EXPECT_EQ(o.sources[1].rate, 20u);
  EXPECT_EQ(o.sources[2].kind, SourceKind::WpReuse);
  EXPECT_EQ(o.sources[2].rate, 0u) << "0 = the default rate";
  EXPECT_STREQ(source_name(SourceKind::WpSharing), "wp-sharing");
  EXPECT_STREQ(source_name(SourceKind::WpReuse), "wp-reuse");
  char buf[64];
  EXPECT_STREQ(source_text(o.sources[1], buf, sizeof buf), "wp-sharing@20");
  EXPECT_FALSE(parse_sources("wp-share", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "wp-reuse"), nullptr) << err;
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

TEST(Options, ParsesHardwareSourceSpellings) {
  Options o;
  char err[256], text[96];
  ASSERT_TRUE(parse_sources("pebs-load@20000:ldlat=30,pebs-store@5000,ibs-op@65536", &o, err, sizeof err)) << err;
  ASSERT_EQ(o.nsources, 3);
  EXPECT_EQ(o.sources[0].kind, SourceKind::Pebs);
  EXPECT_EQ(o.sources[0].rate, 20000u);
  EXPECT_EQ(o.sources[0].ldlat, 30u);
  EXPECT_EQ(o.sources[1].kind, SourceKind::PebsStore);
  EXPECT_EQ(o.sources[1].rate, 5000u);
  EXPECT_EQ(o.sources[2].kind, SourceKind::Ibs);
  EXPECT_EQ(o.sources[2].rate, 65536u);
  // Written back as they are read: the launcher passes them to the runtime this way.
  EXPECT_STREQ(source_text(o.sources[0], text, sizeof text), "pebs-load@20000:ldlat=30");
  EXPECT_STREQ(source_text(o.sources[2], text, sizeof text), "ibs-op@65536");

  SourceSpec s;
  ASSERT_TRUE(parse_source("pebs-load:ldlat=3", 17, &s, err, sizeof err)) << err;
  EXPECT_EQ(s.rate, 0u);
  EXPECT_EQ(s.ldlat, 3u);
  ASSERT_TRUE(parse_source("pebs", 4, &s, err, sizeof err));  // the first spellings stay
  EXPECT_EQ(s.kind, SourceKind::Pebs);
  EXPECT_EQ(s.ldlat, 0u);
  ASSERT_TRUE(parse_source("ibs", 3, &s, err, sizeof err));
  EXPECT_EQ(s.kind, SourceKind::Ibs);
  EXPECT_STREQ(source_text(s, text, sizeof text), "ibs-op");
  ASSERT_TRUE(parse_source("ibs-op@4096:l3miss", 18, &s, err, sizeof err)) << err;
  EXPECT_TRUE(s.l3miss);
  EXPECT_EQ(s.rate, 4096u);
  EXPECT_STREQ(source_text(s, text, sizeof text), "ibs-op@4096:l3miss");
}

TEST(Options, ParsesPapiPresets) {
  Options o;
  char err[256], text[96];
  ASSERT_TRUE(parse_sources("PAPI_TOT_CYC@100000,PAPI_L3_TCM", &o, err, sizeof err)) << err;
  ASSERT_EQ(o.nsources, 2);
  EXPECT_EQ(o.sources[0].kind, SourceKind::Papi);
  EXPECT_STREQ(o.sources[0].papi_event, "PAPI_TOT_CYC");
  EXPECT_EQ(o.sources[0].rate, 100000u);
  EXPECT_STREQ(o.sources[1].papi_event, "PAPI_L3_TCM");
  EXPECT_EQ(o.sources[1].rate, 0u);
  EXPECT_STREQ(source_text(o.sources[0], text, sizeof text), "PAPI_TOT_CYC@100000");
  EXPECT_STREQ(source_text(o.sources[1], text, sizeof text), "PAPI_L3_TCM");
}

// A component's native event keeps its colons; '@' still starts the period.
TEST(Options, ParsesPapiNativeEvents) {
  Options o;
  char err[256], text[96];
  ASSERT_TRUE(parse_sources("sde:::HPCL_TEST::WORK@9973,soft,perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS",
                            &o, err, sizeof err)) << err;
  ASSERT_EQ(o.nsources, 3);
  EXPECT_EQ(o.sources[0].kind, SourceKind::Papi);
  EXPECT_STREQ(o.sources[0].papi_event, "sde:::HPCL_TEST::WORK");
  EXPECT_EQ(o.sources[0].rate, 9973u);
  EXPECT_STREQ(source_text(o.sources[0], text, sizeof text), "sde:::HPCL_TEST::WORK@9973");
  EXPECT_EQ(o.sources[1].kind, SourceKind::Soft);
  EXPECT_EQ(o.sources[2].kind, SourceKind::Papi);
  EXPECT_STREQ(o.sources[2].papi_event, "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS");
  EXPECT_FALSE(parse_sources(":::x", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("sde:::A B", &o, err, sizeof err));  // no spaces in a name
  EXPECT_FALSE(parse_sources("sde:::HPCL_TEST::WORK@0", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("sde:::HPCL_TEST::WORK@4294967296", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "above PAPI's maximum"), nullptr) << err;
  EXPECT_FALSE(parse_sources("sde:::A_NAME_FAR_TOO_LONG_FOR_THE_RUNTIME_TO_KEEP_IT", &o, err, sizeof err));
}

TEST(Options, RejectsBadHardwareSpellings) {
  Options o;
  char err[256];
  EXPECT_FALSE(parse_sources("pebs-store:ldlat=3", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "only pebs-load (:ldlat=N) and ibs-op (:l3miss) take a modifier"), nullptr) << err;
  EXPECT_FALSE(parse_sources("ibs-op:ldlat=3", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "ibs-op takes :l3miss"), nullptr) << err;
  EXPECT_FALSE(parse_sources("soft@100:ldlat=3", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("pebs-load:ldlat=0", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "1 <= N <= 65535"), nullptr) << err;
  EXPECT_FALSE(parse_sources("pebs-load:ldlat=70000", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("pebs-load:lat=30", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("pebs-load:ldlat=", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("pebs-load@:ldlat=30", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "bad rate"), nullptr) << err;
  EXPECT_FALSE(parse_sources("ibs-op@0", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("PAPI_", &o, err, sizeof err));
  EXPECT_FALSE(parse_sources("PAPI_tot_cyc", &o, err, sizeof err));
  EXPECT_NE(strstr(err, "unknown sampling source 'PAPI_tot_cyc'"), nullptr) << err;
  EXPECT_FALSE(parse_sources("PAPI_A_NAME_FAR_TOO_LONG_FOR_ANY_PRESET_OF_PAPI_XX", &o, err, sizeof err));
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
