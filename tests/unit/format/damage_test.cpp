// Every way a file can be damaged that the reader is meant to name: header, compression, section
// framing, counts, tree invariants and indices. Each error starts with the input's name so the
// analyzer can report one bad file among many.
#include <gtest/gtest.h>
#include <zstd.h>

#include "test_util.h"

namespace hpcl {
namespace {

using test::Bytes;
using test::Header;

// Reads `bytes` as "in.hpcl" and expects failure with a message containing `what`.
void expect_error(const std::vector<uint8_t>& bytes, const std::string& what) {
  ReadResult r = test::read(bytes, "in.hpcl");
  ASSERT_FALSE(r.ok) << "expected an error containing: " << what;
  EXPECT_EQ(r.error.rfind("in.hpcl: ", 0), 0u) << r.error;
  EXPECT_NE(r.error.find(what), std::string::npos) << "error: " << r.error << "\nexpected: " << what;
}

// Encodes a profile the writer does not check, to test the reader's checks.
void expect_invalid(const Profile& p, const std::string& what) { expect_error(encode_profile(p, 0), what); }

TEST(Damage, Header) {
  std::vector<uint8_t> good = encode_profile(test::small_process(), 0);
  expect_error({}, "empty file");
  expect_error({'G', 'I', 'F', '8', '9', 'a', 0, 0}, "not a hpcrun-lite file (bad magic)");
  expect_error({0x48, 0x50, 0x43}, "truncated: 3 of 32 bytes of its header");
  std::vector<uint8_t> b = good;
  b[7] = 0x0a;
  EXPECT_EQ(test::read(b, "f.txt").error, "f.txt: not a hpcrun-lite file (bad magic)");
  expect_error(std::vector<uint8_t>(good.begin(), good.begin() + 31), "truncated: 31 of 32 bytes of its header");

  std::vector<uint8_t> payload = test::payload_of(good);
  expect_error(test::file_with({1, 0, 3, 0}, payload), "unknown file kind 3");
  expect_error(test::file_with({1, 0, 0, 0}, payload), "unknown file kind 0");
  expect_error(test::file_with({1, 0, 1, 2}, payload), "unknown header flags 0x2");
  expect_error(test::file_with({1, 0, 1, 0x80000001}, payload), "unknown header flags 0x80000000");
}

// Files of other tools are refused by their magic, and named when their first bytes say what
// they are.
TEST(Damage, FilesOfOtherTools) {
  auto bytes = [](std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  expect_error(bytes(std::string_view("\x7f" "ELF\x02\x01\x01\0", 8)), "bad magic): this looks like an ELF file");
  expect_error(bytes("PERFILE2 and more"), "this looks like a perf.data file");
  expect_error(bytes("HPCRUN-profile____01.00"), "this looks like an HPCToolkit measurement file");
  expect_error(bytes("\x1f\x8b\x08"), "this looks like a gzip-compressed file");
  std::vector<uint8_t> z = encode_profile(test::small_process(), 3);
  expect_error(std::vector<uint8_t>(z.begin() + 32, z.end()), "this looks like a zstd-compressed file");
  expect_error(bytes("{\"totals\": {}}"), "this looks like text (JSON?)");
  expect_error(bytes("SQLite format 3"), "this looks like an SQLite database");
  // A file of random bytes: no tool, plain words.
  std::vector<uint8_t> noise(4096);
  uint32_t x = 12345;
  for (auto& b : noise) b = static_cast<uint8_t>((x = x * 1103515245u + 12345u) >> 16);
  noise[0] = 0x42;
  EXPECT_EQ(test::read(noise, "r.hpcl").error, "r.hpcl: not a hpcrun-lite file (bad magic)");
}

TEST(Damage, UncompressedPayloadSizeMismatch) {
  std::vector<uint8_t> b = encode_profile(test::small_process(), 0);
  size_t payload = b.size() - 32;
  b.pop_back();
  // How much arrived, and what of it is whole.
  expect_error(b, "truncated: " + std::to_string(payload - 1) + " of " + std::to_string(payload) +
                      " bytes of its payload; whole before the cut: META (pid 7), MODULES, SITES, STATICS; "
                      "the cut falls in TREE; a profile is merged whole or not at all");
  b.push_back(0);
  b.push_back(0);
  expect_error(b, "trailing bytes");
}

TEST(Damage, Compressed) {
  std::vector<uint8_t> good = encode_profile(test::rich_process(), 3);
  // The writer's frames carry no content size (it ends a block after META before the payload is
  // whole); a one-shot frame, as older writers made for small payloads, does: the header's
  // payload size is checked against it before anything is inflated.
  std::vector<uint8_t> payload = test::payload_of(encode_profile(test::rich_process(), 0));
  std::vector<uint8_t> one_shot(good.begin(), good.begin() + 32);  // the same header
  one_shot.resize(32 + ZSTD_compressBound(payload.size()));
  one_shot.resize(32 + ZSTD_compress(one_shot.data() + 32, one_shot.size() - 32, payload.data(),
                                     payload.size(), 3));
  ASSERT_EQ(ZSTD_getFrameContentSize(one_shot.data() + 32, one_shot.size() - 32), payload.size());
  ASSERT_TRUE(test::read(one_shot).ok);
  auto with_payload_size = [&](uint64_t size) {
    std::vector<uint8_t> b = one_shot;
    for (int i = 0; i < 8; ++i) b[16 + i] = static_cast<uint8_t>(size >> (8 * i));
    return b;
  };
  uint64_t real = 0;
  for (int i = 7; i >= 0; --i) real = real << 8 | good[16 + i];
  expect_error(with_payload_size(real + 1), "header says the payload is " + std::to_string(real + 1) +
                                                " bytes, the compressed frame holds " + std::to_string(real));
  expect_error(with_payload_size(uint64_t{1} << 40), "the compressed frame holds");

  std::vector<uint8_t> b = good;
  b.push_back(0);
  expect_error(b, "1 bytes after the end of the compressed payload");
  // Cut short: how much of the payload arrives, and what of it is whole (a file cut by a full
  // disk used to read "damaged compressed payload (Src size is incorrect)").
  b = good;
  b.resize(b.size() - 3);
  expect_error(b, "truncated: the end of its compressed payload is missing, so its " + std::to_string(real) +
                      " bytes cannot be checked");
  b = good;
  b.resize(32 + 20);
  expect_error(b, " of " + std::to_string(real) + " bytes of its payload; nothing of it can be read");
  b = good;
  b.resize(32);
  expect_error(b, "truncated: 0 of " + std::to_string(real) + " bytes of its payload; nothing of it can be read");
  b = good;
  b[b.size() - 10] ^= 0x40;  // inside the last block: caught by data or checksum
  expect_error(b, "damaged compressed payload");
}

// A profile of many zstd blocks cut at two thirds: the blocks before the cut decompress, and
// the message says which sections of them are whole.
TEST(Damage, CompressedCutSaysWhatIsWhole) {
  Profile p = test::rich_process();
  const Tree model = p.trees[1];
  for (uint32_t i = 0; i < 3000; ++i) {
    p.trees.push_back(model);
    p.trees.back().tid = 5000 + i;
    for (Node& n : p.trees.back().nodes)
      for (Metric& m : n.metrics) m.value += i;  // not all alike, so that zstd has blocks to make
  }
  std::vector<uint8_t> b = encode_profile(p, 3);
  const size_t payload = test::payload_of(encode_profile(p, 0)).size();
  b.resize(32 + (b.size() - 32) * 2 / 3);
  ReadResult r = test::read(b, "in.hpcl");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find(" bytes of its payload; whole before the cut: META (pid 4242), MODULES, SITES, "
                         "STATICS, "), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(" TREEs; the cut falls in TREE; a profile is merged whole or not at all"),
            std::string::npos) << r.error;
  EXPECT_NE(r.error.find(" of " + std::to_string(payload) + " bytes"), std::string::npos) << r.error;
}

// A zstd frame without a content size: only the header's payload_size says how much to allocate.
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

TEST(Damage, HugePayloadSizeIsRefusedBeforeAllocating) {
  std::vector<uint8_t> payload = test::payload_of(encode_profile(test::small_process(), 0));
  std::vector<uint8_t> frame = frame_without_size(payload);
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  auto file = [&](uint64_t payload_size) {
    std::vector<uint8_t> b = test::file_with({1, 0, 1, 1}, frame);
    for (int i = 0; i < 8; ++i) b[16 + i] = static_cast<uint8_t>(payload_size >> (8 * i));
    return b;
  };
  // Sanity: with the right size, a frame without a content size is fine.
  ReadResult ok = test::read(file(payload.size()));
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_EQ(test::dump(ok.profile), test::dump(test::small_process()));

  expect_error(file(uint64_t{1} << 40), "payload size 1099511627776 is larger than this reader accepts");
  expect_error(file(uint64_t{1} << 30), "is not plausible for");
  expect_error(file(payload.size() + 1), "decompressed to " + std::to_string(payload.size()));
  expect_error(file(payload.size() - 1),
               "the compressed payload holds more than the " + std::to_string(payload.size() - 1) +
                   " bytes the header says");
}

TEST(Damage, SectionFraming) {
  std::vector<uint8_t> meta = Bytes().u32(0).v;
  expect_error(test::file_with({}, Bytes().section(1, meta).u32(5).u32(0).v),
               "truncated section header at payload byte 20 (8 of 16 bytes)");
  expect_error(test::file_with({}, Bytes().u32(3).u32(0).u64(100).u32(0).v),
               "truncated in section SITES at payload byte 0: it is 100 bytes long but only 4 bytes follow");
  expect_error(test::file_with({}, Bytes().u32(77).u32(0).u64(~uint64_t{0}).v),
               "section with unknown tag 77 at payload byte 0");
  expect_error(test::file_with({}, Bytes().section(1, meta).section(2, meta).section(1, meta).v),
               "section META appears twice (again at payload byte 40)");
  // A body shorter than its content: the u32 count itself is cut.
  expect_error(test::file_with({}, Bytes().section(4, {1, 0}).v), "truncated in section STATICS at payload byte 16");
  // A string running past the end of its section (but not of the payload).
  std::vector<uint8_t> bad_meta = Bytes().u32(1).u32(50).raw({'a', 'b'}).u32(0).v;
  expect_error(test::file_with({}, Bytes().section(1, bad_meta).section(2, meta).v),
               "truncated in section META at payload byte 24");
}

TEST(Damage, CountsThatCannotFit) {
  expect_error(test::file_with({}, Bytes().section(1, Bytes().u32(0xffffffff).v).v),
               "section META at payload byte 20: 4294967295 entries cannot fit in the 0 bytes left");
  expect_error(test::file_with({}, Bytes().section(5, Bytes().u32(1).u32(1000000).raw(std::vector<uint8_t>(40)).v).v),
               "1000000 nodes cannot fit in the 40 bytes left");
  std::vector<uint8_t> site = Bytes().u32(1).u8(1).u8(0).u64(1).u64(1).u32(0x10000000).v;
  expect_error(test::file_with({}, Bytes().section(3, site).v), "268435456 frames cannot fit");
  std::vector<uint8_t> node = Bytes().u32(1).u32(1).u32(0xffffffff).u8(0).u32(0).u64(0).u8(200).v;
  expect_error(test::file_with({}, Bytes().section(5, node).v), "200 metrics cannot fit");
  std::vector<uint8_t> sym = Bytes().u32(1).u32(0).u64(0).u32(99).v;
  expect_error(test::file_with({1, 0, 2, 0}, Bytes().section(6, sym).v), "99 source locations cannot fit");
}

TEST(Damage, KindSpecificSections) {
  Profile p = test::small_process();
  p.symbols = {{{0, 0x30}, {{"f", "a.c", 1}}}};
  expect_invalid(p, "section SYMBOLS at payload byte");
  expect_invalid(p, "in a process profile (only databases are symbolized)");

  Profile db = test::small_database();
  db.trees.push_back(db.trees[0]);
  expect_invalid(db, "a database holds exactly one TREE section, this one has 2");
  db.trees.clear();
  expect_invalid(db, "a database holds exactly one TREE section, this one has 0");
}

TEST(Damage, TreeShape) {
  Profile p = test::small_process();
  Tree& t = p.trees[0];
  Profile q = p;
  q.trees[0].nodes.clear();
  expect_invalid(q, "tree 0 (tid 7): no nodes");

  q = p;
  q.trees[0].nodes[0].parent = 0;
  expect_invalid(q, "tree 0 (tid 7): node 0 must be the Root with parent 0xffffffff (found kind 0, parent 0)");
  q = p;
  q.trees[0].nodes[0].kind = NodeKind::HeapRoot;
  expect_invalid(q, "node 0 must be the Root with parent 0xffffffff (found kind 1, parent 4294967295)");

  // The spec's example: a node whose parent comes after it.
  q = p;
  while (q.trees[0].nodes.size() < 21) {
    Node n;
    n.parent = 0;
    n.kind = NodeKind::Frame;
    n.a = kNoModule;
    n.b = q.trees[0].nodes.size();
    q.trees[0].nodes.push_back(n);
  }
  q.trees[0].nodes[17].parent = 20;
  EXPECT_EQ(test::read(encode_profile(q, 0), "p.hpcl").error,
            "p.hpcl: tree 0 (tid 7): node 17 has parent 20 (parents must come first)");
  q.trees[0].nodes[17].parent = 17;
  expect_invalid(q, "node 17 has parent 17 (parents must come first)");
  q.trees[0].nodes[17].parent = kNoParent;
  expect_invalid(q, "node 17 has parent 4294967295 (parents must come first)");

  q = p;
  q.trees[0].nodes[4].kind = NodeKind::Root;
  expect_invalid(q, "node 4 is a second Root");
  q = p;
  q.trees[0].nodes[3].kind = static_cast<NodeKind>(11);
  expect_invalid(q, "node 3 has unknown kind 11");
  q = p;
  q.trees[0].nodes[6] = q.trees[0].nodes[3];  // a second child of node 2 with node 3's key
  expect_invalid(q, "nodes 3 and 6 are children of node 2 with the same kind and payload");

  // A second tree is named by its position and thread.
  q = p;
  q.trees.push_back(t);
  q.trees[1].tid = 99;
  q.trees[1].nodes[1].parent = 5;
  expect_invalid(q, "tree 1 (tid 99): node 1 has parent 5");
}

TEST(Damage, IndicesOutOfRange) {
  Profile p = test::small_process();
  p.sites.resize(5, p.sites[0]);
  Profile q = p;
  q.trees[0].nodes[2].a = 9;
  EXPECT_EQ(test::read(encode_profile(q, 0), "p.hpcl").error,
            "p.hpcl: tree 0 (tid 7): node 2: site index 9 out of range (5 sites)");
  q = p;
  q.trees[0].nodes[5].a = 1;
  expect_invalid(q, "node 5: static index 1 out of range (1 statics)");
  q = p;
  q.trees[0].nodes[3].a = 1;
  expect_invalid(q, "node 3: module index 1 out of range (1 modules)");
  q = p;
  q.sites[3].frames.push_back({4, 0});
  expect_invalid(q, "site 3 frame 1: module index 4 out of range (1 modules)");
  q = p;
  q.statics[0].module = 2;
  expect_invalid(q, "static 0: module index 2 out of range (1 modules)");

  // "No module" is always allowed.
  q = p;
  q.trees[0].nodes[3].a = kNoModule;
  q.sites[0].frames[0].module = kNoModule;
  q.statics[0].module = kNoModule;
  ReadResult r = test::read(encode_profile(q, 0));
  EXPECT_TRUE(r.ok) << r.error;
}

TEST(Damage, Metrics) {
  Profile p = test::small_process();
  Profile q = p;
  q.trees[0].nodes[6].metrics = {{1, 5}, {0, 3}};
  expect_invalid(q, "node 6: metric 0 follows metric 1 (metrics are sorted by id, each at most once)");
  q.trees[0].nodes[6].metrics = {{1, 5}, {1, 3}};
  expect_invalid(q, "node 6: metric 1 follows metric 1");
  q.trees[0].nodes[6].metrics = {{0, 5}, {16, 0}};
  expect_invalid(q, "node 6: metric 16 is zero (zero values are left out)");
}

TEST(Damage, Symbols) {
  Profile db = test::small_database();
  Profile q = db;
  std::swap(q.symbols[0], q.symbols[1]);
  expect_invalid(q, "symbol 1 is out of order");
  q = db;
  q.symbols[1] = q.symbols[0];
  expect_invalid(q, "symbol 1 is out of order");
  q = db;
  q.symbols.push_back({{3, 0}, {}});
  expect_invalid(q, "symbol 2: module index 3 out of range (1 modules)");
}

TEST(Damage, MissingFile) {
  ReadResult r = read_profile_file("/nonexistent-dir/p.hpcl");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "/nonexistent-dir/p.hpcl: No such file or directory");
}

}  // namespace
}  // namespace hpcl

