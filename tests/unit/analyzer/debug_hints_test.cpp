// Merge's advice for modules without debug information: the Debian package of a system file
// (from dpkg, when there is one), and the message that names every module once.
#include <gtest/gtest.h>
#include <unistd.h>

#include "debug_hints.h"

namespace hpcl::analysis {
namespace {

TEST(DebugHints, MessageNamesEachModuleAndHowToGetDebugFiles) {
  std::string msg = missing_debug_info_message(
      {"/usr/lib/x86_64-linux-gnu/libgomp.so.1", "/home/me/app"},
      {{"/usr/lib/x86_64-linux-gnu/libgomp.so.1", "libgomp1"}});
  EXPECT_EQ(msg.rfind("no debug information for 2 modules", 0), 0u) << msg;
  EXPECT_NE(msg.find("\n  /usr/lib/x86_64-linux-gnu/libgomp.so.1 (package libgomp1: apt install "
                     "libgomp1-dbgsym"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("\n  /home/me/app (rebuild it with -g"), std::string::npos) << msg;
  EXPECT_NE(msg.find("debian-debug"), std::string::npos) << msg;
  EXPECT_NE(msg.find("DEBUGINFOD_URLS"), std::string::npos) << msg;
  EXPECT_EQ(missing_debug_info_message({}, {}), "");
  // No package at all: no word about the debian-debug archive.
  EXPECT_EQ(missing_debug_info_message({"/home/me/app"}, {}).find("debian-debug"), std::string::npos);
}

TEST(DebugHints, DpkgNamesThePackageOfASystemFile) {
  if (access("/usr/bin/dpkg", X_OK) != 0) GTEST_SKIP() << "not a Debian system";
  // /bin/sh is a symlink (usrmerge, diversions): the resolved and /usr aliases are tried too.
  std::map<std::string, std::string> pkgs =
      debian_packages({"/usr/bin/dpkg", "/nonexistent/hpcl/app", "/bin/sh"});
  ASSERT_EQ(pkgs.count("/usr/bin/dpkg"), 1u);
  EXPECT_EQ(pkgs["/usr/bin/dpkg"], "dpkg");
  EXPECT_EQ(pkgs.count("/nonexistent/hpcl/app"), 0u);
  EXPECT_EQ(pkgs.count("/bin/sh"), 1u);
}

}  // namespace
}  // namespace hpcl::analysis
