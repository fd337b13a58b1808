// The hardware sources' drain on synthetic rings: PEBS records carrying latency and data_src,
// IBS records carrying raw registers, LOST and THROTTLE records, kernel-mode and invalid ops,
// records without an address, all ending as samples and memory metrics at the right nodes of a
// real tree (or in the right counts); and the NUMA log resolving pages against the CPU's node.
#include "sources/hw/hw_drain.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hpcl/profile.h"
#include "memory/track_control.h"
#include "record_builder.h"
#include "trees/numa.h"
#include "hpcrun/probe/pebs_attr.h"

using namespace hpcrun;

namespace {

// Two "variables": addresses in [0x10000, 0x20000) are heap site 0, [0x20000, 0x30000) site 1.
uint32_t fake_classify(Cct& c, uint64_t ea, void*, SampleEstimate*) {
  uint64_t site = ea < 0x20000 ? 0 : 1;
  return c.child(kCctHeapRoot, uint8_t(hpcl::NodeKind::HeapVar), site, 0);
}
bool fake_in_runtime(uint64_t ip, void*) { return ip == 0x7000; }

const uint64_t kPebsType = pebs_sample_type(false);

std::vector<uint8_t> pebs(uint64_t ip, uint64_t addr, uint32_t lat, uint64_t dsrc, uint32_t cpu = 0) {
  RecordBuilder b;
  b.put<uint64_t>(ip).put<uint32_t>(1).put<uint32_t>(2).put<uint64_t>(1000).put<uint64_t>(addr)
      .put<uint32_t>(cpu).put<uint32_t>(0)
      .put<uint32_t>(lat).put<uint16_t>(0).put<uint16_t>(0)  // WEIGHT_STRUCT: var1 = latency
      .put<uint64_t>(dsrc);
  return b.finish();
}

uint64_t dram_tlb_miss() {
  return PERF_MEM_S(OP, LOAD) | (uint64_t(PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT) << PERF_MEM_LVL_SHIFT) |
         (uint64_t(PERF_MEM_LVLNUM_RAM) << PERF_MEM_LVLNUM_SHIFT) |
         (uint64_t(PERF_MEM_TLB_WK | PERF_MEM_TLB_MISS) << PERF_MEM_TLB_SHIFT);
}
uint64_t l1_hit_locked() {
  return PERF_MEM_S(OP, LOAD) | (uint64_t(PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT) << PERF_MEM_LVL_SHIFT) |
         (uint64_t(PERF_MEM_LVLNUM_L1) << PERF_MEM_LVLNUM_SHIFT) |
         (uint64_t(PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT) << PERF_MEM_TLB_SHIFT) |
         (uint64_t(PERF_MEM_LOCK_LOCKED) << PERF_MEM_LOCK_SHIFT);
}

struct Env {
  std::unique_ptr<Cct> cct = std::make_unique<Cct>();
  HwDrainEnv env;
  Env(uint64_t st, HwDecoder d) {
    EXPECT_TRUE(cct->init());
    env.cct = cct.get();
    env.sample_type = st;
    env.decoder = d;
    env.family = 0x19;
    env.model = 0x10;
    env.classify = fake_classify;
    env.in_runtime = fake_in_runtime;
  }
  // The node of frame `ip` directly under heap variable `site` (no creator path, no path).
  uint32_t leaf(uint64_t site, uint64_t ip) {
    uint32_t v = cct->child(kCctHeapRoot, uint8_t(hpcl::NodeKind::HeapVar), site, 0);
    return cct->child(v, uint8_t(hpcl::NodeKind::Frame), 0, ip);
  }
};

}  // namespace

