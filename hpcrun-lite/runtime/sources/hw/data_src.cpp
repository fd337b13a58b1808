// See data_src.h. Field positions come from include/uapi/linux/perf_event.h (the PERF_MEM_*
// shifts), which this file reads through the installed header rather than restating.
#include "sources/hw/data_src.h"

#include <linux/perf_event.h>

namespace hpcrun {

namespace {

uint64_t field(uint64_t v, unsigned shift, unsigned bits) { return (v >> shift) & ((1ull << bits) - 1); }

// mem_lvl_num tells the level; mem_remote and mem_hops say whose it was.
MemLevel from_level_number(uint64_t num, uint64_t lvl, bool remote, uint8_t hops) {
  const bool elsewhere = remote || hops >= PERF_MEM_HOPS_0;
  switch (num) {
    case PERF_MEM_LVLNUM_L1: return MemLevel::L1;
    case PERF_MEM_LVLNUM_L2: return remote ? MemLevel::RemoteCache : MemLevel::L2;
    case PERF_MEM_LVLNUM_L3:
    case PERF_MEM_LVLNUM_L4: return remote ? MemLevel::RemoteCache : MemLevel::L3;
    // "Some cache": the old bits may say which. AMD's pre-Zen 4 "local cache" (this CCX's L3 or
    // a sibling core's cache in it) is L3|REM_CCE1 with ANY_CACHE and hops 0 in recent kernels,
    // L3|REM_CCE1 alone in Linux 6.1: L3 either way.
    case PERF_MEM_LVLNUM_ANY_CACHE:
      if ((lvl & PERF_MEM_LVL_L3) && (lvl & PERF_MEM_LVL_HIT)) return MemLevel::L3;
      return elsewhere ? MemLevel::RemoteCache : MemLevel::L3;
    case PERF_MEM_LVLNUM_LFB: return MemLevel::FillBuffer;
    case PERF_MEM_LVLNUM_RAM: return remote ? MemLevel::RemoteDram : MemLevel::LocalDram;
    case PERF_MEM_LVLNUM_PMEM: return MemLevel::Pmem;
    case PERF_MEM_LVLNUM_CXL: return MemLevel::Cxl;
    case PERF_MEM_LVLNUM_IO: return MemLevel::Io;
    default: return MemLevel::NotAvailable;
  }
}

// The older bit set. A level reported only as missed says where the data did not come from,
// which is no level at all.
MemLevel from_level_bits(uint64_t lvl) {
  if (lvl & PERF_MEM_LVL_UNC) return MemLevel::Uncached;
  if (lvl & PERF_MEM_LVL_IO) return MemLevel::Io;
  if ((lvl & PERF_MEM_LVL_MISS) && !(lvl & PERF_MEM_LVL_HIT)) return MemLevel::NotAvailable;
  if (lvl & PERF_MEM_LVL_L1) return MemLevel::L1;
  if (lvl & PERF_MEM_LVL_LFB) return MemLevel::FillBuffer;
  if (lvl & PERF_MEM_LVL_L2) return MemLevel::L2;
  if (lvl & PERF_MEM_LVL_L3) return MemLevel::L3;
  if (lvl & PERF_MEM_LVL_LOC_RAM) return MemLevel::LocalDram;
  if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)) return MemLevel::RemoteDram;
  if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) return MemLevel::RemoteCache;
  return MemLevel::NotAvailable;
}

}  // namespace

MemSource decode_data_src(uint64_t v) {
  MemSource s;
  const uint64_t op = field(v, PERF_MEM_OP_SHIFT, 5);
  s.op = (op & PERF_MEM_OP_LOAD)    ? MemOp::Load
         : (op & PERF_MEM_OP_STORE) ? MemOp::Store
         : (op & PERF_MEM_OP_PFETCH) ? MemOp::Prefetch
         : (op & PERF_MEM_OP_EXEC)  ? MemOp::Exec
                                    : MemOp::NotAvailable;

  const uint64_t lvl = field(v, PERF_MEM_LVL_SHIFT, 14);
  const uint64_t num = field(v, PERF_MEM_LVLNUM_SHIFT, 4);
  s.remote = field(v, PERF_MEM_REMOTE_SHIFT, 1) != 0;
  s.hops = uint8_t(field(v, PERF_MEM_HOPS_SHIFT, 3));
  // The kernel fills mem_lvl_num only where it knows it; 0 is "never set", 0xf "not available",
  // and a level named only by its miss bit is not where the data came from.
  const bool missed = (lvl & PERF_MEM_LVL_MISS) && !(lvl & PERF_MEM_LVL_HIT);
  if (num != 0 && num != PERF_MEM_LVLNUM_NA && !missed)
    s.level = from_level_number(num, lvl, s.remote, s.hops);
  // Uncached has no level number; an old kernel has no numbers at all. The old bits' remote
  // levels (REM_RAM, REM_CCE) mean another node; a level number comes with its own remote bit.
  if (s.level == MemLevel::NotAvailable || (lvl & PERF_MEM_LVL_UNC)) {
    MemLevel b = from_level_bits(lvl);
    if (b != MemLevel::NotAvailable) s.level = b;
    if (b == MemLevel::RemoteDram || b == MemLevel::RemoteCache) s.remote = true;
  }

  const uint64_t snoop = field(v, PERF_MEM_SNOOP_SHIFT, 5);
  const uint64_t snoopx = field(v, PERF_MEM_SNOOPX_SHIFT, 2);
  s.hitm = (snoop & PERF_MEM_SNOOP_HITM) != 0;
  s.peer = (snoopx & PERF_MEM_SNOOPX_PEER) != 0;
  s.locked = (field(v, PERF_MEM_LOCK_SHIFT, 2) & PERF_MEM_LOCK_LOCKED) != 0;

  const uint64_t tlb = field(v, PERF_MEM_TLB_SHIFT, 7);
  s.tlb = (tlb & PERF_MEM_TLB_MISS)  ? TlbState::Miss
          : (tlb & PERF_MEM_TLB_HIT) ? TlbState::Hit
                                     : TlbState::NotAvailable;
  return s;
}

}  // namespace hpcrun
