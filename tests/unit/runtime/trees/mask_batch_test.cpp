// One block of every signal per unwind (hpcrun-lite/runtime/process/mask_batch.h): inside a batch
// libunwind's blocks of everything after the first, and its restores of the mask that block
// reported, never reach the kernel; the kernel's mask is full from the first block to the end of
// the batch and then what it was before; other calls go through; a batch opened inside another
// (a handler's unwind) gives the outer one back whole.
#include "trees/mask_batch.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace {

using hpcrun::mask_batch_take;
using hpcrun::MaskBatch;

int g_real_calls = 0;
int counting_mask(int how, const sigset_t* set, sigset_t* old) {
  ++g_real_calls;
  return pthread_sigmask(how, set, old);
}

uint64_t kernel_mask() {
  uint64_t m = 0;
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, nullptr, &m, 8);
  return m;
}

uint64_t word(const sigset_t& s) {
  uint64_t w;
  memcpy(&w, &s, sizeof w);
  return w;
}

// What the kernel blocks of a full mask: all but SIGKILL and SIGSTOP.
uint64_t blockable(const sigset_t& full) {
  return word(full) & ~((uint64_t(1) << (SIGKILL - 1)) | (uint64_t(1) << (SIGSTOP - 1)));
}

// The test's starting mask: SIGUSR1 blocked, so that "what it was" is not the empty mask.
class MaskBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sigemptyset(&start_);
    sigaddset(&start_, SIGUSR1);
    pthread_sigmask(SIG_SETMASK, &start_, &before_);
    sigfillset(&full_);
    g_real_calls = 0;
  }
  void TearDown() override { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }
  sigset_t start_, before_, full_;
};

TEST_F(MaskBatchTest, OutsideABatchEveryCallGoesToTheKernel) {
  int rc = -1;
  sigset_t old;
  EXPECT_FALSE(mask_batch_take(counting_mask, SIG_SETMASK, &full_, &old, &rc));
  EXPECT_EQ(g_real_calls, 0);
  EXPECT_EQ(kernel_mask(), word(start_));
}

TEST_F(MaskBatchTest, OneBlockForTheWholeBatchThenTheMaskComesBack) {
  {
    MaskBatch batch;
    for (int step = 0; step < 5; ++step) {  // libunwind: block everything, look, restore
      sigset_t old;
      int rc = -1;
      ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &full_, &old, &rc));
      EXPECT_EQ(rc, 0);
      EXPECT_EQ(word(old), word(start_)) << "libunwind must be told the mask it found";
      EXPECT_EQ(kernel_mask() & blockable(full_), blockable(full_)) << "every signal blocked";
      ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &old, nullptr, &rc));
      EXPECT_EQ(rc, 0);
      EXPECT_EQ(kernel_mask() & blockable(full_), blockable(full_)) << "still blocked between steps";
    }
    EXPECT_EQ(g_real_calls, 1);
  }
  EXPECT_EQ(kernel_mask(), word(start_));
}

// Inside the runtime no handler of ours unwinds, so the batch blocks nothing: libunwind's blocks
// and restores are all answered, the kernel's mask never changes.
TEST_F(MaskBatchTest, InsideTheRuntimeNothingReachesTheKernel) {
  {
    MaskBatch batch(true);
    for (int step = 0; step < 5; ++step) {
      sigset_t old;
      int rc = -1;
      ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &full_, &old, &rc));
      EXPECT_EQ(rc, 0);
      EXPECT_EQ(kernel_mask(), word(start_)) << "nothing blocked";
      ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &old, nullptr, &rc));
      EXPECT_EQ(rc, 0);
    }
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, SIGUSR2);
    int rc = -1;
    EXPECT_FALSE(mask_batch_take(counting_mask, SIG_SETMASK, &one, nullptr, &rc)) << "others go through";
    EXPECT_EQ(g_real_calls, 0);
  }
  EXPECT_EQ(kernel_mask(), word(start_));
  // And an ordinary batch inside it still blocks for real, and gives the quiet one back.
  {
    MaskBatch quiet(true);
    {
      MaskBatch loud;
      sigset_t old;
      int rc = -1;
      ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &full_, &old, &rc));
      EXPECT_EQ(g_real_calls, 1);
    }
    sigset_t old;
    int rc = -1;
    ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &full_, &old, &rc));
    EXPECT_EQ(g_real_calls, 1);
  }
  EXPECT_EQ(kernel_mask(), word(start_));
}

TEST_F(MaskBatchTest, OtherCallsInABatchGoThrough) {
  MaskBatch batch;
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, SIGUSR2);
  int rc = -1;
  EXPECT_FALSE(mask_batch_take(counting_mask, SIG_BLOCK, &one, nullptr, &rc));
  EXPECT_FALSE(mask_batch_take(counting_mask, SIG_SETMASK, &one, nullptr, &rc));
  EXPECT_FALSE(mask_batch_take(counting_mask, SIG_SETMASK, nullptr, nullptr, &rc));
  EXPECT_EQ(g_real_calls, 0);
}

TEST_F(MaskBatchTest, ABatchInsideAnotherGivesTheOuterBack) {
  {
    MaskBatch outer;
    sigset_t old;
    int rc = -1;
    ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &full_, &old, &rc));
    {
      MaskBatch inner;  // a handler's unwind: it finds everything blocked
      sigset_t inner_old;
      ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &full_, &inner_old, &rc));
      EXPECT_EQ(word(inner_old) & blockable(full_), blockable(full_));
      ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &inner_old, nullptr, &rc));
    }
    EXPECT_EQ(kernel_mask() & blockable(full_), blockable(full_)) << "the outer batch's block stays";
    const int calls = g_real_calls;
    ASSERT_TRUE(mask_batch_take(counting_mask, SIG_SETMASK, &old, nullptr, &rc))
        << "the outer batch's restore is still answered";
    EXPECT_EQ(g_real_calls, calls);
  }
  EXPECT_EQ(kernel_mask(), word(start_));
}

}  // namespace