TEST(HwDrain, PebsRecordsEndAsSamplesAndMemoryMetrics) {
  Env e(kPebsType, HwDecoder::Pebs);
  FakeRing f(4096);
  f.put(pebs(0x401000, 0x10040, 300, dram_tlb_miss()));
  f.put(pebs(0x401000, 0x10080, 100, dram_tlb_miss()));
  f.put(pebs(0x402000, 0x20000, 5, l1_hit_locked()));
  RecordBuilder lost;
  f.put(lost.put<uint64_t>(0).put<uint64_t>(17).finish(PERF_RECORD_LOST));
  RecordBuilder thr;
  f.put(thr.put<uint64_t>(0).put<uint64_t>(0).put<uint64_t>(0).finish(PERF_RECORD_THROTTLE));
  f.put(pebs(0xffffffff81000000ull, 0x10000, 50, dram_tlb_miss()));  // kernel
  f.put(pebs(0x7000, 0x10000, 50, dram_tlb_miss()));                 // the runtime's own
  f.put(pebs(0x403000, 0, 0, 0));                                    // no data address
  EXPECT_EQ(hw_drain(&f.ring, &e.env), 8u);
  const HwCounts& k = e.env.counts;
  EXPECT_EQ(k.records, 6u);
  EXPECT_EQ(k.recorded, 3u);
  EXPECT_EQ(k.lost, 17u);
  EXPECT_EQ(k.throttled, 1u);
  EXPECT_EQ(k.kernel, 1u);
  EXPECT_EQ(k.in_runtime, 1u);
  EXPECT_EQ(k.no_address, 1u);

  uint32_t a = e.leaf(0, 0x401000);
  EXPECT_EQ(e.cct->at(a)->samples, 2u);
  const MemCounts* m = e.cct->mem_at(a);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->latency, 400u);
  EXPECT_EQ(m->latency_samples, 2u);
  EXPECT_EQ(m->level[int(hpcl::MemLevel::LocalDram)], 2u);
  EXPECT_EQ(m->tlb_miss, 2u);
  EXPECT_EQ(m->locked, 0u);

  uint32_t b = e.leaf(1, 0x402000);
  EXPECT_EQ(e.cct->at(b)->samples, 1u);
  ASSERT_NE(e.cct->mem_at(b), nullptr);
  EXPECT_EQ(e.cct->mem_at(b)->level[int(hpcl::MemLevel::L1)], 1u);
  EXPECT_EQ(e.cct->mem_at(b)->tlb_hit, 1u);
  EXPECT_EQ(e.cct->mem_at(b)->locked, 1u);
  // The record without an address: a sample at its instruction under the no-data root.
  uint32_t nd = e.cct->child(kCctNoDataRoot, uint8_t(hpcl::NodeKind::Frame), 0, 0x403000);
  EXPECT_EQ(e.cct->at(nd)->samples, 1u);
  EXPECT_EQ(f.meta.data_tail, f.meta.data_head);
}

// Only the newest record of a drain hangs under the interrupted context's callers; the older
// ones (and the creator path of every one) as documented in hw_drain.h.
TEST(HwDrain, OnlyTheNewestRecordGetsTheInterruptedPath) {
  Env e(kPebsType, HwDecoder::Pebs);
  const uint64_t creator[] = {0x500010, 0x500020};  // innermost first
  const uint64_t path[] = {0x600010, 0x600020};
  e.env.creator = creator;
  e.env.ncreator = 2;
  e.env.path = path;
  e.env.npath = 2;
  FakeRing f(4096);
  f.put(pebs(0x401000, 0x10000, 10, 0));
  f.put(pebs(0x401004, 0x10000, 10, 0));
  hw_drain(&f.ring, &e.env);
  Cct& c = *e.cct;
  const auto F = uint8_t(hpcl::NodeKind::Frame);
  uint32_t v = c.child(kCctHeapRoot, uint8_t(hpcl::NodeKind::HeapVar), 0, 0);
  uint32_t outer = c.child(c.child(v, F, 0, 0x500020), F, 0, 0x500010);
  EXPECT_EQ(c.at(c.child(outer, F, 0, 0x401000))->samples, 1u);  // older: creator path only
  uint32_t p = c.child(c.child(outer, F, 0, 0x600020), F, 0, 0x600010);
  EXPECT_EQ(c.at(c.child(p, F, 0, 0x401004))->samples, 1u);      // newest: under the path
}

