// write_profile_file and read_profile_file on a real file system: the rename leaves no temporary
// file behind, and failures name the path and the system's reason.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace hpcl {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "hpcl-format-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir_, ec)) {
      fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(dir_);
  }
  std::vector<std::string> entries(const fs::path& d) const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

TEST_F(FileTest, WriteThenReadLeavesOnlyTheFile) {
  Profile p = test::rich_process();
  std::string path = (dir_ / "p.hpcl").string();
  std::string error;
  ASSERT_TRUE(write_profile_file(p, path, &error)) << error;
  EXPECT_EQ(entries(dir_), std::vector<std::string>{"p.hpcl"});
  ReadResult r = read_profile_file(path);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(test::dump(r.profile), test::dump(p));

  // Overwriting replaces the file whole.
  Profile small = test::small_process();
  ASSERT_TRUE(write_profile_file(small, path, &error, 0)) << error;
  EXPECT_EQ(entries(dir_), std::vector<std::string>{"p.hpcl"});
  EXPECT_EQ(fs::file_size(path), encode_profile(small, 0).size());
  r = read_profile_file(path);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(test::dump(r.profile), test::dump(small));
}

TEST_F(FileTest, MissingDirectoryFailsCleanly) {
  std::string path = (dir_ / "no" / "p.hpcl").string();
  std::string error;
  EXPECT_FALSE(write_profile_file(test::small_process(), path, &error));
  EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
  EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
  EXPECT_TRUE(entries(dir_).empty());
  // A null error pointer is allowed.
  EXPECT_FALSE(write_profile_file(test::small_process(), path, nullptr));
}

TEST_F(FileTest, ReadOnlyDirectoryFailsCleanly) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  fs::path ro = dir_ / "ro";
  fs::create_directory(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  std::string path = (ro / "p.hpcl").string();
  std::string error;
  EXPECT_FALSE(write_profile_file(test::small_process(), path, &error));
  EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
  EXPECT_NE(error.find("Permission denied"), std::string::npos) << error;
  EXPECT_TRUE(entries(ro).empty());
}

// The rename fails after the temporary file was written: it must be removed.
TEST_F(FileTest, FailedRenameRemovesTheTemporaryFile) {
  fs::path target = dir_ / "taken";
  fs::create_directory(target);
  fs::create_directory(target / "child");  // a non-empty directory cannot be replaced
  std::string error;
  EXPECT_FALSE(write_profile_file(test::small_process(), target.string(), &error));
  EXPECT_EQ(error.rfind(target.string() + ": cannot rename ", 0), 0u) << error;
  EXPECT_EQ(entries(dir_), std::vector<std::string>{"taken"});
}

// The mode asked for is the file's (the runtime asks 0600: profiles hold the program's command
// line and paths); with the default, the umask decides as for any output file.
TEST_F(FileTest, FileIsCreatedWithTheModeAskedFor) {
  std::string path = (dir_ / "private.hpcl").string(), error;
  mode_t old = ::umask(022);
  ASSERT_TRUE(write_profile_file(test::small_process(), path, &error, 3, 0600)) << error;
  std::string shared = (dir_ / "shared.hpcdb").string();
  ASSERT_TRUE(write_profile_file(test::small_process(), shared, &error)) << error;
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(shared.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

// A symbolic link planted at the final name is replaced, never written through: the file it
// points to, outside the directory, keeps its bytes.
TEST_F(FileTest, SymlinkAtTheFinalNameIsReplacedNotFollowed) {
  fs::path outside = dir_ / "outside";
  fs::create_directory(outside);
  fs::path victim = outside / "victim";
  { std::ofstream(victim) << "keep me"; }
  fs::path meas = dir_ / "meas";
  fs::create_directory(meas);
  fs::path path = meas / "p.hpcl";
  fs::create_symlink(victim, path);
  std::string error;
  ASSERT_TRUE(write_profile_file(test::small_process(), path.string(), &error, 3, 0600)) << error;
  EXPECT_FALSE(fs::is_symlink(path));
  EXPECT_TRUE(read_profile_file(path.string()).ok);
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "keep me");
}

TEST_F(FileTest, ReadErrorsNameThePath) {
  std::string dir = dir_.string();
  ReadResult r = read_profile_file(dir);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, dir + ": Is a directory");

  std::string path = (dir_ / "empty.hpcl").string();
  { std::ofstream(path).flush(); }
  r = read_profile_file(path);
  EXPECT_EQ(r.error, path + ": empty file (not a hpcrun-lite file)");
}

