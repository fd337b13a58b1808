// The merge's reader (hpcl/scan.h) on files: what read_profile_file reads and says, from one
// scanner whose buffers go from file to file (larger, smaller, damaged, then good again). Every
// other format test compares the two readers on bytes (test::read).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace hpcl {
namespace {

namespace fs = std::filesystem;

class ScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("hpcl-scan-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const Profile& p, const std::string& name, int level) {
    std::string path = (dir_ / name).string(), error;
    EXPECT_TRUE(write_profile_file(p, path, &error, level)) << error;
    return path;
  }
  // The scanner's verdict on `path` is the reader's, profile included.
  void expect_same(const std::string& path) {
    ReadResult r = read_profile_file(path);
    std::string error = scanner_.read_file(path, scanned_);
    ASSERT_EQ(error, r.error) << path;
    if (!r.ok) return;
    Profile rebuilt = scanned_.profile;
    for (const FlatTree& t : scanned_.trees()) rebuilt.trees.push_back(unflatten(t));
    EXPECT_EQ(test::dump(rebuilt), test::dump(r.profile)) << path;
  }

  fs::path dir_;
  ProfileScanner scanner_;
  ScannedProfile scanned_;
};

TEST_F(ScanTest, ReadsFileAfterFileAsTheReaderDoes) {
  // A big one, a small one, stored and compressed, damaged ones between good ones: each read
  // starts from what the previous left in the buffers.
  Profile big = test::rich_process();
  for (int t = 0; t < 6; ++t) big.trees.push_back(big.trees[t % 2]);
  const std::string big_z = write(big, "big.hpcl", 3);
  const std::string small = write(test::small_process(), "small.hpcl", 0);
  const std::string offsets = write(test::small_process_offsets(), "offsets.hpcl", 1);
  const std::string database = write(test::rich_database(), "db.hpcl", 3);
  std::vector<uint8_t> cut = encode_profile(big, 3);
  cut.resize(cut.size() * 2 / 3);
  const std::string truncated = (dir_ / "truncated.hpcl").string();
  std::ofstream(truncated, std::ios::binary).write(reinterpret_cast<const char*>(cut.data()), std::streamsize(cut.size()));
  const std::string junk = (dir_ / "junk.hpcl").string();
  std::ofstream(junk) << "{\"not\": \"a profile\"}";
  const std::string missing = (dir_ / "missing.hpcl").string();
  const std::string fifo = (dir_ / "fifo.hpcl").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {big_z, small, truncated, big_z, junk, offsets, missing, database,
                                  fifo, dir_.string(), small, big_z})
    expect_same(path);
}

TEST_F(ScanTest, LeavesChildrenWithOneKeyToItsCaller) {
  Profile p = test::small_process();
  Tree& t = p.trees.at(0);
  ASSERT_GE(t.nodes.size(), 3u);
  t.nodes.push_back(t.nodes[2]);  // a twin of node 2: same parent, same key
  t.nodes.back().metrics.clear();
  const std::string path = write(p, "twins.hpcl", 3);
  ReadResult r = read_profile_file(path);
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(scanner_.read_file(path, scanned_), "");
  ASSERT_EQ(scanned_.trees().size(), p.trees.size());
  EXPECT_EQ(path + ": " + find_duplicate_children(scanned_.trees()[0], 0), r.error);
  EXPECT_EQ(find_duplicate_children(scanned_.trees()[0], 0),
            duplicate_children_error(0, t.tid, 2, uint32_t(t.nodes.size() - 1), t.nodes[2].parent));
}

}  // namespace
}  // namespace hpcl