// Every record with a data address reaches the rows that act on accesses (source_table.h), as
// a retired access of the aligned word; only the newest is fresh (the watches arm on it alone).
struct Access {
  uint64_t ea;
  bool is_write, fresh, executed;
  uint32_t var, size;
  int cpu;
};
std::vector<Access> g_accesses;
void record_access(void*, const SampledAccess& a) {
  g_accesses.push_back({a.ea, a.is_write, a.fresh, a.executed, a.var, a.size, a.cpu});
}

TEST(HwDrain, EveryAccessReachesTheRowsOnlyTheNewestFresh) {
  Env e(kPebsType, HwDecoder::Pebs);
  e.env.on_access = record_access;
  g_accesses.clear();
  const uint64_t store = PERF_MEM_S(OP, STORE) | (uint64_t(PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT) << PERF_MEM_LVL_SHIFT);
  FakeRing f(4096);
  f.put(pebs(0x401000, 0x10000, 10, dram_tlb_miss(), /*cpu=*/1));
  f.put(pebs(0x401004, 0x20008, 10, store));
  hw_drain(&f.ring, &e.env);
  ASSERT_EQ(g_accesses.size(), 2u);
  EXPECT_EQ(g_accesses[0].ea, 0x10000u);
  EXPECT_FALSE(g_accesses[0].fresh);
  EXPECT_FALSE(g_accesses[0].is_write);
  EXPECT_EQ(g_accesses[0].cpu, 1);
  EXPECT_EQ(g_accesses[1].ea, 0x20008u);
  EXPECT_TRUE(g_accesses[1].fresh);
  EXPECT_TRUE(g_accesses[1].is_write);
  EXPECT_TRUE(g_accesses[1].executed);
  EXPECT_EQ(g_accesses[1].size, 8u);
  EXPECT_EQ(g_accesses[1].var, e.cct->child(kCctHeapRoot, uint8_t(hpcl::NodeKind::HeapVar), 1, 0));
  // A record without a data address reaches no row.
  f.put(pebs(0x403000, 0, 0, 0));
  hw_drain(&f.ring, &e.env);
  EXPECT_EQ(g_accesses.size(), 2u);
}

// Stack data (issue 38): each record with an address goes through env->place, which gets the
// interrupted context for the newest record only (the frames it walks are that record's), and
// the node it returns is where the record's path hangs.
struct Placed {
  uint64_t ea, ip;
  const void* uc;
};
std::vector<Placed> g_placed;
uint32_t fake_place(Cct& c, uint32_t var, uint64_t ea, uint64_t ip, const void* uc, void*) {
  g_placed.push_back({ea, ip, uc});
  if (ea < 0x20000) return var;  // not stack data: as it is
  const uint32_t owner = c.child(var, uint8_t(hpcl::NodeKind::StackOwner), 0, ip);
  return c.child(owner, uint8_t(hpcl::NodeKind::StackSlot), 8, uint64_t(int64_t{-16}));
}

TEST(HwDrain, StackRecordsArePlacedWithTheContextOfTheNewestOnly) {
  Env e(kPebsType, HwDecoder::Pebs);
  const int context = 0;  // stands for the signal's ucontext
  e.env.place = fake_place;
  e.env.uc = &context;
  g_placed.clear();
  FakeRing f(4096);
  f.put(pebs(0x401000, 0x20010, 10, 0));
  f.put(pebs(0x401004, 0x10000, 10, 0));
  f.put(pebs(0x403000, 0, 0, 0));  // no data address: nothing to place
  f.put(pebs(0x401008, 0x20018, 10, 0));
  hw_drain(&f.ring, &e.env);
  ASSERT_EQ(g_placed.size(), 3u);
  EXPECT_EQ(g_placed[0].uc, nullptr) << "an older record: its frames are gone";
  EXPECT_EQ(g_placed[1].uc, nullptr);
  EXPECT_EQ(g_placed[2].uc, &context) << "the newest: the signal's context is its own";
  EXPECT_EQ(g_placed[2].ip, 0x401008u);
  Cct& c = *e.cct;
  const uint32_t var = c.child(kCctHeapRoot, uint8_t(hpcl::NodeKind::HeapVar), 1, 0);
  const uint32_t slot = c.child(c.child(var, uint8_t(hpcl::NodeKind::StackOwner), 0, 0x401008),
                                uint8_t(hpcl::NodeKind::StackSlot), 8, uint64_t(int64_t{-16}));
  EXPECT_EQ(c.at(c.child(slot, uint8_t(hpcl::NodeKind::Frame), 0, 0x401008))->samples, 1u);
  EXPECT_EQ(e.cct->at(e.leaf(0, 0x401004))->samples, 1u) << "returned as it was";
}

