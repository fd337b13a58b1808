// See output_check.h.
#include "output_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hpcrun {
namespace {

std::string why_not_writable(int err, size_t name_length) {
  if (err == ENAMETOOLONG)
    return "its file system does not take file names of " + std::to_string(name_length) +
           " bytes, which the profiles need (choose a directory on another file system)";
  if (err == EROFS) return "it is on a read-only file system";
  if (err == EPERM) return std::string(strerror(err)) + " (an immutable directory? lsattr -d shows it)";
  return strerror(err);
}

}  // namespace

void remove_created(const OutputDir& out) {
  for (auto it = out.created.rbegin(); it != out.created.rend(); ++it) rmdir(it->c_str());
}

OutputDir prepare_output_dir(const std::string& dir, unsigned mode, size_t name_length) {
  OutputDir out;
  auto fail = [&](const std::string& why) {
    remove_created(out);
    out.created.clear();
    out.error = "cannot use " + dir + " as the measurement directory: " + why;
    return out;
  };
  // mkdir -p, remembering what it made.
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i != dir.size() && dir[i] != '/') continue;
    std::string part = dir.substr(0, i);
    if (mkdir(part.c_str(), static_cast<mode_t>(mode)) == 0) {
      out.created.push_back(part);
      continue;
    }
    int err = errno;
    struct stat st {};
    if (err == EEXIST && stat(part.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
    if (err == EEXIST || err == ENOTDIR)
      return fail(part == dir ? "it is a file, not a directory" : part + " is a file, not a directory");
    return fail("cannot create " + part + ": " + why_not_writable(err, name_length));
  }
  // A file named like the longest profile (its temporary name, pid included, so that the ranks of
  // one job probe at once without meeting), created and removed.
  std::string probe = ".hpcrun-lite-probe." + std::to_string(getpid()) + ".";
  if (probe.size() < name_length) probe.append(name_length - probe.size(), 'x');
  std::string path = dir + "/" + probe;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail("cannot create a file in it: " + why_not_writable(errno, name_length));
  close(fd);
  unlink(path.c_str());
  return out;
}

}  // namespace hpcrun