// ProfileWriter: a profile handed over piece by piece (as the runtime does at exit) gives the
// bytes write_profile_file gives for the whole Profile, and what was handed over wrong fails the
// write without leaving a file.

// Many sites with long call paths, one named: a payload of tens of MiB, written while encoded.
Profile many_sites(uint32_t n) {
  Profile p = test::small_process();
  p.sites.clear();
  for (uint32_t i = 0; i < n; ++i) {
    AllocSite s;
    s.api = i % 7 == 0 ? AllocApi::New : AllocApi::Malloc;
    s.allocations = i + 1;
    s.bytes = uint64_t{i} * 40;
    for (uint32_t f = 0; f < 1 + i % 40; ++f) s.frames.push_back({0, 0x1000 + 16 * uint64_t{i} + f});
    p.sites.push_back(std::move(s));
  }
  p.sites[n / 2].name = "/dev/shm/segment";
  for (Tree& t : p.trees)
    for (Node& node : t.nodes)
      if (node.kind == NodeKind::HeapVar) node.a = n - 1 - node.a;
  return p;
}

TEST_F(FileTest, PiecesGiveTheBytesOfTheWholeProfile) {
  for (int level : {0, 3}) {
    for (const Profile& p : {test::rich_process(), test::small_process_offsets(), test::python_process(),
                             many_sites(60000)}) {
      std::string path = (dir_ / "pieces.hpcl").string(), error;
      {
        ProfileWriter w(p.kind, level);
        ASSERT_TRUE(w.open(path, 0600, &error)) << error;
        test::write_pieces(w, p);
        ASSERT_TRUE(w.commit(&error)) << error;
      }
      EXPECT_EQ(entries(dir_), std::vector<std::string>{"pieces.hpcl"});
      std::ifstream in(path, std::ios::binary);
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_EQ(bytes, encode_profile(p, level)) << "level " << level;
      // The reader (decode.cpp, not the encoder) sees every piece.
      ReadResult r = read_profile_file(path);
      ASSERT_TRUE(r.ok) << r.error;
      EXPECT_EQ(test::dump(r.profile), test::dump(p));
    }
  }
}

TEST_F(FileTest, PiecesHandedOverWrongFailWithoutAFile) {
  Profile p = test::rich_process();
  std::string path = (dir_ / "wrong.hpcl").string();
  auto expect_fails = [&](const char* what, auto&& feed) {
    ProfileWriter w(p.kind, 3);
    std::string error;
    ASSERT_TRUE(w.open(path, 0600, &error)) << error;
    feed(w);
    EXPECT_FALSE(w.commit(&error)) << what;
    EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(what), std::string::npos) << error;
    EXPECT_TRUE(entries(dir_).empty()) << what;
  };
  expect_fails("SITES: the count", [&](ProfileWriter& w) {
    w.meta(p.meta);
    w.modules(p.modules);
    w.begin_sites(static_cast<uint32_t>(p.sites.size()) + 1, 100);
    for (const AllocSite& s : p.sites) w.site(s);
    w.statics(p.statics);
  });
  expect_fails("more sites than announced", [&](ProfileWriter& w) {
    w.meta(p.meta);
    w.modules(p.modules);
    w.begin_sites(0, 0);
    w.site(p.sites[0]);
  });
  expect_fails("out of order", [&](ProfileWriter& w) {
    test::write_pieces(w, p);
    w.statics(p.statics);
  });
  expect_fails("SITES missing", [&](ProfileWriter& w) {
    w.meta(p.meta);
    w.modules(p.modules);
    w.statics(p.statics);
  });
  // Not committed (the writer gave up): nothing is left either.
  {
    ProfileWriter w(p.kind, 3);
    std::string error;
    ASSERT_TRUE(w.open(path, 0600, &error)) << error;
    test::write_pieces(w, p);
  }
  EXPECT_TRUE(entries(dir_).empty());
}

}  // namespace
}  // namespace hpcl
