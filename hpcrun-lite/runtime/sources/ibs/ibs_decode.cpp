// See ibs_decode.h.
#include "sources/ibs/ibs_decode.h"

#include <linux/perf_event.h>

#include <cstring>

namespace hpcrun {

namespace {

bool bit(uint64_t v, unsigned n) { return (v >> n) & 1; }
uint64_t bits(uint64_t v, unsigned lo, unsigned n) { return (v >> lo) & ((1ull << n) - 1); }

// The uncached level number came with Linux 6.8's uapi header; the value is the ABI's.
constexpr uint64_t kLvlNumUnc = 0x08;

// A level hit: its old bit with HIT, and its number.
constexpr uint64_t hit(uint64_t lvl) { return (lvl | PERF_MEM_LVL_HIT) << PERF_MEM_LVL_SHIFT; }
constexpr uint64_t num(uint64_t n) { return n << PERF_MEM_LVLNUM_SHIFT; }
constexpr uint64_t kRemote = uint64_t(PERF_MEM_REMOTE_REMOTE) << PERF_MEM_REMOTE_SHIFT;
constexpr uint64_t hops(uint64_t h) { return h << PERF_MEM_HOPS_SHIFT; }

// IbsOpData2's DataSrc, where a load beyond L2 was served from: before Zen 4 three bits, from
// Zen 4 on five (the two high bits at 6-7). The encodings the kernel gives each.
uint64_t source_before_zen4(unsigned src) {
  switch (src) {
    case 2: return hit(PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1) | num(PERF_MEM_LVLNUM_ANY_CACHE) | hops(PERF_MEM_HOPS_0);
    case 3: return hit(PERF_MEM_LVL_LOC_RAM) | num(PERF_MEM_LVLNUM_RAM);
    case 4: return hit(PERF_MEM_LVL_REM_CCE2) | num(PERF_MEM_LVLNUM_ANY_CACHE) | kRemote | hops(PERF_MEM_HOPS_1);
    case 7: return hit(PERF_MEM_LVL_IO) | num(PERF_MEM_LVLNUM_IO);
    default: return 0;
  }
}
uint64_t source_zen4(unsigned src) {
  switch (src) {
    case 1: return hit(PERF_MEM_LVL_L3) | num(PERF_MEM_LVLNUM_L3);  // this CCX's L3
    case 2: return hit(PERF_MEM_LVL_REM_CCE1) | num(PERF_MEM_LVLNUM_ANY_CACHE) | kRemote | hops(PERF_MEM_HOPS_0);
    case 3: return hit(PERF_MEM_LVL_LOC_RAM) | num(PERF_MEM_LVLNUM_RAM);
    case 5: return hit(PERF_MEM_LVL_REM_CCE2) | num(PERF_MEM_LVLNUM_ANY_CACHE) | kRemote | hops(PERF_MEM_HOPS_1);
    case 6: return num(PERF_MEM_LVLNUM_PMEM);
    case 7: return hit(PERF_MEM_LVL_IO) | num(PERF_MEM_LVLNUM_IO);
    case 8: return num(PERF_MEM_LVLNUM_CXL);  // extension memory
    default: return 0;                        // 12, another agent's memory, has no encoding
  }
}

constexpr unsigned kDram = 3;

// The level part of the data source (mem_lvl, mem_lvl_num, remote, hops).
uint64_t level(const IbsOpRegs& r, uint64_t d2, bool load, bool zen4, uint32_t family, uint32_t model) {
  const uint64_t d3 = r.op_data3;
  const unsigned src = unsigned(bits(d2, 0, 3) | (zen4 ? bits(d2, 6, 2) << 3 : 0));
  // DcMiss, L2Miss and DataSrc mean nothing for an uncached access (unless it went to I/O).
  if (bit(d3, 14) && src != 7) return hit(PERF_MEM_LVL_UNC) | num(kLvlNumUnc);
  if (!bit(d3, 7)) return hit(PERF_MEM_LVL_L1) | num(PERF_MEM_LVLNUM_L1);
  // Erratum 1293 (family 19h models 0-0Fh): a software prefetch or a miss without a MAB
  // reports an L2 hit that was not one.
  const bool erratum = family == 0x19 && model <= 0xf && (bit(d3, 21) || bit(d3, 16));
  if (!bit(d3, 20) && !erratum) return hit(PERF_MEM_LVL_L2) | num(PERF_MEM_LVLNUM_L2);
  if (load) {  // DataSrc is a load's only
    uint64_t v = zen4 ? source_zen4(src) : source_before_zen4(src);
    if (v) {
      // RmtNode: the memory of another node (IBS does not say how far).
      const bool memory = src == kDram || (zen4 && (src == 6 || src == 8));
      if (bit(d2, 4) && memory)
        v = src == kDram ? hit(PERF_MEM_LVL_REM_RAM1) | num(PERF_MEM_LVLNUM_RAM) | kRemote | hops(PERF_MEM_HOPS_1)
                         : v | kRemote | hops(PERF_MEM_HOPS_1);
      return v;
    }
  }
  // A miss that found a miss address buffer already outstanding: served through it.
  if (bit(d3, 16)) return hit(PERF_MEM_LVL_LFB) | num(PERF_MEM_LVLNUM_LFB);
  return (uint64_t(PERF_MEM_LVL_NA) << PERF_MEM_LVL_SHIFT) | num(PERF_MEM_LVLNUM_NA);
}

// CacheHitSt (IbsOpData2 bit 5) is 0 when the line was Modified in the cache that gave it: a
// HITM. Its value is wrong on family 19h models 0-0Fh and 20h-5Fh.
bool hitm(uint64_t d2, uint64_t lvl_word, bool zen4, uint32_t family, uint32_t model) {
  if (family == 0x19 && (model <= 0xf || (model >= 0x20 && model <= 0x5f))) return false;
  const uint64_t lvl = bits(lvl_word, PERF_MEM_LVL_SHIFT, 14);
  if ((lvl & (PERF_MEM_LVL_L1 | PERF_MEM_LVL_L2)) || bit(d2, 5)) return false;
  const unsigned src = unsigned(bits(d2, 0, 3) | (zen4 ? bits(d2, 6, 2) << 3 : 0));
  return zen4 ? (src == 1 || src == 2 || src == 5) : src == 2;
}

}  // namespace

IbsParse read_ibs_op_regs(const uint8_t* raw, uint32_t size, IbsOpRegs* r) {
  *r = IbsOpRegs{};
  constexpr uint32_t kFixed = 4 + 7 * 8;
  if (raw == nullptr || size < kFixed) return IbsParse::Truncated;
  memcpy(&r->caps, raw, 4);
  uint64_t regs[9] = {};
  uint32_t n = 7;
  if (r->caps & kIbsCapsBrnTrgt) ++n;
  if (r->caps & kIbsCapsOpData4) ++n;
  if (size < 4 + n * 8) return IbsParse::Truncated;
  memcpy(regs, raw + 4, n * 8);
  r->op_ctl = regs[0];
  r->op_rip = regs[1];
  r->op_data = regs[2];
  r->op_data2 = regs[3];
  r->op_data3 = regs[4];
  r->dc_lin_addr = regs[5];
  r->dc_phys_addr = regs[6];
  uint32_t next = 7;
  if (r->caps & kIbsCapsBrnTrgt) r->br_target = regs[next++];
  if (r->caps & kIbsCapsOpData4) r->op_data4 = regs[next++];
  return IbsParse::Ok;
}

IbsOp decode_ibs_op(const IbsOpRegs& r, uint32_t family, uint32_t model) {
  IbsOp op;
  op.valid = bit(r.op_ctl, 18);
  op.rip = r.op_rip;
  op.rip_valid = !bit(r.op_data, 38);
  op.data_src = kPerfMemNa;
  const uint64_t d3 = r.op_data3;
  const bool load = bit(d3, 0), store = !load && bit(d3, 1);
  op.dc_miss = bit(d3, 7);
  if (!load && !store) return op;
  // IbsOpData2 is not valid with erratum 1293: DataSrc 0, "no valid status".
  const bool erratum = family == 0x19 && model <= 0xf && (bit(d3, 21) || bit(d3, 16));
  const uint64_t d2 = erratum ? 0 : r.op_data2;
  const bool zen4 = (r.caps & kIbsCapsZen4) != 0;
  const uint64_t lvl = level(r, d2, load, zen4, family, model);
  const bool lin_valid = bit(d3, 17);
  const uint64_t tlb = !lin_valid ? PERF_MEM_TLB_NA
                     : !bit(d3, 2) ? PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT
                     : !bit(d3, 3) ? PERF_MEM_TLB_L2 | PERF_MEM_TLB_HIT
                                   : PERF_MEM_TLB_L2 | PERF_MEM_TLB_MISS;
  op.data_src = (uint64_t(load ? PERF_MEM_OP_LOAD : PERF_MEM_OP_STORE) << PERF_MEM_OP_SHIFT) | lvl |
                (uint64_t(load && hitm(d2, lvl, zen4, family, model) ? PERF_MEM_SNOOP_HITM
                                                                     : PERF_MEM_SNOOP_NA)
                 << PERF_MEM_SNOOP_SHIFT) |
                (tlb << PERF_MEM_TLB_SHIFT) |
                (uint64_t(bit(d3, 15) ? PERF_MEM_LOCK_LOCKED : PERF_MEM_LOCK_NA) << PERF_MEM_LOCK_SHIFT);
  // DcMissLat is a load's that missed the data cache.
  if (load && op.dc_miss) op.latency = uint32_t(bits(d3, 32, 16));
  op.addr_valid = lin_valid;
  if (lin_valid) op.addr = r.dc_lin_addr;
  op.phys_valid = bit(d3, 18);
  if (op.phys_valid) op.phys = r.dc_phys_addr;
  return op;
}

}  // namespace hpcrun
