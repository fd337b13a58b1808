// Where and how the runtime writes its profile (process_env.h): directory and file modes, the
// umask option, the privileged-program check that keeps the runtime inert, and profile names
// that cannot leave the measurement directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "options.h"
#include "process_env.h"

using namespace hpcrun;

namespace {

TEST(OutputPath, ModesArePrivateUnlessTheUmaskIsAskedFor) {
  unsetenv(kEnvUmask);
  EXPECT_EQ(output_modes().dir, 0700u);
  EXPECT_EQ(output_modes().file, 0600u);
  setenv(kEnvUmask, "1", 1);
  EXPECT_EQ(output_modes().dir, 0777u);
  EXPECT_EQ(output_modes().file, 0666u);
  setenv(kEnvUmask, "yes", 1);  // only "1" asks
  EXPECT_EQ(output_modes().file, 0600u);
  unsetenv(kEnvUmask);
}

TEST(OutputPath, MakeDirsCreatesEveryLevelWithTheMode) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "hpcl-outdir-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  std::string deep = tmpl + "/a/b";
  mode_t old = ::umask(0);
  ASSERT_TRUE(make_dirs(deep));
  ::umask(old);
  struct stat st {};
  for (const std::string& d : {tmpl + "/a", deep}) {
    ASSERT_EQ(::stat(d.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << d;
  }
  EXPECT_TRUE(make_dirs(deep)) << "an existing directory is fine";
  std::filesystem::remove_all(tmpl);
}

TEST(OutputPath, PrivilegedProgramsAreRecognised) {
  EXPECT_FALSE(runs_privileged(0, 1000, 1000, 1000, 1000));
  EXPECT_TRUE(runs_privileged(1, 1000, 1000, 1000, 1000)) << "AT_SECURE (file capabilities)";
  EXPECT_TRUE(runs_privileged(0, 1000, 0, 1000, 1000)) << "setuid root";
  EXPECT_TRUE(runs_privileged(0, 1000, 1000, 1000, 42)) << "setgid";
  EXPECT_FALSE(runs_privileged()) << "this test is not setuid";
}

TEST(OutputPath, FileNameComponentsStayInTheDirectory) {
  EXPECT_EQ(file_name_component("app.host.norank.12.hpcl"), "app.host.norank.12.hpcl");
  EXPECT_EQ(file_name_component("../../etc/passwd"), "_.._.._etc_passwd");
  EXPECT_EQ(file_name_component(".hidden"), "_.hidden");
  EXPECT_EQ(file_name_component(""), "_");
  EXPECT_EQ(file_name_component(std::string("a\0b", 3)), "a_b");
}

}  // namespace

// The profile's name: EXE.HOST.RANK.PID[.TAG].hpcl, and a program name too long for NAME_MAX
// (with the temporary suffix the format library adds while writing) cut, not fatal.
TEST(OutputPath, ProfileNamesFitNameMax) {
  EXPECT_EQ(profile_file_name("lmp", "node7", 3, 4242, nullptr), "lmp.node7.3.4242.hpcl");
  EXPECT_EQ(profile_file_name("a.out", "h", -1, 1, "exec-99"), "a.out.h.norank.1.exec-99.hpcl");
  const std::string exe(300, 'p');
  const std::string name = profile_file_name(exe, "node7", 3, 4242, nullptr);
  EXPECT_TRUE(name.ends_with(".node7.3.4242.hpcl")) << name;
  EXPECT_LE(name.size() + sizeof(".tmp.4194304.4294967295") - 1, kMaxProfileName) << name;
  // The probe's length is that of the longest name a process may create, and within NAME_MAX.
  EXPECT_LE(longest_profile_name(exe, "node7"), kMaxProfileName);
  EXPECT_GT(longest_profile_name("lmp", "node7"),
            profile_file_name("lmp", "node7", 3, 4242, "exec-1").size() + 5);
}