namespace hpcl {
namespace {

// OFFSETS (format 1.2): owners, indices, bin counts and duplicates are checked like tree payloads.
TEST(Damage, OffsetHistograms) {
  const Profile good = test::small_process_offsets();
  Profile p = good;
  p.offsets[0].index = 5;
  expect_invalid(p, "offset histogram 0: site index 5 out of range (1)");
  p = good;
  p.offsets[1].index = 2;
  expect_invalid(p, "offset histogram 1: static index 2 out of range (1)");
  p = good;
  p.offsets[0].owner = static_cast<OffsetOwner>(9);
  expect_invalid(p, "offset histogram 0 has unknown owner 9");
  p = good;
  p.offsets[0].bins.resize(31);
  expect_invalid(p, "offset histogram 0 has 31 bins (32 expected)");
  p = good;
  p.offsets[0].min = 100;
  p.offsets[0].max = 99;
  expect_invalid(p, "offset histogram 0: min 100 above max 99");
  p = good;
  p.offsets.push_back(p.offsets[0]);
  expect_invalid(p, "two offset histograms for one variable");
  std::vector<uint8_t> body = test::Bytes().u32(1).u8(1).u32(0).u64(0).u64(0).u32(1000).v;
  expect_error(test::file_with({1, 2, 1, 0}, test::Bytes().section(8, body).v), "1000 bins cannot fit");
}

}  // namespace
}  // namespace hpcl
