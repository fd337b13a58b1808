// The reader's memory stays bounded by what a file really holds, whatever its header and counts
// claim. Each check runs in a child process under an address-space limit (RLIMIT_AS) a few
// hundred MiB above what the test already uses: a reader that allocated what a small file claims
// dies of bad_alloc there, a bounded one returns an error. This binary links the unsanitized
// library, because ASan reserves terabytes of shadow memory and cannot run under RLIMIT_AS.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "test_util.h"

namespace hpcl {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kHeadroom = uint64_t{384} << 20;

// Caps the address space of this (child) process at its current size plus kHeadroom.
void limit_address_space() {
  long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  uint64_t now = static_cast<uint64_t>(pages) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  rlimit r{now + kHeadroom, now + kHeadroom};
  if (::setrlimit(RLIMIT_AS, &r) != 0) std::_Exit(3);
}

// In a child: read `path` under the limit; exit 0 if the reader refused it with `what` in its
// message, 1 if it accepted it, 2 if the message was another.
[[noreturn]] void read_bounded(const std::string& path, const std::string& what) {
  limit_address_space();
  ReadResult r = read_profile_file(path);
  if (r.ok) std::_Exit(1);
  std::fprintf(stderr, "%s\n", r.error.c_str());
  std::_Exit(r.error.rfind(path + ": ", 0) == 0 && r.error.find(what) != std::string::npos ? 0 : 2);
}

class Limits : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "hpcl-limits-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string put(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  fs::path dir_;
};

// A zstd frame of `payload` without a content size: then only the header's payload_size says
// how much the payload is.
std::vector<uint8_t> frame_without_size(const std::vector<uint8_t>& payload) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  std::vector<uint8_t> out(ZSTD_compressBound(payload.size()));
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  ZSTD_inBuffer in{payload.data(), payload.size(), 0};
  size_t rest = ZSTD_compressStream2(c, &o, &in, ZSTD_e_end);
  ZSTD_freeCCtx(c);
  EXPECT_EQ(rest, 0u);
  out.resize(o.pos);
  return out;
}

// 4 MiB of compressed data (random bytes do not compress) claiming 256 times as much, the most a
// header may claim for its size: the reader must not allocate the claim before decompressing.
TEST_F(Limits, SmallCompressedFileClaimingAHugePayloadFailsWithoutAllocatingIt) {
  std::vector<uint8_t> payload(4 << 20);
  std::mt19937_64 rng(7);
  for (auto& b : payload) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> frame = frame_without_size(payload);
  std::vector<uint8_t> file = test::file_with({1, 0, 1, 1}, frame);
  uint64_t claim = 256 * uint64_t{frame.size()};
  ASSERT_GT(claim, kHeadroom * 2);
  for (int i = 0; i < 8; ++i) file[16 + i] = static_cast<uint8_t>(claim >> (8 * i));
  std::string path = put("claims-1gib.hpcl", file);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EXIT(read_bounded(path, "decompressed to " + std::to_string(payload.size())),
              ::testing::ExitedWithCode(0), "");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

// A compressed frame that really decompresses to more than the header says stops as soon as it
// passes the claim, not at the end of the frame.
TEST_F(Limits, FrameLongerThanTheClaimStopsAtTheClaim) {
  // 1 GiB of zeros, compressed a MiB at a time (it compresses to a few KiB).
  std::vector<uint8_t> zeros(size_t{1} << 20), frame(size_t{1} << 20);
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_outBuffer o{frame.data(), frame.size(), 0};
  for (int i = 0; i < 1024; ++i) {
    ZSTD_inBuffer in{zeros.data(), zeros.size(), 0};
    while (in.pos < in.size) ZSTD_compressStream2(c, &o, &in, ZSTD_e_continue);
  }
  ZSTD_inBuffer none{nullptr, 0, 0};
  while (ZSTD_compressStream2(c, &o, &none, ZSTD_e_end) != 0) {
  }
  ZSTD_freeCCtx(c);
  frame.resize(o.pos);
  std::vector<uint8_t> file = test::file_with({1, 0, 1, 1}, frame);
  file[16] = 0;
  file[17] = 0;
  file[18] = 0x10;  // claims 1 MiB
  for (int i = 19; i < 24; ++i) file[i] = 0;
  std::string path = put("bomb.hpcl", file);
  EXPECT_EXIT(read_bounded(path, "holds more than the 1048576 bytes the header says"),
              ::testing::ExitedWithCode(0), "");
}

// A small uncompressed file whose TREE claims 4 billion nodes: the count is refused before
// anything is reserved for it.
TEST_F(Limits, AbsurdCountInASmallFileFailsWithoutAllocatingIt) {
  std::vector<uint8_t> tree = test::Bytes().u32(1).u32(0xffffffffu).u64(0).v;
  std::string path = put("count.hpcl", test::file_with({}, test::Bytes().section(5, tree).v));
  EXPECT_EXIT(read_bounded(path, "4294967295 nodes cannot fit"), ::testing::ExitedWithCode(0), "");
}

// The file size is checked before anything is read: a (sparse) file larger than any profile is
// refused at once, without reading or holding its bytes.
TEST_F(Limits, FileLargerThanAnyProfileIsRefusedBeforeReading) {
  std::string path = (dir_ / "huge.hpcl").string();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> head = encode_profile(test::small_process(), 0);
  ASSERT_EQ(::write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
  if (::ftruncate(fd, off_t{5} << 30) != 0) {
    ::close(fd);
    GTEST_SKIP() << "cannot make a 5 GiB sparse file here: " << std::strerror(errno);
  }
  ::close(fd);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EXIT(read_bounded(path, "larger than any profile this reader accepts"),
              ::testing::ExitedWithCode(0), "");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

// Names that are not regular files: a FIFO without a writer must not block the reader, and a
// device that never ends must not be read.
TEST_F(Limits, FifosAndDevicesAreRefused) {
  std::string fifo = (dir_ / "fifo.hpcl").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  ReadResult r = read_profile_file(fifo);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, fifo + ": not a regular file");
  EXPECT_EXIT(read_bounded("/dev/zero", "not a regular file"), ::testing::ExitedWithCode(0), "");
  r = read_profile_file(dir_.string());
  EXPECT_EQ(r.error, dir_.string() + ": Is a directory");
}

}  // namespace
}  // namespace hpcl
