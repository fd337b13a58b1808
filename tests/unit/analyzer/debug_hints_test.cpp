// Merge's advice for modules without debug information: the Debian package of a system file
// (from dpkg, when there is one), and the message that names every module once.
#include <gtest/gtest.h>
#include <unistd.h>

#include "symbols/debug_hints.h"

namespace hpcl::analysis {
namespace {

TEST(DebugHints, MessageNamesEachModuleAndHowToGetDebugFiles) {
  std::string msg = missing_debug_info_message(
      {"/usr/lib/libmpi.so.40", "/home/me/app", "/usr/lib/libgomp.so.1", "/usr/lib/libopen-pal.so.40"},
      {{"/usr/lib/libgomp.so.1", "libgomp1"},
       {"/usr/lib/libmpi.so.40", "libopenmpi3"},
       {"/usr/lib/libopen-pal.so.40", "libopenmpi3"}});
  EXPECT_EQ(msg.rfind("no debug information for 4 modules", 0), 0u) << msg;
  // One line per package, one per module without a package, one install command.
  EXPECT_NE(msg.find("\n  libgomp1: libgomp.so.1\n  libopenmpi3: libmpi.so.40, libopen-pal.so.40\n"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("\n  /home/me/app: rebuild it with -g"), std::string::npos) << msg;
  EXPECT_NE(msg.find("apt install libgomp1-dbgsym libopenmpi3-dbgsym\n"), std::string::npos) << msg;
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
