// The runtime's raw system calls (base/raw_sys.h) return -errno and leave errno alone: they run
// inside the program's free() and malloc().
#include "base/raw_sys.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>


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

}  // namespace
