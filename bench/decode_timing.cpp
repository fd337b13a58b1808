// Rough cost of resolve_sample on a cache hit and on a miss (printed; only sanity-checked).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "access_decode.h"
#include "pc_corpus.h"

extern "C" const char hpcl_t_chain_after[];
extern "C" double hpcl_stream_sum(const double* a, size_t n);

namespace {

using Clock = std::chrono::steady_clock;

double ns_per(Clock::duration d, size_t n) {
  return std::chrono::duration<double, std::nano>(d).count() / static_cast<double>(n);
}

TEST(DecodeTiming, HitAndMiss) {
  hpcrun::decode_init();
  // Hit: the same pc over and over.
  hpcrun::SavedRegs r = hpcl_test::regs_for(reinterpret_cast<uint64_t>(hpcl_t_chain_after));
  (void)hpcrun::resolve_sample(r);
  constexpr size_t kHits = 200000;
  uint64_t sink = 0;
  auto t0 = Clock::now();
  for (size_t i = 0; i < kHits; ++i) sink += hpcrun::resolve_sample(r).ea;
  const double hit_ns = ns_per(Clock::now() - t0, kHits);

  // One pc alone, without the cache: bounds + forward decode + access.
  const std::vector<hpcl_test::Pc> pcs = hpcl_test::pc_corpus();
  ASSERT_FALSE(pcs.empty());
  t0 = Clock::now();
  for (const auto& p : pcs) {
    uint64_t s = 0, e = 0;
    if (!hpcrun::function_bounds(p.pc, &s, &e)) continue;
    const auto d = hpcrun::decide_from_code(reinterpret_cast<const uint8_t*>(s), e - s, s, p.pc);
    sink += d.prev_len;
    sink += hpcrun::access_at(p.pc, hpcl_test::regs_for(p.pc)).ea;
  }
  const double single_ns = ns_per(Clock::now() - t0, pcs.size());
  uint64_t bytes = 0;
  for (const auto& p : pcs) bytes += p.end - p.start;

  // resolve_sample over every pc of the corpus in order, from a cold cache (when this test runs
  // in its own process, as under ctest): the misses decide their neighbours too.
  const auto before = hpcrun::decode_stats();
  t0 = Clock::now();
  for (const auto& p : pcs) sink += hpcrun::resolve_sample(hpcl_test::regs_for(p.pc)).ea;
  const auto pass = Clock::now() - t0;
  const auto after = hpcrun::decode_stats();
  const uint64_t misses = (after.lookups - before.lookups) - (after.hits - before.hits);
  const double miss_ns = misses ? ns_per(pass, misses) : 0.0;
  const double pass_ns = ns_per(pass, pcs.size());

  // A small function (the streaming loop of sampling_test, about 40 bytes): one uncached decision.
  uint64_t ss = 0, se = 0;
  ASSERT_TRUE(hpcrun::function_bounds(reinterpret_cast<uint64_t>(&hpcl_stream_sum), &ss, &se));
  constexpr size_t kSmall = 20000;
  t0 = Clock::now();
  for (size_t i = 0; i < kSmall; ++i) {
    uint64_t s = 0, e = 0;
    (void)hpcrun::function_bounds(ss + 0x14, &s, &e);
    sink += hpcrun::decide_from_code(reinterpret_cast<const uint8_t*>(s), e - s, s, ss + 0x14).prev_len;
  }
  const double small_ns = ns_per(Clock::now() - t0, kSmall);

  // Components.
  t0 = Clock::now();
  for (const auto& p : pcs) {
    uint64_t s = 0, e = 0;
    sink += hpcrun::function_bounds(p.pc, &s, &e) ? s : 0;
  }
  const double bounds_ns = ns_per(Clock::now() - t0, pcs.size());
  t0 = Clock::now();
  for (const auto& p : pcs) sink += hpcrun::access_at(p.pc, r).ea;
  const double access_ns = ns_per(Clock::now() - t0, pcs.size());

  std::printf("[timing] resolve_sample hit: %.0f ns\n", hit_ns);
  std::printf("[timing] one pc without cache (bounds+decide_from_code+access_at): %.0f ns avg over %zu pcs "
              "(functions of %.0f bytes on average)\n",
              single_ns, pcs.size(), static_cast<double>(bytes) / static_cast<double>(pcs.size()));
  std::printf("[timing] cold pass of resolve_sample over the same pcs: %lu misses, %.0f ns per miss "
              "(%.0f ns per call)\n",
              (unsigned long)misses, miss_ns, pass_ns);
  std::printf("[timing] one uncached decision in a %lu-byte function: %.0f ns\n", (unsigned long)(se - ss),
              small_ns);
  std::printf("[timing] function_bounds %.0f ns; access_at %.0f ns (sink %lu)\n", bounds_ns, access_ns,
              (unsigned long)(sink & 1));
  EXPECT_LT(hit_ns, 20000.0);
}

}  // namespace
