// See program_check.h.
#include "program_check.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hpcrun {
namespace {

// The "#!" line of a script: "/bin/sh -e" for "#!/bin/sh -e\n", "" for anything else.
std::string shebang(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[256];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n < 3 || buf[0] != '#' || buf[1] != '!') return "";
  buf[n] = 0;
  std::string line(buf + 2, strcspn(buf + 2, "\n"));
  size_t first = line.find_first_not_of(" \t");
  size_t last = line.find_last_not_of(" \t\r");
  return first == std::string::npos ? "" : line.substr(first, last - first + 1);
}

std::string resolved(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) ? std::string(buf) : path;
}

// Why `path` cannot be executed, "" when it can: what execve would say, in words a user acts on.
std::string not_runnable(const std::string& path, int* status) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    *status = errno == ENOENT || errno == ENOTDIR ? 127 : 126;
    return std::string(strerror(errno));
  }
  *status = 126;
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (access(path.c_str(), X_OK) != 0) return "is not executable (chmod +x, or run it with its interpreter)";
  *status = 0;
  return "";
}

}  // namespace

ProgramCheck check_program(const std::string& name) {
  ProgramCheck c;
  if (name.empty()) {
    c.status = 127;
    c.error = "the program's name is empty";
    return c;
  }
  if (name.find('/') != std::string::npos) {
    c.path = name;
  } else {
    // As execvp: the first PATH entry holding an executable regular file wins; one holding a
    // file that is not executable is remembered for the message.
    const char* env = getenv("PATH");
    std::string dirs = env ? env : "/bin:/usr/bin";
    std::string unusable;
    for (size_t start = 0; start <= dirs.size();) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      std::string candidate = (end > start ? dirs.substr(start, end - start) : ".") + "/" + name;
      start = end + 1;
      int status = 0;
      std::string why = not_runnable(candidate, &status);
      if (why.empty()) {
        c.path = candidate;
        break;
      }
      if (status == 126 && unusable.empty()) unusable = candidate;
    }
    if (c.path.empty()) {
      if (unusable.empty()) {
        c.status = 127;
        c.error = "cannot run " + name + ": not found in PATH";
        return c;
      }
      c.path = unusable;
    }
  }
  if (std::string why = not_runnable(c.path, &c.status); !why.empty()) {
    c.error = "cannot run " + c.path + ": " + why;
    return c;
  }
  c.interpreter = shebang(c.path);
  std::string exe = c.path;
  if (!c.interpreter.empty()) {
    size_t space = c.interpreter.find_first_of(" \t");
    exe = c.interpreter.substr(0, space);
    // "#!/usr/bin/env python3": env execs the program it names, which is what runs measured.
    if (exe.ends_with("/env") && space != std::string::npos) {
      std::string rest = c.interpreter.substr(c.interpreter.find_first_not_of(" \t", space));
      if (rest.starts_with("-S ")) rest = rest.substr(rest.find_first_not_of(" \t", 3));
      std::string named = rest.substr(0, rest.find_first_of(" \t"));
      ProgramCheck target = check_program(named);
      exe = target.status == 0 ? target.path : named;
    }
  }
  c.measured_exe = resolved(exe);
  return c;
}

}  // namespace hpcrun
