// See thread_stack.h.
#include "process/thread_stack.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace hpcrun {

namespace {

// A hex number with or without 0x; advances *p past it. False when there is no digit.
bool read_hex(const char** p, uint64_t* out) {
  const char* s = *p;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
  uint64_t v = 0;
  const char* start = s;
  for (;; ++s) {
    char c = *s;
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) break;
    v = v << 4 | uint64_t(d);
  }
  if (s == start) return false;
  *p = s;
  *out = v;
  return true;
}

// One maps line "lo-hi perms ...": whether it holds addr.
bool line_holds(const char* line, uint64_t addr, uint64_t* lo, uint64_t* hi) {
  uint64_t a, b;
  const char* p = line;
  if (!read_hex(&p, &a) || *p != '-') return false;
  ++p;
  if (!read_hex(&p, &b)) return false;
  if (addr < a || addr >= b) return false;
  *lo = a;
  *hi = b;
  return true;
}

}  // namespace

bool stack_pointer_of_blocked(const char* text, uint64_t* sp) {
  // "NR ARG1..ARG6 SP PC" in a system call, "-1 SP PC" blocked elsewhere, "running" otherwise:
  // the stack pointer is the second word from the end.
  const char* words[16];
  int n = 0;
  for (const char* p = text; *p && n < 16;) {
    while (*p == ' ' || *p == '\n') ++p;
    if (!*p) break;
    words[n++] = p;
    while (*p && *p != ' ' && *p != '\n') ++p;
  }
  if (n < 3) return false;
  const char* w = words[n - 2];
  return read_hex(&w, sp) && *sp != 0;
}

bool mapping_containing(const char* maps_path, uint64_t addr, uint64_t* lo, uint64_t* hi) {
  int fd = open(maps_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // Lines are read whole: a partial last line moves to the front before the next read.
  char buf[4096];
  size_t have = 0;
  bool found = false;
  for (;;) {
    ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
    if (n <= 0) break;
    have += size_t(n);
    buf[have] = 0;
    char* line = buf;
    for (char* nl; (nl = strchr(line, '\n')); line = nl + 1) {
      *nl = 0;
      if (line_holds(line, addr, lo, hi)) {
        found = true;
        break;
      }
    }
    if (found) break;
    have = strlen(line);
    memmove(buf, line, have);
    if (have == sizeof buf - 1) have = 0;  // a line longer than the buffer: its path, skipped
  }
  if (!found && have) {
    buf[have] = 0;
    found = line_holds(buf, addr, lo, hi);
  }
  close(fd);
  return found;
}

bool blocked_thread_stack(const char* proc_self, pid_t tid, uint64_t* lo, uint64_t* hi) {
  char path[256];
  snprintf(path, sizeof path, "%s/task/%d/syscall", proc_self, int(tid));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[512];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = 0;
  uint64_t sp;
  if (!stack_pointer_of_blocked(text, &sp)) return false;
  snprintf(path, sizeof path, "%s/maps", proc_self);
  return mapping_containing(path, sp, lo, hi);
}

}  // namespace hpcrun