TEST(HwDrain, IbsRegistersEndAsSamplesAndMemoryMetrics) {
  const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
  Env e(st, HwDecoder::Ibs);
  auto ibs = [&](uint64_t ctl, uint64_t rip, uint64_t d2, uint64_t d3, uint64_t lin) {
    RecordBuilder raw;
    raw.put<uint32_t>(0).put(ctl).put(rip).put<uint64_t>(0).put(d2).put(d3).put(lin).put<uint64_t>(0);
    std::vector<uint8_t> r(raw.bytes.begin() + sizeof(perf_event_header), raw.bytes.end());
    RecordBuilder b;
    b.put<uint64_t>(rip + 8).put<uint32_t>(1).put<uint32_t>(2).put<uint64_t>(5)
        .put<uint32_t>(0).put<uint32_t>(0).put<uint32_t>(uint32_t(r.size())).put_bytes(r.data(), r.size());
    return b.finish();
  };
  constexpr uint64_t kOpVal = 1ull << 18, kLd = 1, kDcMiss = 1ull << 7, kLinValid = 1ull << 17;
  constexpr uint64_t kL2Miss = 1ull << 20, kL1TlbMiss = 1ull << 2, kL2TlbMiss = 1ull << 3;
  FakeRing f(4096);
  // A DRAM miss of 250 cycles with a TLB miss (data source 3: DRAM), and an L1 hit.
  f.put(ibs(kOpVal, 0x401500, 3, kLd | kDcMiss | kL2Miss | kLinValid | kL1TlbMiss | kL2TlbMiss | (250ull << 32), 0x20010));
  f.put(ibs(kOpVal, 0x401500, 0, kLd | kLinValid, 0x20020));
  f.put(ibs(0, 0x401500, 0, 0, 0));                                          // not valid
  f.put(ibs(kOpVal, 0xffffffff81000000ull, 0, kLd | kLinValid, 0x20020));   // kernel
  hw_drain(&f.ring, &e.env);
  EXPECT_EQ(e.env.counts.records, 4u);
  EXPECT_EQ(e.env.counts.not_valid, 1u);
  EXPECT_EQ(e.env.counts.kernel, 1u);
  uint32_t n = e.leaf(1, 0x401500);
  EXPECT_EQ(e.cct->at(n)->samples, 2u);
  const MemCounts* m = e.cct->mem_at(n);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->latency, 250u);
  EXPECT_EQ(m->latency_samples, 1u);
  EXPECT_EQ(m->dc_miss, 1u);
  EXPECT_EQ(m->level[int(hpcl::MemLevel::LocalDram)], 1u);
  EXPECT_EQ(m->tlb_miss, 1u);
}

TEST(HwDrain, MalformedRecordsAreCounted) {
  Env e(kPebsType, HwDecoder::Pebs);
  FakeRing f(4096);
  RecordBuilder shorty;
  f.put(shorty.put<uint64_t>(0x401000).finish());  // a sample record cut after its IP
  hw_drain(&f.ring, &e.env);
  EXPECT_EQ(e.env.counts.records, 1u);
  EXPECT_EQ(e.env.counts.malformed, 1u);
  EXPECT_EQ(e.env.counts.recorded, 0u);
}

namespace {
int g_page_node = 0;
long fake_move_pages(unsigned long count, void** pages, int* status) {
  for (unsigned long i = 0; i < count; ++i)
    status[i] = reinterpret_cast<uint64_t>(pages[i]) == 0x30000 ? -ENOENT : g_page_node;
  return 0;
}
}  // namespace

