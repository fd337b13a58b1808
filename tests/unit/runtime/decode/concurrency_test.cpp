// Several threads resolving samples (and inserting into the PC cache) at once.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "decode/access_decode.h"
#include "pc_corpus.h"

namespace {

TEST(DecodeConcurrency, TwoThreadsConsistentDecisions) {
  hpcrun::decode_init();
  const std::vector<hpcl_test::Pc> pcs = hpcl_test::pc_corpus();
  ASSERT_GT(pcs.size(), 10000u);
  std::vector<hpcrun::Access> expected;
  expected.reserve(pcs.size());
  size_t prev_choices = 0;
  for (const auto& p : pcs) {
    expected.push_back(hpcl_test::reference_access(p, hpcl_test::regs_for(p.pc)));
    if (expected.back().insn != p.pc) ++prev_choices;
  }
  EXPECT_GT(prev_choices, pcs.size() / 10);  // the corpus does exercise UsePrevious

  const auto before = hpcrun::decode_stats();
  std::atomic<bool> go{false};
  std::atomic<uint64_t> mismatches{0}, calls{0};
  auto worker = [&](bool forward) {
    while (!go.load()) {
    }
    for (int round = 0; round < 3; ++round) {
      for (size_t k = 0; k < pcs.size(); ++k) {
        const size_t i = forward ? k : pcs.size() - 1 - k;
        const hpcrun::Access a = hpcrun::resolve_sample(hpcl_test::regs_for(pcs[i].pc));
        calls.fetch_add(1, std::memory_order_relaxed);
        if (!hpcl_test::same(a, expected[i])) mismatches.fetch_add(1, std::memory_order_relaxed);
      }
    }
  };
  std::thread t1(worker, true), t2(worker, false);
  go.store(true);
  t1.join();
  t2.join();
  const auto after = hpcrun::decode_stats();
  EXPECT_EQ(mismatches.load(), 0u);
  EXPECT_EQ(after.lookups - before.lookups, calls.load());
  // Each distinct pc is inserted once (or counted as not fitting), but for the pcs both threads
  // missed at the same moment: each may then claim a slot of its own before seeing the other's
  // (a spare slot, harmless). The threads walk the corpus in opposite directions, so such
  // meetings are few: under TSan, 16-156 spare inserts for 15,294 pcs in 8 runs since the cache
  // groups the pcs of a line of code (and 152, the old bound of 1%, exceeded once in 30). A
  // cache that inserted at every miss or every round would insert 3-6 times as many.
  EXPECT_LE(after.inserts - before.inserts, pcs.size() + pcs.size() / 25);
  EXPECT_GE(after.hits - before.hits, calls.load() - 2 * pcs.size());
  std::printf("[concurrency] pcs=%zu calls=%lu inserts=%lu hits=%lu full=%lu\n", pcs.size(),
              (unsigned long)calls.load(), (unsigned long)(after.inserts - before.inserts),
              (unsigned long)(after.hits - before.hits), (unsigned long)(after.full - before.full));
}

// A buffer of one-byte nops in .data: pcs in the module but in no FDE, cheap to fill the cache.
alignas(4096) uint8_t g_nops[160 * 1024] = {1};

// More pcs than the table holds: the oldest decisions are evicted (issue 11), answers stay right.
TEST(DecodeConcurrency, CacheFullEvictsAndStaysHarmless) {
  hpcrun::decode_init();
  std::memset(g_nops, 0x90, sizeof g_nops);
  const auto before = hpcrun::decode_stats();
  std::atomic<uint64_t> wrong{0};
  auto worker = [&](size_t first) {
    for (size_t i = first; i < sizeof g_nops; i += 2) {
      hpcrun::SavedRegs r = hpcl_test::regs_for(reinterpret_cast<uint64_t>(&g_nops[i]));
      const hpcrun::Access a = hpcrun::resolve_sample(r);
      if (a.kind != hpcrun::AccessKind::NoMemoryOperand || a.insn != r.rip) wrong.fetch_add(1);
    }
  };
  std::thread t1(worker, 0), t2(worker, 1);
  t1.join();
  t2.join();
  const auto after = hpcrun::decode_stats();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(after.inserts - before.inserts + after.full - before.full, sizeof g_nops);
  EXPECT_GE(after.evictions - before.evictions, sizeof g_nops - 65536);
  EXPECT_LE(after.full - before.full, sizeof g_nops / 100);
  std::printf("[cache full] inserted=%lu evicted=%lu full=%lu (table 65536 slots)\n",
              (unsigned long)(after.inserts - before.inserts),
              (unsigned long)(after.evictions - before.evictions), (unsigned long)(after.full - before.full));
}

}  // namespace
