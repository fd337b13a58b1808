// Format 1.7: the allocation APIs of mappings, named ranges and the allocators' own entry points,
// and SITE_NAMES, which gives a site the name the program knows the memory by. The section is
// checked against hand-built bytes (docs/FORMAT.md), not only against the writer.
#include <gtest/gtest.h>

#include "test_util.h"

namespace hpcl {
namespace {

Profile named_process() {
  Profile p = test::small_process();
  p.sites.push_back(AllocSite{AllocApi::MmapFile, 0, {{0, 0x30}}, 1, 1 << 20, "/data/run/input.bin"});
  p.sites.push_back(AllocSite{AllocApi::Named, 0, {{0, 0x40}}, 3, 3 << 20, "alpha"});
  return p;
}

using test::minor_of;

TEST(SiteNames, RoundTripAndMinor) {
  Profile p = named_process();
  std::vector<uint8_t> b = encode_profile(p, 3);
  EXPECT_EQ(minor_of(b), kMinorSiteNames);
  EXPECT_EQ(kMinorSiteNames, 7);
  ReadResult r = test::read(b);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(test::dump(r.profile), test::dump(p));
  EXPECT_EQ(r.profile.sites[1].name, "/data/run/input.bin");
  EXPECT_EQ(r.profile.sites[2].name, "alpha");
  EXPECT_TRUE(r.profile.sites[0].name.empty());
}

TEST(SiteNames, ANewApiAloneIs17AndAFileWithoutEitherKeepsItsMinor) {
  Profile p = test::small_process();
  EXPECT_EQ(minor_of(encode_profile(p, 0)), 0);
  p.sites[0].api = AllocApi::Tcmalloc;
  EXPECT_EQ(minor_of(encode_profile(p, 0)), kMinorSiteNames);
  // No SITE_NAMES section without a name: the payload is that of 1.0 apart from the api byte.
  for (const test::RawSection& s : test::split_sections(test::payload_of(encode_profile(p, 0))))
    EXPECT_NE(s.tag, 11u);
}

TEST(SiteNames, ApiNames) {
  EXPECT_STREQ(alloc_api_name(AllocApi::MmapFile), "mmap file");
  EXPECT_STREQ(alloc_api_name(AllocApi::MmapShm), "mmap shm");
  EXPECT_STREQ(alloc_api_name(AllocApi::Shmat), "shmat");
  EXPECT_STREQ(alloc_api_name(AllocApi::Named), "named");
  EXPECT_STREQ(alloc_api_name(AllocApi::Jemalloc), "mallocx");
  EXPECT_STREQ(alloc_api_name(AllocApi::Mimalloc), "mi_malloc");
  EXPECT_STREQ(alloc_api_name(AllocApi::Tbbmalloc), "scalable_malloc");
  EXPECT_STREQ(alloc_api_name(AllocApi::Tcmalloc), "tc_malloc");
  EXPECT_STREQ(alloc_api_name(AllocApi(23)), "unknown");
}

// The payload of small_process() with a SITE_NAMES section built by hand after it.
std::vector<uint8_t> with_names(const test::Bytes& names) {
  test::Bytes payload;
  payload.raw(test::payload_of(encode_profile(test::small_process(), 0)));
  payload.section(11, names.v);
  return test::file_with({1, 7, 1, 0}, payload.v);
}

TEST(SiteNames, HandBuiltSectionIsRead) {
  test::Bytes names;
  names.u32(1).u32(0).str("/dev/shm/halo");
  ReadResult r = test::read(with_names(names));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.profile.sites[0].name, "/dev/shm/halo");
}

TEST(SiteNames, DamageIsRefusedInPlainWords) {
  test::Bytes out_of_range;
  out_of_range.u32(1).u32(4).str("x");
  EXPECT_EQ(test::read(with_names(out_of_range), "f").error,
            "f: SITE_NAMES entry 0: site index 4 out of range (1 sites)");
  test::Bytes empty;
  empty.u32(1).u32(0).str("");
  EXPECT_EQ(test::read(with_names(empty), "f").error, "f: SITE_NAMES entry 0: empty name");
  test::Bytes twice;
  twice.u32(2).u32(0).str("a").u32(0).str("b");
  EXPECT_EQ(test::read(with_names(twice), "f").error,
            "f: SITE_NAMES entry 1: site 0 out of order (entries are sorted by site, each site at "
            "most once)");
  test::Bytes too_many;
  too_many.u32(1000);
  EXPECT_NE(test::read(with_names(too_many), "f").error.find("cannot fit"), std::string::npos);
  // Before SITES: the names would have nothing to name.
  test::Bytes names;
  names.u32(0);
  test::Bytes payload;
  payload.section(11, names.v);
  payload.raw(test::payload_of(encode_profile(test::small_process(), 0)));
  EXPECT_NE(test::read(test::file_with({1, 7, 1, 0}, payload.v), "f")
                .error.find("SITE_NAMES at payload byte 0 without SITES before it"),
            std::string::npos);
}

}  // namespace
}  // namespace hpcl
