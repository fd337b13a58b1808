#include "install_paths.h"

#include <climits>
#include <cstdlib>
#include <unistd.h>

namespace hpcrun {
namespace {

// The first candidate that exists, resolved; "" if none.
std::string first_existing(std::initializer_list<std::string> candidates, int mode) {
  for (const std::string& c : candidates) {
    char resolved[PATH_MAX];
    if (realpath(c.c_str(), resolved) && access(resolved, mode) == 0) return resolved;
  }
  return "";
}

}  // namespace

std::string launcher_dir() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = 0;
  std::string dir(self);
  return dir.substr(0, dir.rfind('/'));
}

std::string find_runtime_library() {
  const std::string dir = launcher_dir();
  if (dir.empty()) return "";
  return first_existing({dir + "/" HPCL_BIN_TO_LIB "/libhpcrun-lite.so", dir + "/../lib/libhpcrun-lite.so",
                         dir + "/libhpcrun-lite.so"},
                        R_OK);
}

std::string find_validate_kernel() {
  const std::string dir = launcher_dir();
  if (dir.empty()) return "";
  return first_existing({dir + "/" HPCL_BIN_TO_LIBEXEC "/hpcrun-lite-validate-kernel",
                         dir + "/hpcrun-lite-validate-kernel"},
                        X_OK);
}

}  // namespace hpcrun
