// Two runs in one measurement directory (merge/runs.h): by the run id the launcher writes, and,
// without one, by the lifetimes of one rank's processes; forks and execs of one run stay one
// run. And the META reader it uses (read_profile_meta), on every kind of file.
#include <gtest/gtest.h>

#include <filesystem>

#include "hpcl/io.h"
#include "merge/merge.h"
#include "merge/runs.h"
#include "profile_builder.h"

namespace hpcl::analysis {
namespace {

RunFacts fact(const std::string& path, const std::string& id, long long rank, long long pid, uint64_t start,
              uint64_t end) {
  RunFacts f;
  f.path = path;
  f.readable = true;
  f.run_id = id;
  f.rank = rank;
  f.pid = pid;
  f.start_ns = start * 1000000000ull;
  f.end_ns = end * 1000000000ull;
  return f;
}

TEST(Runs, TwoJobsByTheirRunIds) {
  std::vector<RunFacts> facts = {fact("a0", "aaaa", 0, 10, 100, 200), fact("a1", "aaaa", 1, 11, 100, 200),
                                 fact("b0", "bbbb", 0, 20, 300, 400), fact("b1", "bbbb", 1, 21, 301, 400)};
  RunChoice c = choose_latest_run(facts);
  EXPECT_EQ(c.kept, (std::vector<std::string>{"b0", "b1"}));
  EXPECT_EQ(c.dropped, (std::vector<std::string>{"a0", "a1"}));
  EXPECT_NE(c.message.find("merged the latest, run bbbb (2 profiles, ranks 0-1, started "), std::string::npos)
      << c.message;
  EXPECT_NE(c.message.find("left out 2 of the other: run aaaa (2 profiles, ranks 0-1"), std::string::npos)
      << c.message;
}

TEST(Runs, OneJobIsLeftAlone) {
  // A forked child (rank 0 again, started while its parent lived) and an exec (same pid, later).
  std::vector<RunFacts> facts = {fact("p0", "", 0, 10, 100, 200), fact("p1", "", 1, 11, 100, 200),
                                 fact("child", "", 0, 12, 150, 160), fact("exec", "", 1, 11, 201, 250)};
  RunChoice c = choose_latest_run(facts);
  EXPECT_EQ(c.kept.size(), 4u);
  EXPECT_TRUE(c.dropped.empty());
  EXPECT_EQ(c.message, "");
  facts = {fact("a0", "x", 0, 10, 100, 200), fact("a1", "x", 1, 11, 100, 200)};
  EXPECT_TRUE(choose_latest_run(facts).dropped.empty());
  // An image exec'd with an environment of its own (no run id) beside a run with one: merged.
  facts.push_back(fact("exec-clean-env", "", 0, 10, 300, 400));
  EXPECT_TRUE(choose_latest_run(facts).dropped.empty());
}

TEST(Runs, WithoutIdsBySameRankAtLaterTimes) {
  std::vector<RunFacts> facts = {fact("a0", "", 0, 10, 100, 200), fact("a1", "", 1, 11, 100, 200),
                                 fact("b0", "", 0, 20, 300, 400), fact("b1", "", 1, 21, 300, 400),
                                 fact("b2", "", 2, 22, 300, 400)};  // the later job has one rank more
  RunChoice c = choose_latest_run(facts);
  EXPECT_EQ(c.kept, (std::vector<std::string>{"b0", "b1", "b2"}));
  EXPECT_EQ(c.dropped, (std::vector<std::string>{"a0", "a1"}));
  EXPECT_NE(c.message.find("a run without id (2 profiles, ranks 0-1"), std::string::npos) << c.message;
  // Unreadable files are the merge's to report: kept.
  RunFacts broken;
  broken.path = "broken";
  facts.push_back(broken);
  c = choose_latest_run(facts);
  EXPECT_EQ(c.kept.size(), 4u);
}

std::string write(const Profile& p, const std::string& name, int level) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::string err;
  EXPECT_TRUE(write_profile_file(p, path, &err, level)) << err;
  return path;
}

TEST(Runs, MetaAloneIsReadFromEveryKindOfFile) {
  Profile p;
  p.kind = FileKind::Process;
  p.meta = {{"run_id", "abc123"}, {"rank", "3"}, {"pid", "77"}, {"start_ns", "5"}};
  p.trees.push_back(Tree{77, {Node{}}});
  for (int level : {0, 3}) {
    const std::string path = write(p, "hpcl-runs-meta-" + std::to_string(level) + ".hpcl", level);
    ReadResult r = read_profile_meta(path);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.profile.meta, p.meta);
    EXPECT_TRUE(r.profile.trees.empty()) << "only META is read";
    std::filesystem::remove(path);
  }
  ReadResult missing = read_profile_meta("/nonexistent/x.hpcl");
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.error.find("/nonexistent/x.hpcl"), std::string::npos);
}

}  // namespace
}  // namespace hpcl::analysis
