// The table of interpreted-code frames (python/script_frames.h): one id per (file, function,
// line), the text kept, and the tagged addresses that stand for them in call paths.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "python/script_frames.h"

namespace hpcrun {
namespace {

uint32_t intern(ScriptFrames& t, const std::string& file, const std::string& fn, uint32_t line) {
  return t.intern(file.data(), uint32_t(file.size()), fn.data(), uint32_t(fn.size()), line);
}

TEST(ScriptFrames, NothingBeforeReserve) {
  static ScriptFrames t;  // static: the table is meant to be a zero-initialised global
  EXPECT_EQ(intern(t, "solver.py", "step", 12), ScriptFrames::kNoFrame);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.get(0), nullptr);
}

TEST(ScriptFrames, OneIdPerFileFunctionAndLine) {
  static ScriptFrames t;
  ASSERT_TRUE(t.reserve());
  ASSERT_TRUE(t.reserve());  // idempotent
  uint32_t a = intern(t, "solver.py", "step", 12);
  uint32_t b = intern(t, "solver.py", "step", 13);
  uint32_t c = intern(t, "solver.py", "norm", 12);
  uint32_t d = intern(t, "other.py", "step", 12);
  EXPECT_EQ(intern(t, "solver.py", "step", 12), a);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  ASSERT_EQ(t.size(), 4u);
  const ScriptFrameEntry* e = t.get(c);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(std::string(e->file, e->file_len), "solver.py");
  EXPECT_EQ(std::string(e->function, e->function_len), "norm");
  EXPECT_EQ(e->line, 12u);
  EXPECT_EQ(t.get(4), nullptr);
}

TEST(ScriptFrames, TaggedAddressesAreNoCodeAddress) {
  EXPECT_TRUE(is_script_frame_address(script_frame_address(0)));
  EXPECT_TRUE(is_script_frame_address(script_frame_address(ScriptFrames::kMaxFrames - 1)));
  EXPECT_EQ(script_frame_id(script_frame_address(77)), 77u);
  EXPECT_FALSE(is_script_frame_address(0x00007f0012345678ull));  // user code
  EXPECT_FALSE(is_script_frame_address(0xffffffff81000000ull));  // kernel code
  EXPECT_FALSE(is_script_frame_address(0));
}

TEST(ScriptFrames, StopsWhenFull) {
  static ScriptFrames t;
  ASSERT_TRUE(t.reserve());
  for (uint32_t i = 0; i < ScriptFrames::kMaxFrames; ++i)
    ASSERT_EQ(intern(t, "f.py", "g", i + 1), i);
  EXPECT_EQ(intern(t, "f.py", "g", 0), ScriptFrames::kNoFrame);
  EXPECT_EQ(intern(t, "f.py", "g", 5), 4u);  // an existing frame is still found
  EXPECT_EQ(t.size(), ScriptFrames::kMaxFrames);
}

// Threads interning the same frames at once (as sample handlers of several threads do) agree on
// one id per frame: every later lookup finds it, whichever thread's entry won the slot.
TEST(ScriptFrames, ThreadsAgreeOnOneIdPerFrame) {
  static ScriptFrames t;
  ASSERT_TRUE(t.reserve());
  constexpr int kThreads = 4, kFrames = 2000;
  std::vector<std::vector<uint32_t>> ids(kThreads, std::vector<uint32_t>(kFrames));
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k)
    threads.emplace_back([&, k] {
      for (int i = 0; i < kFrames; ++i) ids[k][i] = intern(t, "solver.py", "f" + std::to_string(i % 7), i);
    });
  for (std::thread& th : threads) th.join();
  for (int i = 0; i < kFrames; ++i) {
    uint32_t found = intern(t, "solver.py", "f" + std::to_string(i % 7), i);
    for (int k = 0; k < kThreads; ++k) {
      ASSERT_NE(ids[k][i], ScriptFrames::kNoFrame);
      const ScriptFrameEntry* e = t.get(ids[k][i]);
      ASSERT_NE(e, nullptr);
      EXPECT_EQ(e->line, uint32_t(i));  // a loser's id is a duplicate entry of the same frame
    }
    EXPECT_EQ(intern(t, "solver.py", "f" + std::to_string(i % 7), i), found);
  }
  EXPECT_GE(t.size(), uint32_t(kFrames));
  EXPECT_LE(t.size(), uint32_t(kFrames * kThreads));
}

}  // namespace
}  // namespace hpcrun
