// The launcher's check of the HPCRUN_LITE_* variables (env_vars.h): bad values and misspelt
// names are refused with a message naming them, and every variable the runtime reads is in the
// table (a new one without a check fails here).
#include "env_vars.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

using namespace hpcrun;

namespace {

std::string check(std::initializer_list<const char*> vars) {
  std::vector<char*> env;
  for (const char* v : vars) env.push_back(const_cast<char*>(v));
  env.push_back(nullptr);
  char err[256] = "";
  return check_environment(env.data(), err, sizeof err) ? "" : err;
}

TEST(EnvVars, SamplingSignalIsARealTimeSignal) {
  int s = 0;
  EXPECT_TRUE(parse_sampling_signal(std::to_string(SIGRTMIN + 4).c_str(), &s));
  EXPECT_EQ(s, SIGRTMIN + 4);
  EXPECT_TRUE(parse_sampling_signal(std::to_string(SIGRTMAX).c_str(), &s));
  for (const char* bad : {"11", "9", "0", "17", "garbage", "", "40x", "4k",
                          "99999999999999999999999"})
    EXPECT_FALSE(parse_sampling_signal(bad, &s)) << bad;
  EXPECT_FALSE(parse_sampling_signal(std::to_string(SIGRTMAX + 1).c_str(), &s));
}

TEST(EnvVars, RefusesBadValuesAndUnknownNames) {
  EXPECT_EQ(check({"PATH=/bin", "HPCRUN_LITE_SIGNAL=40", "HPCRUN_LITE_EVENTS=soft@500,page-faults",
                   "HPCRUN_LITE_NUMA=0", "HPCRUN_LITE_RUN_ID=0123abcd"}),
            "");
  EXPECT_NE(check({"HPCRUN_LITE_SIGNAL=11"}).find("HPCRUN_LITE_SIGNAL=11: expected a real-time signal"),
            std::string::npos);
  EXPECT_NE(check({"HPCRUN_LITE_EVENTS=sfot"}).find("HPCRUN_LITE_EVENTS=sfot"), std::string::npos);
  EXPECT_NE(check({"HPCRUN_LITE_WP_REGISTERS=0"}).find("1, 2, 3 or 4"), std::string::npos);
  EXPECT_NE(check({"HPCRUN_LITE_RUN_ID=XYZ"}).find("hex"), std::string::npos);
  EXPECT_EQ(check({"HPCRUN_LITE_EVENT=soft"}),
            "HPCRUN_LITE_EVENT is not a variable of hpcrun-lite (did you mean HPCRUN_LITE_EVENTS?)");
  EXPECT_NE(check({"HPCRUN_LITE_FROBNICATE=1"}).find("is not a variable of hpcrun-lite"),
            std::string::npos);
  // Only the HPCRUN_LITE_ prefix is ours.
  EXPECT_EQ(check({"HPCRUN_LITEX=1", "HPCRUN=2"}), "");
}

// Every HPCRUN_LITE_* name spelt in the runtime's and the launcher's sources is in the table.
TEST(EnvVars, TableCoversEveryVariableTheSourcesRead) {
  std::set<std::string> spelt;
  const std::regex name("\"(HPCRUN_LITE_[A-Z0-9_]+)\"");
  for (const auto& e : std::filesystem::recursive_directory_iterator(HPCL_RUNTIME_SOURCE_DIR)) {
    const std::string ext = e.path().extension().string();
    if (ext != ".cpp" && ext != ".h" && ext != ".c") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), name), end; it != end; ++it)
      spelt.insert((*it)[1].str());
  }
  ASSERT_GT(spelt.size(), 10u) << "no variables found under " << HPCL_RUNTIME_SOURCE_DIR;
  for (const std::string& v : spelt) EXPECT_NE(find_env_var(v.c_str()), nullptr) << v;
}

}  // namespace
