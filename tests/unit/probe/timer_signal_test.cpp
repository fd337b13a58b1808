// How the timer signals (timer_signal.h): the rules on given facts, and the recognition of the
// timer's SIGTRAP checked against what the kernel really sends (a task-clock event with perf's
// sigtrap on this thread), not against siginfo bytes written here.
#include "hpcrun/probe/timer_signal.h"

#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "hpcrun/probe/perf_event.h"

using namespace hpcrun;

TEST(TimerSignal, ParsesKernelReleases) {
  int a = 0, b = 0;
  EXPECT_TRUE(parse_kernel_release("6.18.44-fc-v657", &a, &b));
  EXPECT_EQ(a, 6);
  EXPECT_EQ(b, 18);
  EXPECT_TRUE(parse_kernel_release("5.15.0-91-generic", &a, &b));
  EXPECT_EQ(a, 5);
  EXPECT_EQ(b, 15);
  EXPECT_TRUE(parse_kernel_release("6.11", &a, &b));
  EXPECT_EQ(b, 11);
  EXPECT_FALSE(parse_kernel_release("6", &a, &b));
  EXPECT_FALSE(parse_kernel_release("linux", &a, &b));
  EXPECT_FALSE(parse_kernel_release("6.x", &a, &b));
}

TEST(TimerSignal, SigtrapOnlyWhereItIsCheaperAndSafe) {
  TimerSignalFacts f;
  f.kernel_major = 6;
  f.kernel_minor = 11;
  f.probe_opens = true;
  EXPECT_EQ(timer_signal_decide(f).signal, TimerSignal::Trap);
  f.env = "1";
  EXPECT_EQ(timer_signal_decide(f).signal, TimerSignal::Trap);
  f.env = "0";
  EXPECT_EQ(timer_signal_decide(f).signal, TimerSignal::Realtime);
  f.env = nullptr;
  f.kernel_minor = 10;  // the same irq_work as the real-time signal
  EXPECT_EQ(timer_signal_decide(f).signal, TimerSignal::Realtime);
  f.kernel_major = 5;
  f.kernel_minor = 19;
  EXPECT_EQ(timer_signal_decide(f).signal, TimerSignal::Realtime);
  f.kernel_major = 7;
  f.kernel_minor = 0;
  EXPECT_EQ(timer_signal_decide(f).signal, TimerSignal::Trap);
  f.tracer_pid = 4242;  // gdb, strace, rr
  EXPECT_EQ(timer_signal_decide(f).signal, TimerSignal::Realtime);
  f.tracer_pid = 0;
  f.probe_opens = false;
  EXPECT_EQ(timer_signal_decide(f).signal, TimerSignal::Realtime);
  EXPECT_NE(strstr(timer_signal_decide(f).why, "sigtrap"), nullptr);
}

namespace {

std::atomic<int> g_ours{0}, g_others{0};

void on_trap(int, siginfo_t* info, void*) {
  if (timer_trap_is_ours(info)) ++g_ours;
  else ++g_others;
}

double thread_cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Opens a 10 kHz task clock of this thread with perf's sigtrap and `cookie`, runs it for 30 ms
// of CPU and returns the fd's errno on failure (0 when it ran).
int run_trap_event(uint64_t cookie) {
  perf_event_attr a = soft_clock_attr(100000, true);
  a.sig_data = cookie;
  int fd = perf_open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return -fd;
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  volatile double x = 1;
  // Mostly user time: the CPU clock is read (in the kernel, where nothing is sampled) once per
  // 10,000 steps.
  for (double start = thread_cpu(); thread_cpu() - start < 0.03;)
    for (int i = 0; i < 10000; ++i) x = x * 1.0000001 + 1e-9;
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  close(fd);
  return 0;
}

}  // namespace

TEST(TimerSignal, RecognisesTheKernelsTrapsOfTheTimerOnly) {
  utsname u;
  ASSERT_EQ(uname(&u), 0);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_trap;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  ASSERT_EQ(sigaction(SIGTRAP, &sa, &old), 0);

  int err = run_trap_event(kTimerTrapCookie);
  if (err != 0) {
    // Skipped where the tool itself would not use perf's SIGTRAP (its own facts and rules, as
    // --check gives them); a failure where it would.
    sigaction(SIGTRAP, &old, nullptr);
    const TimerSignalChoice c = timer_signal_decide(timer_signal_facts());
    ASSERT_NE(c.signal, TimerSignal::Trap)
        << "kernel " << u.release << " refused perf's sigtrap, which the timer would use: " << strerror(err);
    GTEST_SKIP() << "the timer uses the real-time signal here (" << c.why << "); perf's sigtrap: " << strerror(err);
  }
  std::printf("[timer_signal] %d of the timer's traps in 30 ms of CPU at 10 kHz\n", g_ours.load());
  EXPECT_GT(g_ours, 100);  // ~300 at 10 kHz for 30 ms of CPU
  EXPECT_EQ(g_others, 0);

  // A program's own perf sigtrap event (another sig_data), its raise and its breakpoint.
  g_ours = 0;
  ASSERT_EQ(run_trap_event(0x1234), 0);
  EXPECT_EQ(g_ours, 0);
  EXPECT_GT(g_others, 100);
  g_others = 0;
  raise(SIGTRAP);
  __asm__ volatile("int3");
  EXPECT_EQ(g_ours, 0);
  EXPECT_EQ(g_others, 2);
  sigaction(SIGTRAP, &old, nullptr);
}
