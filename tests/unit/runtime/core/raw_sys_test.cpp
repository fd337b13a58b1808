// The runtime's raw system calls (base/raw_sys.h) return -errno and leave errno alone: they run
// inside the program's free() and malloc(). And the NUMA probe (numa.h) that turns placement off
// where move_pages fails.
#include "base/raw_sys.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "sources/numa/numa.h"

using namespace hpcrun;

namespace {

TEST(RawSys, FailureIsReturnedNotWrittenToErrno) {
  errno = EDOM;
  EXPECT_EQ(raw_syscall(SYS_close, -1), -EBADF);
  EXPECT_EQ(errno, EDOM);
  EXPECT_EQ(raw_syscall(SYS_getpid), long(getpid()));
  EXPECT_TRUE(raw_failed(-EBADF));
  EXPECT_FALSE(raw_failed(long(getpid())));
  // Six arguments, pointers among them.
  void* p = raw_mmap(4096);
  ASSERT_NE(p, nullptr);
  static_cast<char*>(p)[4095] = 1;
  raw_munmap(p, 4096);
  errno = EDOM;
  EXPECT_EQ(raw_mmap(size_t{1} << 62), nullptr);  // ENOMEM, not in errno
  EXPECT_EQ(errno, EDOM);
}

long failing_move_pages(unsigned long, void**, int*) { return -EPERM; }
long working_move_pages(unsigned long n, void**, int* status) {
  for (unsigned long i = 0; i < n; ++i) status[i] = 0;
  return 0;
}

TEST(RawSys, NumaProbeSaysWhetherMovePagesWorks) {
  set_move_pages_hook(failing_move_pages);
  EXPECT_EQ(numa_probe(), EPERM);
  set_move_pages_hook(working_move_pages);
  EXPECT_EQ(numa_probe(), 0);
  set_move_pages_hook(nullptr);
  errno = EDOM;
  numa_probe();  // the real system call, whatever this machine answers
  EXPECT_EQ(errno, EDOM);
}

}  // namespace
