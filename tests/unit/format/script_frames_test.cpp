// Format 1.8: SCRIPT_FRAMES, the frames of interpreted code that the frames of the script
// pseudo-module ([python]) stand for. The section is checked against hand-built bytes
// (docs/FORMAT.md), every refusal by its words, and both readers on every input (test::read).
#include <gtest/gtest.h>

#include "test_util.h"

namespace hpcl {
namespace {

using test::Bytes;
using test::minor_of;

// The body of a SCRIPT_FRAMES section as docs/FORMAT.md spells it.
std::vector<uint8_t> section_body(const std::vector<ScriptFrame>& frames) {
  Bytes b;
  b.u32(static_cast<uint32_t>(frames.size()));
  for (const ScriptFrame& f : frames) b.str(f.file).str(f.function).u32(f.line);
  return b.v;
}

// The payload of `p` written without its script frames, then `script` as a last section.
std::vector<uint8_t> with_section(Profile p, const std::vector<uint8_t>& script) {
  p.script_frames.clear();
  return test::with_last_section(p, 8, 12, script);
}

TEST(ScriptFrames, ModuleConvention) {
  EXPECT_STREQ(kScriptModulePath, "[python]");
  EXPECT_TRUE(is_script_module({"[python]", "", 0}));
  EXPECT_FALSE(is_script_module({"/usr/bin/python3.12", "", 0}));
  EXPECT_FALSE(is_script_module({"[python] ", "", 0}));
  EXPECT_EQ(test::python_process().script_module(), 1u);
  EXPECT_EQ(test::small_process().script_module(), kNoModule);
  EXPECT_EQ(kMinorScriptFrames, 8);
}

TEST(ScriptFrames, RoundTripProcessAndDatabase) {
  for (const Profile& p : {test::python_process(), test::python_database()}) {
    for (int level : {0, 3}) {
      std::vector<uint8_t> b = encode_profile(p, level);
      EXPECT_EQ(minor_of(b), kMinorScriptFrames);
      ReadResult r = test::read(b);
      ASSERT_TRUE(r.ok) << r.error;
      EXPECT_EQ(r.profile.kind, p.kind);
      EXPECT_EQ(r.profile.script_frames, p.script_frames);
      EXPECT_EQ(test::dump(r.profile), test::dump(p));
    }
  }
}

// The section is written only when it has entries: a file without script frames keeps its
// earlier minor and its bytes, the pseudo-module alone (no frame uses it) included.
TEST(ScriptFrames, MinorEightOnlyWithTheSection) {
  std::vector<uint8_t> plain = encode_profile(test::small_process(), 0);
  EXPECT_EQ(minor_of(plain), 0);
  Profile p = test::small_process();
  p.script_frames = {};
  EXPECT_EQ(encode_profile(p, 0), plain);
  p.modules.push_back({kScriptModulePath, "", 0});
  EXPECT_EQ(minor_of(encode_profile(p, 0)), 0);
  p.sites[0].name = "/dev/shm/x";
  EXPECT_EQ(minor_of(encode_profile(p, 0)), kMinorSiteNames);
  p.script_frames = {{"a.py", "f", 1}};
  EXPECT_EQ(minor_of(encode_profile(p, 0)), kMinorScriptFrames);
  EXPECT_EQ(minor_of(encode_profile(test::small_database_first_touch(), 0)), kMinorMemoryMetrics);
}

// SITE_NAMES, then SCRIPT_FRAMES, which ends the payload, in the bytes of docs/FORMAT.md.
TEST(ScriptFrames, LastSectionInTheSpecsBytes) {
  Profile p = test::python_process();
  p.sites[0].name = "alpha";
  std::vector<test::RawSection> sections = test::split_sections(test::payload_of(encode_profile(p, 0)));
  ASSERT_GE(sections.size(), 2u);
  EXPECT_EQ(sections[sections.size() - 2].tag, 11u);
  EXPECT_EQ(sections.back().tag, 12u);
  EXPECT_EQ(sections.back().body, section_body(p.script_frames));
  EXPECT_EQ(encode_profile(test::python_process(), 0),
            with_section(test::python_process(), section_body(test::python_process().script_frames)));
}

TEST(ScriptFrames, HandBuiltSectionIsRead) {
  Bytes body;
  body.u32(4).str("/app/train.py").str("Model.forward").u32(42).str("/app/train.py").str("main").u32(7);
  body.str("").str("<module>").u32(0).str("/app/train.py").str("main").u32(7);
  ReadResult r = test::read(with_section(test::python_process(), body.v));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.profile.script_frames.size(), 4u);
  EXPECT_EQ(r.profile.script_frames[0], (ScriptFrame{"/app/train.py", "Model.forward", 42}));
  EXPECT_EQ(r.profile.script_frames[2], (ScriptFrame{"", "<module>", 0})) << "file and line may be unknown";
  EXPECT_EQ(r.profile.script_frames[1], r.profile.script_frames[3]) << "duplicates are kept";
}

TEST(ScriptFrames, SectionDamageIsRefusedInPlainWords) {
  const Profile p = test::python_process();
  Bytes empty_function;
  empty_function.u32(4).str("a.py").str("f").u32(1).str("a.py").str("").u32(2);
  empty_function.str("a.py").str("h").u32(3).str("a.py").str("i").u32(4);
  EXPECT_EQ(test::read(with_section(p, empty_function.v), "f").error,
            "f: SCRIPT_FRAMES entry 1: empty function");
  Bytes too_many;
  too_many.u32(1000).str("a.py").str("f").u32(1);
  EXPECT_NE(test::read(with_section(p, too_many.v), "f")
                .error.find("section SCRIPT_FRAMES at payload byte "),
            std::string::npos);
  EXPECT_NE(test::read(with_section(p, too_many.v), "f").error.find("1000 script frames cannot fit"),
            std::string::npos);
  Bytes cut_string;
  cut_string.u32(1).str("a.py").u32(50).raw({'f'});
  EXPECT_NE(test::read(with_section(p, cut_string.v), "f").error.find("truncated in section SCRIPT_FRAMES"),
            std::string::npos);
  // Twice: two lists would give one frame two meanings.
  std::vector<uint8_t> twice = with_section(p, section_body(p.script_frames));
  std::vector<uint8_t> payload = test::payload_of(twice);
  Bytes again;
  again.raw(payload).section(12, section_body(p.script_frames));
  EXPECT_NE(test::read(test::file_with({1, 8, 1, 0}, again.v), "f").error.find("section SCRIPT_FRAMES appears twice"),
            std::string::npos);
}

// The frames that point into SCRIPT_FRAMES: site frames, TREE Frame nodes, SYMBOLS and CALLEES.
TEST(ScriptFrames, FramesOutOfRangeAreRefused) {
  Profile p = test::python_process();
  p.sites[1].frames[3].offset = 4;
  EXPECT_EQ(test::read(encode_profile(p, 0), "f").error,
            "f: site 1 frame 3: script frame 4 out of range (4 SCRIPT_FRAMES entries)");
  p = test::python_process();
  p.trees[0].nodes[8].b = 9;
  EXPECT_EQ(test::read(encode_profile(p, 0), "f").error,
            "f: tree 0 (tid 7): node 8: script frame 9 out of range (4 SCRIPT_FRAMES entries)");
  p.trees[0].nodes[8].b = UINT64_MAX;
  EXPECT_EQ(test::read(encode_profile(p, 0), "f").error,
            "f: tree 0 (tid 7): node 8: script frame 18446744073709551615 out of range (4 SCRIPT_FRAMES "
            "entries)");
  Profile db = test::python_database();
  db.symbols.push_back({{1, 4}, {{"g", "b.py", 1}}});
  EXPECT_EQ(test::read(encode_profile(db, 0), "db").error,
            "db: symbol 5: script frame 4 out of range (4 SCRIPT_FRAMES entries)");
  // A callee is keyed by its symbol's frame: that frame is the one refused.
  db = test::python_database();
  db.symbols.push_back({{1, 7}, {{"g", "b.py", 1}}, {"h", "b.py", 3}});
  ReadResult r = test::read(encode_profile(db, 0), "db");
  EXPECT_EQ(r.error, "db: symbol 5: script frame 7 out of range (4 SCRIPT_FRAMES entries)");
  // The last entry is in range; "no module" frames are never script frames.
  p = test::python_process();
  p.sites[1].frames[3].offset = 3;
  p.sites[1].frames.push_back({kNoModule, 1000});
  r = test::read(encode_profile(p, 0));
  EXPECT_TRUE(r.ok) << r.error;
}

TEST(ScriptFrames, FramesWithoutTheSectionAreRefused) {
  Profile p = test::python_process();
  p.script_frames.clear();
  EXPECT_EQ(test::read(encode_profile(p, 0), "f").error,
            "f: site 1 frame 1: script frame 0, but the file has no SCRIPT_FRAMES entries (module 1 is "
            "the script pseudo-module, [python])");
  p.sites[1].frames.resize(1);
  EXPECT_EQ(test::read(encode_profile(p, 0), "f").error,
            "f: tree 0 (tid 7): node 8: script frame 3, but the file has no SCRIPT_FRAMES entries "
            "(module 1 is the script pseudo-module, [python])");
  // An empty section (the writer never writes one) is no better.
  EXPECT_EQ(test::read(with_section(p, section_body({})), "f").error,
            "f: tree 0 (tid 7): node 8: script frame 3, but the file has no SCRIPT_FRAMES entries "
            "(module 1 is the script pseudo-module, [python])");
  Profile db = test::python_database();
  db.script_frames.clear();
  db.sites.pop_back();
  db.trees[0].nodes.resize(7);
  EXPECT_EQ(test::read(encode_profile(db, 0), "db").error,
            "db: symbol 3: script frame 0, but the file has no SCRIPT_FRAMES entries (module 1 is the "
            "script pseudo-module, [python])");
}

TEST(ScriptFrames, SecondScriptModuleIsRefused) {
  Profile p = test::python_process();
  p.modules.push_back({"/lib/libpython3.12.so", "", 0});
  p.modules.push_back({kScriptModulePath, "", 0});
  EXPECT_EQ(test::read(encode_profile(p, 0), "f").error,
            "f: section MODULES: module 3 is a second script pseudo-module [python] (the first is module "
            "1; a file has at most one)");
}

// The scanner learns which module is the script one from MODULES before the trees. A file whose
// MODULES comes after its TREE (the reader accepts any order) still gets every check.
TEST(ScriptFrames, ModulesAfterTheTree) {
  auto reordered = [](const Profile& p) {
    std::vector<test::RawSection> sections = test::split_sections(test::payload_of(encode_profile(p, 0)));
    Bytes payload;
    for (const test::RawSection& s : sections)
      if (s.tag != 2) payload.section(s.tag, s.body);
    for (const test::RawSection& s : sections)
      if (s.tag == 2) payload.section(s.tag, s.body);
    return test::file_with({1, 8, 1, 0}, payload.v);
  };
  Profile p = test::python_process();
  ReadResult r = test::read(reordered(p));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(test::dump(r.profile), test::dump(p));
  p.trees[0].nodes[9].b = 4;
  EXPECT_EQ(test::read(reordered(p), "f").error,
            "f: tree 0 (tid 7): node 9: script frame 4 out of range (4 SCRIPT_FRAMES entries)");
}

// A scanner that read a file with script frames reads the next without them.
TEST(ScriptFrames, ScannerForgetsThemBetweenFiles) {
  ProfileScanner scanner;
  ScannedProfile scanned;
  std::vector<uint8_t> python = encode_profile(test::python_process(), 3);
  std::vector<uint8_t> plain = encode_profile(test::small_process(), 3);
  ASSERT_EQ(scanner.read_bytes(python.data(), python.size(), "a", scanned), "");
  EXPECT_EQ(scanned.profile.script_frames, test::python_process().script_frames);
  ASSERT_EQ(scanner.read_bytes(plain.data(), plain.size(), "b", scanned), "");
  EXPECT_TRUE(scanned.profile.script_frames.empty());
}

// A file cut in SCRIPT_FRAMES says so, stored or with payload_size fixed to the cut.
TEST(ScriptFrames, CutInTheSectionNamesIt) {
  std::vector<uint8_t> whole = encode_profile(test::python_process(), 0);
  std::vector<test::RawSection> sections = test::split_sections(test::payload_of(whole));
  ASSERT_EQ(sections.back().tag, 12u);
  const size_t inside = 32 + sections.back().offset + 16 + 10;
  std::vector<uint8_t> cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(inside));
  ReadResult r = test::read(cut, "cut.hpcl");
  EXPECT_NE(r.error.find("whole before the cut: META (pid 7), MODULES, SITES, STATICS, 1 TREE; the cut "
                         "falls in SCRIPT_FRAMES; a profile is merged whole or not at all"),
            std::string::npos)
      << r.error;
  r = test::read(test::file_with({1, 8, 1, 0}, test::payload_of(cut)), "cut.hpcl");
  EXPECT_NE(r.error.find("truncated in section SCRIPT_FRAMES at payload byte "), std::string::npos) << r.error;
  // Every cut of the file, stored and compressed, is an error.
  for (int level : {0, 3}) {
    std::vector<uint8_t> file = encode_profile(test::python_database(), level);
    for (size_t n = 0; n < file.size(); ++n) {
      std::vector<uint8_t> c(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n));
      EXPECT_FALSE(test::read(c, "cut.hpcl").ok) << "level " << level << " cut at " << n;
    }
  }
}

// The streaming writer takes the script frames at any time before commit, once.
TEST(ScriptFrames, WriterTakesThemAtAnyTime) {
  const Profile p = test::python_process();
  for (bool first : {true, false}) {
    std::vector<uint8_t> out;
    ProfileWriter w(p.kind, 3);
    w.open(&out);
    test::write_pieces(w, p, first);
    std::string error;
    ASSERT_TRUE(w.commit(&error)) << error;
    EXPECT_EQ(out, encode_profile(p, 3));
  }
  std::vector<uint8_t> out;
  ProfileWriter w(p.kind, 0);
  w.open(&out);
  test::write_pieces(w, p, true);
  w.script_frames(p.script_frames);
  std::string error;
  EXPECT_FALSE(w.commit(&error));
  EXPECT_EQ(error, "SCRIPT_FRAMES handed over twice");
}

}  // namespace
}  // namespace hpcl
