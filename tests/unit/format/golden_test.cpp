// Pins the exact bytes of the format. The checked-in files in golden/ must keep reading the same
// forever, and the writer must keep producing them (a writer stamps the lowest minor that
// describes its file, so a profile without 1.2 content is still written as the 1.0 bytes). A
// change here is a format change and needs a version bump in docs/FORMAT.md. To regenerate
// deliberately: HPCL_UPDATE_GOLDEN=1 ctest -R Golden.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "test_util.h"

namespace hpcl {
namespace {

std::string golden_path(const std::string& name) { return std::string(HPCL_GOLDEN_DIR) + "/" + name; }

bool updating() {
  const char* v = std::getenv("HPCL_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::string hex_around(const std::vector<uint8_t>& b, size_t at) {
  std::string s;
  char buf[8];
  for (size_t i = at > 8 ? at - 8 : 0; i < std::min(b.size(), at + 8); ++i) {
    std::snprintf(buf, sizeof buf, i == at ? "[%02x]" : " %02x ", b[i]);
    s += buf;
  }
  return s;
}

void check_golden(const std::string& name, const Profile& p) {
  std::vector<uint8_t> bytes = encode_profile(p, 0);
  std::string path = golden_path(name);
  if (updating()) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << "cannot write " << path;
    GTEST_SKIP() << "rewrote " << path << " (HPCL_UPDATE_GOLDEN=1); review the diff before committing";
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing; create it with HPCL_UPDATE_GOLDEN=1";
  std::vector<uint8_t> golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  // The reader still reads the pinned bytes into the same model...
  ReadResult r = read_profile_file(path);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(test::dump(r.profile), test::dump(p));
  // ...and the writer still writes them.
  size_t diff = 0;
  while (diff < bytes.size() && diff < golden.size() && bytes[diff] == golden[diff]) ++diff;
  EXPECT_EQ(bytes.size(), golden.size()) << name;
  EXPECT_EQ(diff, std::max(bytes.size(), golden.size()))
      << name << ": first difference at byte " << diff << "\n  written: " << hex_around(bytes, diff)
      << "\n  golden:  " << hex_around(golden, diff);
}

TEST(Golden, SmallProcess) { check_golden("small-process-1.0.hpcl", test::small_process()); }
TEST(Golden, SmallDatabase) { check_golden("small-database-1.0.hpcdb", test::small_database()); }
TEST(Golden, SmallDatabaseWithBalance) {
  check_golden("small-database-balance-1.3.hpcdb", test::small_database_balance());
}
TEST(Golden, SmallDatabaseWithFirstTouch) {
  check_golden("small-database-first-touch-1.5.hpcdb", test::small_database_first_touch());
}
TEST(Golden, SmallProcessWithOffsets) {
  check_golden("small-process-offsets-1.2.hpcl", test::small_process_offsets());
}
TEST(Golden, PythonProcess) { check_golden("python-process-1.8.hpcl", test::python_process()); }
TEST(Golden, PythonDatabase) { check_golden("python-database-1.8.hpcdb", test::python_database()); }
TEST(Golden, SmallDatabaseWithRankValues) {
  check_golden("small-database-ranks-1.9.hpcdb", test::small_database_ranks());
}

// The same small profile spelled out field by field from docs/FORMAT.md, independently of the
// writer: if this fails, the writer and the spec disagree (the golden file alone would only show
// that the bytes changed).
TEST(Golden, WriterMatchesTheSpecByHand) {
  using test::Bytes;
  Bytes meta, modules, sites, statics, tree, offsets;
  meta.u32(2).str("tool").str("hpcrun-lite").str("pid").str("7");
  modules.u32(1).str("/bin/a").str("ab").u64(0x1000);
  sites.u32(1).u8(2 /*calloc*/).u8(0).u64(2).u64(128).u32(1).u32(0).u64(0x10);
  statics.u32(1).u32(0).u64(0x20).u64(4).u8(0).str("g");
  tree.u32(7).u32(7);
  tree.u32(0xffffffff).u8(0).u32(0).u64(0).u8(0);             // 0 Root
  tree.u32(0).u8(1).u32(0).u64(0).u8(0);                      // 1 HeapRoot
  tree.u32(1).u8(6).u32(0).u64(0).u8(0);                      // 2 HeapVar site 0
  tree.u32(2).u8(5).u32(0).u64(0x30).u8(1).u16(0).u64(5);     // 3 Frame, samples 5
  tree.u32(0).u8(2).u32(0).u64(0).u8(0);                      // 4 StaticRoot
  tree.u32(4).u8(7).u32(0).u64(0).u8(0);                      // 5 StaticVar 0
  tree.u32(5).u8(5).u32(0).u64(0x34).u8(2).u16(0).u64(1).u16(1).u64(300);  // 6 Frame
  offsets.u32(2);
  offsets.u8(1 /*site*/).u32(0).u64(8).u64(60).u32(32);
  for (int b = 0; b < 32; ++b) offsets.u64(b == 2 ? 4 : b == 15 ? 1 : 0);
  offsets.u8(2 /*static*/).u32(0).u64(3).u64(3).u32(32);
  for (int b = 0; b < 32; ++b) offsets.u64(b == 31 ? 1 : 0);
  Bytes payload;
  payload.section(1, meta.v).section(2, modules.v).section(3, sites.v).section(4, statics.v)
      .section(5, tree.v);
  EXPECT_EQ(encode_profile(test::small_process(), 0), test::file_with({1, 0, 1, 0}, payload.v));
  // 1.2: the same with an OFFSETS section at the end, and minor 2.
  payload.section(8, offsets.v);
  EXPECT_EQ(encode_profile(test::small_process_offsets(), 0), test::file_with({1, 2, 1, 0}, payload.v));
}

}  // namespace
}  // namespace hpcl