// The NUMA log: pages on the sampling CPU's node are local, others remote, absent pages
// unresolved; a full log resolves itself on the next add.
TEST(HwDrain, NumaLogCountsLocalAndRemote) {
  set_move_pages_hook(fake_move_pages);
  numa_set_cpu_node(0, 0);
  numa_set_cpu_node(1, 1);
  Env e(kPebsType, HwDecoder::Pebs);
  auto log = std::make_unique<NumaLog>();
  log->clear();
  // As the NUMA placement's row logs what reaches it (numa_place.cpp).
  static NumaLog* s_log;
  static Cct* s_cct;
  s_log = log.get();
  s_cct = e.cct.get();
  e.env.on_access = [](void*, const SampledAccess& a) { s_log->add(*s_cct, a.node, a.ea, uint32_t(a.cpu)); };
  FakeRing f(1 << 16);
  f.put(pebs(0x401000, 0x10040, 1, 0, /*cpu=*/0));
  f.put(pebs(0x401000, 0x10080, 1, 0, /*cpu=*/1));
  f.put(pebs(0x402000, 0x30000, 1, 0, /*cpu=*/0));  // page not present
  hw_drain(&f.ring, &e.env);
  EXPECT_EQ(log->size(), 3u);
  NumaCounts before = numa_counts();
  log->flush(*e.cct);
  EXPECT_EQ(log->size(), 0u);
  NumaCounts after = numa_counts();
  EXPECT_EQ(after.local - before.local, 1u);
  EXPECT_EQ(after.remote - before.remote, 1u);
  EXPECT_EQ(after.unresolved - before.unresolved, 1u);
  const MemCounts* m = e.cct->mem_at(e.leaf(0, 0x401000));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->numa_local, 1u);
  EXPECT_EQ(m->numa_remote, 1u);
  // Filling the log past its capacity resolves it inside add().
  for (uint32_t i = 0; i < NumaLog::kCapacity + 5; ++i) log->add(*e.cct, e.leaf(0, 0x401000), 0x10000, 0);
  EXPECT_EQ(log->size(), 5u);
  EXPECT_EQ(e.cct->mem_at(e.leaf(0, 0x401000))->numa_local, 1u + NumaLog::kCapacity);
  // A block being freed is placed first only when the log holds one of its pages.
  EXPECT_TRUE(log->holds(0x10000, 0x10010));
  EXPECT_TRUE(log->holds(0x10ff0, 0x11000));  // shares the logged page
  EXPECT_FALSE(log->holds(0x11000, 0x20000));
  EXPECT_FALSE(log->holds(0x1000, 0x10000));
  set_move_pages_hook(nullptr);
}

// On one node there is nothing to look up: a sample counts local at once, nothing is logged.
TEST(HwDrain, OneNodeCountsLocalWithoutLookingUp) {
  char root[] = "/tmp/numa_one_XXXXXX";
  ASSERT_NE(mkdtemp(root), nullptr);
  const std::string node0 = std::string(root) + "/sys/devices/system/node/node0";
  ASSERT_EQ(system(("mkdir -p " + node0 + " && echo 0-3 > " + node0 + "/cpulist").c_str()), 0);
  ASSERT_EQ(numa_init(root), 1);
  static int lookups = 0;
  set_move_pages_hook([](unsigned long, void**, int*) -> long {
    ++lookups;
    return 0;
  });
  Env e(kPebsType, HwDecoder::Pebs);
  auto log = std::make_unique<NumaLog>();
  log->clear();
  const NumaCounts before = numa_counts();
  for (int i = 0; i < 300; ++i) log->add(*e.cct, e.leaf(0, 0x401000), 0x10000 + 4096 * i, 2);
  log->flush(*e.cct);
  EXPECT_EQ(log->size(), 0u);
  EXPECT_EQ(lookups, 0);
  EXPECT_EQ(numa_counts().local - before.local, 300u);
  EXPECT_EQ(e.cct->mem_at(e.leaf(0, 0x401000))->numa_local, 300u);
  set_move_pages_hook(nullptr);
  numa_set_cpu_node(0, 0);  // back to a looked-up map for the other tests
  ASSERT_EQ(system((std::string("rm -rf ") + root).c_str()), 0);
}
