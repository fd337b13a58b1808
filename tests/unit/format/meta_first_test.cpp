// META ends the first compressed block (payload.h): a reader that wants only META, as merge's
// choice of run does for every file of a directory, inflates that small block and reads the start
// of the file, not the payload's first 128 KiB. Files whose first block holds more (older
// writers) still give their META, read further.
#include <gtest/gtest.h>
#include <zstd.h>

#include <filesystem>
#include <random>

#include "test_util.h"

namespace hpcl {
namespace {

// A profile whose payload spans many zstd blocks and, with `noisy` metrics, hardly compresses.
Profile large_process(bool noisy) {
  Profile p = test::rich_process();
  const Tree model = p.trees[1];
  std::mt19937_64 rng(7);
  for (uint32_t i = 0; i < 3000; ++i) {
    p.trees.push_back(model);
    p.trees.back().tid = 9000 + i;
    for (Node& n : p.trees.back().nodes)
      for (Metric& m : n.metrics) m.value = noisy ? rng() : m.value + i;
  }
  return p;
}

// Bytes of the file (header included) a decoder must take, fed one at a time, before the
// payload's first `want` bytes come out.
size_t input_for(const std::vector<uint8_t>& file, size_t want) {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  std::vector<uint8_t> out(want);
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  size_t fed = 32;
  while (o.pos < want && fed < file.size()) {
    ZSTD_inBuffer in{file.data() + fed, 1, 0};
    size_t rc = ZSTD_decompressStream(d, &o, &in);
    EXPECT_FALSE(ZSTD_isError(rc)) << ZSTD_getErrorName(rc);
    fed += in.pos;
  }
  ZSTD_freeDCtx(d);
  return fed;
}

// META's section header and body: the length of its part of the payload.
size_t meta_bytes(const Profile& p) {
  const std::vector<uint8_t> payload = test::payload_of(encode_profile(p, 0));
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = length << 8 | payload[8 + i];
  return 16 + static_cast<size_t>(length);
}

std::string write_file(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr) << path;
  if (f) {
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  return path;
}

TEST(MetaFirst, TheWriterEndsABlockAfterMeta) {
  const Profile p = large_process(false);
  const std::vector<uint8_t> file = encode_profile(p, 3);
  ASSERT_GT(file.size(), 32u + 4096) << "the payload must not fit in the first block's worth of input";
  const size_t meta = meta_bytes(p);
  // Without the block end, META comes out only with the whole first block (128 KiB of payload).
  EXPECT_LT(input_for(file, meta), 32 + 2 * meta) << "META needs more of the file than itself";
  ReadResult whole = test::read(file);
  ASSERT_TRUE(whole.ok) << whole.error;
  EXPECT_EQ(test::dump(whole.profile), test::dump(p)) << "the block end changes no byte read back";
}

TEST(MetaFirst, MetaIsReadFromTheStartOfTheFile) {
  const Profile p = large_process(true);
  const std::string path = write_file("hpcl-meta-first.hpcl", encode_profile(p, 3));
  ReadResult r = read_profile_meta(path);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.profile.meta, p.meta);
  std::filesystem::remove(path);
}

// A file of an older writer (one frame compressed at once: META inside the first 128 KiB block)
// whose META, a command line of 200,000 random letters, reaches past the first 64 KiB read.
TEST(MetaFirst, MetaInsideALargeFirstBlockIsReadFurther) {
  Profile p = large_process(true);
  std::mt19937 rng(11);
  std::string cmdline(200000, 'a');
  for (char& c : cmdline) c = static_cast<char>('a' + rng() % 26);
  p.meta.emplace_back("cmdline_long", cmdline);
  const std::vector<uint8_t> payload = test::payload_of(encode_profile(p, 0));
  std::vector<uint8_t> file = encode_profile(p, 3);
  file.resize(32);  // its header, with the payload size and the zstd flag
  file.resize(32 + ZSTD_compressBound(payload.size()));
  file.resize(32 + ZSTD_compress(file.data() + 32, file.size() - 32, payload.data(), payload.size(), 3));
  ASSERT_GT(input_for(file, meta_bytes(p)), size_t{64} << 10) << "the first read must fall short";
  const std::string path = write_file("hpcl-meta-late.hpcl", file);
  ReadResult r = read_profile_meta(path);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.profile.meta, p.meta);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace hpcl
