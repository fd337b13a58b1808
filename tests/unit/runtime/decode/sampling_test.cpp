// resolve_sample end to end in a real signal handler: a CPU-time timer interrupts a streaming
// loop, the handler builds SavedRegs from the ucontext and resolves the sampled address.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "decode/access_decode.h"
#include "decode/saved_regs.h"

extern "C" double hpcl_stream_sum(const double* a, size_t n);
extern "C" void hpcl_stream_scale(double* b, const double* a, size_t n, double k);

namespace {

struct Range {
  uint64_t lo = 0, hi = 0;
  bool contains(uint64_t x) const { return x >= lo && x < hi; }
};

// Written before the timer starts, read in the handler.
Range g_code, g_a, g_b;
std::atomic<uint64_t> g_samples{0}, g_in_code{0}, g_in_a{0}, g_in_b{0}, g_no_mem{0}, g_unresolvable{0},
    g_errno_changed{0};

static_assert(std::atomic<uint64_t>::is_always_lock_free);

void on_sample(int, siginfo_t*, void* ctx) {
  const int saved_errno = errno;
  g_samples.fetch_add(1, std::memory_order_relaxed);
  const hpcrun::SavedRegs regs =
      hpcrun::saved_regs_from_ucontext(static_cast<const ucontext_t*>(ctx), hpcrun::fs_base_of_current_thread());
  if (g_code.contains(regs.rip)) {
    g_in_code.fetch_add(1, std::memory_order_relaxed);
    errno = 4242;
    const hpcrun::Access a = hpcrun::resolve_sample(regs);
    if (errno != 4242) g_errno_changed.fetch_add(1, std::memory_order_relaxed);
    if (a.kind == hpcrun::AccessKind::Address) {
      if (g_a.contains(a.ea)) g_in_a.fetch_add(1, std::memory_order_relaxed);
      if (g_b.contains(a.ea)) g_in_b.fetch_add(1, std::memory_order_relaxed);
    } else if (a.kind == hpcrun::AccessKind::NoMemoryOperand) {
      g_no_mem.fetch_add(1, std::memory_order_relaxed);
    } else {
      g_unresolvable.fetch_add(1, std::memory_order_relaxed);
    }
  }
  errno = saved_errno;
}

class Sampling : public ::testing::Test {
 protected:
  void SetUp() override {
    hpcrun::decode_init();
    for (auto* c : {&g_samples, &g_in_code, &g_in_a, &g_in_b, &g_no_mem, &g_unresolvable, &g_errno_changed}) {
      c->store(0);
    }
    struct sigaction sa {};
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ASSERT_EQ(sigaction(SIGPROF, &sa, &old_), 0);
    sigevent sev{};
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
    ASSERT_EQ(timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer_), 0);
    armed_ = true;
  }
  void start() {
    itimerspec its{};
    its.it_interval.tv_nsec = 4'000'000;  // 250 Hz of thread CPU time (the kernel tick)
    its.it_value.tv_nsec = 4'000'000;
    ASSERT_EQ(timer_settime(timer_, 0, &its, nullptr), 0);
  }
  void stop() {
    if (!armed_) return;
    armed_ = false;
    timer_delete(timer_);
    sigaction(SIGPROF, &old_, nullptr);
  }
  void TearDown() override { stop(); }

  static void set_code_range(const void* fn) {
    uint64_t s = 0, e = 0;
    ASSERT_TRUE(hpcrun::function_bounds(reinterpret_cast<uint64_t>(fn), &s, &e));
    g_code = {s, e};
  }

  timer_t timer_{};
  bool armed_ = false;
  struct sigaction old_ {};
};

constexpr size_t kN = size_t{4} << 20;  // 4 Mi doubles = 32 MiB per array
constexpr uint64_t kWantSamples = 300;
constexpr auto kMaxTime = std::chrono::seconds(30);

// The least share of the loop's samples that must resolve into the arrays: the lowest share seen
// on any machine less Z = 4 binomial standard deviations of the n samples taken in the loop (the
// end-to-end tests' rule, tests/e2e/tolerance.py: a false failure at most once in 10,000 runs on
// a machine as slow to resolve as the worst seen). A decoder that loses the load resolves next to
// nothing, and one that loses half of it falls under the bar too.
double resolved_bar(double lowest_seen, double n) {
  return lowest_seen - 4.0 * std::sqrt(lowest_seen * (1 - lowest_seen) / n);
}

