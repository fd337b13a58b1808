// Where an adopted thread's stack lies (process/thread_stack.h): the stack pointer of the kernel's
// syscall file in each of its shapes, the maps line that holds it, and, live, a thread of this
// process blocked in a system call, whose stack the answer must contain.
#include "process/thread_stack.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace hpcrun;

namespace {

TEST(ThreadStack, StackPointerFromSyscallFile) {
  uint64_t sp = 0;
  // Blocked in nanosleep (syscall 230): number, six arguments, stack pointer, program counter.
  EXPECT_TRUE(stack_pointer_of_blocked(
      "230 0x1 0x0 0x7ffd1c2b3a40 0x0 0x0 0x0 0x7f3a5c1fecd8 0x7f3a5d0e6f5a\n", &sp));
  EXPECT_EQ(sp, 0x7f3a5c1fecd8u);
  // Blocked, not in a system call.
  EXPECT_TRUE(stack_pointer_of_blocked("-1 0x7f3a5c1fe000 0x55d0c0a01234\n", &sp));
  EXPECT_EQ(sp, 0x7f3a5c1fe000u);
  EXPECT_FALSE(stack_pointer_of_blocked("running\n", &sp));
  EXPECT_FALSE(stack_pointer_of_blocked("", &sp));
}

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/hpcl-maps-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
  close(fd);
  return path;
}

TEST(ThreadStack, MappingThatHoldsTheAddress) {
  // A glibc thread stack: its guard page (---p), then the stack itself, with libraries around.
  std::string maps =
      "55d0c0a00000-55d0c0a21000 r-xp 00000000 08:01 1234   /usr/bin/prog\n"
      "7f3a5b9fe000-7f3a5b9ff000 ---p 00000000 00:00 0 \n"
      "7f3a5b9ff000-7f3a5c1ff000 rw-p 00000000 00:00 0 \n"
      "7f3a5d000000-7f3a5d022000 r--p 00000000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6\n";
  // Many lines before it, so that the reader's buffer wraps inside a line.
  std::string padding;
  for (int i = 0; i < 300; ++i) {
    char line[128];
    snprintf(line, sizeof line, "%012x-%012x r--p 00000000 08:01 7 /usr/lib/lib%04d.so\n",
             0x100000 + i * 0x2000, 0x101000 + i * 0x2000, i);
    padding += line;
  }
  std::string path = write_temp(padding + maps);
  uint64_t lo = 0, hi = 0;
  ASSERT_TRUE(mapping_containing(path.c_str(), 0x7f3a5c1fecd8, &lo, &hi));
  EXPECT_EQ(lo, 0x7f3a5b9ff000u);
  EXPECT_EQ(hi, 0x7f3a5c1ff000u);
  EXPECT_FALSE(mapping_containing(path.c_str(), 0x7f3a5c1ff000, &lo, &hi));  // end is open
  // The last line without its newline.
  std::string tail = write_temp("7f0000000000-7f0000001000 rw-p 00000000 00:00 0");
  EXPECT_TRUE(mapping_containing(tail.c_str(), 0x7f0000000800, &lo, &hi));
  unlink(path.c_str());
  unlink(tail.c_str());
}

std::atomic<uint64_t> g_local{0};
std::atomic<pid_t> g_tid{0};
std::atomic<bool> g_done{false};

void* sleeper(void*) {
  volatile int on_stack = 0;
  g_local = reinterpret_cast<uint64_t>(&on_stack);
  g_tid = pid_t(syscall(SYS_gettid));
  while (!g_done) usleep(1000);
  return nullptr;
}

TEST(ThreadStack, BlockedThreadOfThisProcess) {
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, nullptr, sleeper, nullptr), 0);
  while (g_tid == 0) usleep(100);
  uint64_t lo = 0, hi = 0;
  bool found = false;
  // The thread may be between two sleeps ("running") at the moment of a read.
  for (int i = 0; i < 100 && !found; ++i) {
    found = blocked_thread_stack("/proc/self", g_tid, &lo, &hi);
    if (!found) usleep(1000);
  }
  g_done = true;
  pthread_join(t, nullptr);
  ASSERT_TRUE(found);
  EXPECT_LE(lo, g_local.load());
  EXPECT_LT(g_local.load(), hi);
  EXPECT_FALSE(blocked_thread_stack("/proc/self", 0x7ffffff0, &lo, &hi));  // no such thread
}

}  // namespace
