// The handshake between a thread's handlers and the profile writer
// (hpcrun-lite/runtime/process/handler_gate.h): a nested handler never owns the tree and leaves
// the flag to the outer one; a handler after the writer began does not touch the tree; and the
// writer, once it waited, reads every write a handler made. The last test is also run under
// ThreadSanitizer (tsan.HandlerGate.*), where a missing release/acquire pair is a reported race.
#include "process/handler_gate.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "trees/cct.h"

namespace {

using hpcrun::Cct;
using hpcrun::HandlerGate;

TEST(HandlerGate, NestedHandlerLeavesTheTreeAndTheFlag) {
  std::atomic<int> in_handler{0};
  std::atomic<bool> stopped{false};
  {
    HandlerGate outer(in_handler, stopped);
    EXPECT_TRUE(outer.owns_tree());
    {
      HandlerGate inner(in_handler, stopped);  // PAPI's overflow interrupting the sampler
      EXPECT_TRUE(inner.nested());
      EXPECT_FALSE(inner.owns_tree());
    }
    EXPECT_EQ(in_handler.load(), 1) << "the inner handler must not clear the outer one's flag";
  }
  EXPECT_EQ(in_handler.load(), 0);
}

TEST(HandlerGate, AfterTheWriterBeganNoHandlerOwnsTheTree) {
  std::atomic<int> in_handler{0};
  std::atomic<bool> stopped{true};
  HandlerGate g(in_handler, stopped);
  EXPECT_FALSE(g.nested());
  EXPECT_FALSE(g.live());
  EXPECT_FALSE(g.owns_tree());
}

TEST(HandlerGate, WriterWaitIsBounded) {
  std::atomic<int> in_handler{1};  // a handler that never leaves (its thread descheduled)
  const uint64_t t0 = hpcrun::monotonic_ns();
  EXPECT_FALSE(hpcrun::wait_handler_quiet(in_handler, t0 + 20 * 1000000ull));
  EXPECT_GE(hpcrun::monotonic_ns() - t0, 20 * 1000000ull);
  in_handler.store(0);
  EXPECT_TRUE(hpcrun::wait_handler_quiet(in_handler, t0));  // quiet: no wait at all
}

TEST(HandlerGate, ThreadSideGateBlocksTheSignal) {
  std::atomic<int> in_handler{0};
  std::atomic<bool> stopped{false};
  {
    hpcrun::ThreadSideGate g(in_handler, stopped, SIGRTMIN + 3);
    EXPECT_TRUE(g.owns_tree());
    sigset_t now;
    pthread_sigmask(SIG_BLOCK, nullptr, &now);
    EXPECT_TRUE(sigismember(&now, SIGRTMIN + 3));
    EXPECT_EQ(in_handler.load(), 1);
  }
  sigset_t after;
  pthread_sigmask(SIG_BLOCK, nullptr, &after);
  EXPECT_FALSE(sigismember(&after, SIGRTMIN + 3));
  EXPECT_EQ(in_handler.load(), 0);
}

// With the timer on SIGTRAP, the thread's own side keeps both signals out: a timer sample that
// came in found the tree taken and was dropped as nested (e2e.heap_list_churn, once).
// The set stays for the rest of this binary's tests; none of them minds SIGTRAP blocked in a gate.
TEST(HandlerGate, ThreadSideGateBlocksTheTimersSecondSignal) {
  std::atomic<int> in_handler{0};
  std::atomic<bool> stopped{false};
  hpcrun::blocked_with_sampling(SIGTRAP);
  {
    hpcrun::ThreadSideGate g(in_handler, stopped, SIGRTMIN + 3);
    sigset_t now;
    pthread_sigmask(SIG_BLOCK, nullptr, &now);
    EXPECT_TRUE(sigismember(&now, SIGRTMIN + 3));
    EXPECT_TRUE(sigismember(&now, SIGTRAP));
  }
  sigset_t after;
  pthread_sigmask(SIG_BLOCK, nullptr, &after);
  EXPECT_FALSE(sigismember(&after, SIGTRAP));
}

// Threads stand in for handlers that extend their own trees through the gate, while a writer
// stops them, waits, and reads: it must see every sample a gate owner added, and no owner may
// add one after the writer's wait returned.
TEST(HandlerGate, WriterReadsEveryWriteOfTheHandlers) {
  constexpr int kThreads = 3;
  struct PerThread {
    std::atomic<int> in_handler{0};
    Cct cct;
    uint64_t owned = 0;  // entries that owned the tree (read by the writer after the wait)
  };
  std::vector<std::unique_ptr<PerThread>> ts;
  for (int i = 0; i < kThreads; ++i) {
    ts.push_back(std::make_unique<PerThread>());
    ASSERT_TRUE(ts.back()->cct.init());
  }
  std::atomic<bool> stopped{false}, go{false};
  std::vector<std::thread> handlers;
  for (int i = 0; i < kThreads; ++i) {
    handlers.emplace_back([&, i] {
      PerThread& t = *ts[i];
      while (!go.load()) {
      }
      for (uint64_t k = 0;; ++k) {
        HandlerGate g(t.in_handler, stopped);
        if (!g.live()) break;
        uint32_t node = t.cct.child(hpcrun::kCctNoDataRoot, 5, 0, 0x1000 + (k & 63));
        t.cct.add_samples(node, 1);
        ++t.owned;
      }
    });
  }
  go.store(true);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stopped.store(true, std::memory_order_seq_cst);
  const uint64_t deadline = hpcrun::monotonic_ns() + hpcrun::kHandlerQuietMaxNs;
  for (auto& t : ts) ASSERT_TRUE(hpcrun::wait_handler_quiet(t->in_handler, deadline));
  // The writer's reads, while the handler threads may still be running (they only find the gate
  // closed from now on).
  for (auto& t : ts) {
    uint64_t sum = 0;
    for (uint32_t n = 0; n < t->cct.size(); ++n) sum += t->cct.at(n)->samples;
    EXPECT_EQ(sum, t->owned);
    EXPECT_GT(t->owned, 0u);
  }
  for (auto& h : handlers) h.join();
}

}  // namespace