TEST_F(Sampling, StreamingSumResolvesIntoArray) {
  std::vector<double> a(kN, 1.0);
  g_a = {reinterpret_cast<uint64_t>(a.data()), reinterpret_cast<uint64_t>(a.data() + a.size())};
  g_b = {};
  set_code_range(reinterpret_cast<const void*>(&hpcl_stream_sum));
  start();
  const auto t0 = std::chrono::steady_clock::now();
  double sum = 0;
  while (g_in_code.load() < kWantSamples && std::chrono::steady_clock::now() - t0 < kMaxTime) {
    sum += hpcl_stream_sum(a.data(), a.size());
  }
  stop();
  EXPECT_GT(sum, 0.0);
  const double in_code = static_cast<double>(g_in_code.load());
  const double frac = g_in_a.load() / in_code;
  std::printf("[stream sum] samples=%lu in_loop=%lu into_array=%lu (%.1f%%) no_mem=%lu unresolvable=%lu\n",
              (unsigned long)g_samples.load(), (unsigned long)g_in_code.load(), (unsigned long)g_in_a.load(),
              100 * frac, (unsigned long)g_no_mem.load(), (unsigned long)g_unresolvable.load());
  const auto st = hpcrun::decode_stats();
  std::printf("[stream sum] cache lookups=%lu hits=%lu inserts=%lu full=%lu\n", (unsigned long)st.lookups,
              (unsigned long)st.hits, (unsigned long)st.inserts, (unsigned long)st.full);
  ASSERT_GE(g_in_code.load(), 200u);
  // 93-99% on an idle machine; 71-89% while other processes share the caches (a CI run beside
  // builds), when more samples land on the loop's increment and branch than on its load. A
  // decoder that loses the load falls far below either. The fixed bar of 0.65 was 2.3 sd under
  // 71% at 300 samples (a false failure about once in 100 such runs); the bar is now derived.
  const double bar = resolved_bar(0.71, in_code);
  std::printf("[stream sum] resolved %.3f of %.0f samples, at least %.3f required (71%% seen, 4 sd)\n", frac,
              in_code, bar);
  EXPECT_GE(frac, bar);
  EXPECT_EQ(g_errno_changed.load(), 0u);
}

TEST_F(Sampling, StreamingScaleResolvesIntoArrays) {
  std::vector<double> a(kN, 1.0), b(kN, 0.0);
  g_a = {reinterpret_cast<uint64_t>(a.data()), reinterpret_cast<uint64_t>(a.data() + a.size())};
  g_b = {reinterpret_cast<uint64_t>(b.data()), reinterpret_cast<uint64_t>(b.data() + b.size())};
  set_code_range(reinterpret_cast<const void*>(&hpcl_stream_scale));
  start();
  const auto t0 = std::chrono::steady_clock::now();
  while (g_in_code.load() < kWantSamples && std::chrono::steady_clock::now() - t0 < kMaxTime) {
    hpcl_stream_scale(b.data(), a.data(), a.size(), 1.5);
  }
  stop();
  EXPECT_EQ(b[kN - 1], 1.5);
  const double in_code = static_cast<double>(g_in_code.load());
  const double frac = (g_in_a.load() + g_in_b.load()) / in_code;
  std::printf("[stream scale] in_loop=%lu into_a=%lu into_b=%lu (%.1f%%) no_mem=%lu unresolvable=%lu\n",
              (unsigned long)g_in_code.load(), (unsigned long)g_in_a.load(), (unsigned long)g_in_b.load(),
              100 * frac, (unsigned long)g_no_mem.load(), (unsigned long)g_unresolvable.load());
  ASSERT_GE(g_in_code.load(), 200u);
  // Samples whose skid lands after the mulsd or the add (their previous instruction has no
  // memory operand) count as no_mem. How many do depends on the CPU: 5-10% on the project's
  // EPYC hosts, 12-20% on the Xeon VMs of November 2026 (80-88% resolved, with or without
  // load); 74.3% resolved once on an EPYC VM under ASan beside another test (a clean-clone CI
  // run, 27 Nov; the bar was 0.75 then, 0.65 after). The bar is derived from the lowest seen
  // (74%) and the sample count; a decoder that loses the load resolves next to nothing.
  const double bar = resolved_bar(0.74, in_code);
  std::printf("[stream scale] resolved %.3f of %.0f samples, at least %.3f required (74%% seen, 4 sd)\n", frac,
              in_code, bar);
  EXPECT_GE(frac, bar);
  EXPECT_EQ(g_errno_changed.load(), 0u);
}

}  // namespace
