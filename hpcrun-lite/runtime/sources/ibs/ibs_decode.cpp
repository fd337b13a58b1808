// See ibs_decode.h.
#include "sources/ibs/ibs_decode.h"

#include <cstring>

namespace hpcrun {

namespace {

bool bit(uint64_t v, unsigned n) { return (v >> n) & 1; }
uint64_t bits(uint64_t v, unsigned lo, unsigned n) { return (v >> lo) & ((1ull << n) - 1); }

// IbsOpData2 DataSrc values before Zen 4 (3 bits) and from Zen 4 on (5 bits).
enum : uint8_t {
  kSrcLocalCache = 2, kSrcDram = 3, kSrcRemoteCache = 4, kSrcIo = 7,  // before Zen 4
};
enum : uint8_t {
  kExtLocalCache = 1, kExtNearCcxCache = 2, kExtDram = 3, kExtFarCcxCache = 5, kExtPmem = 6,
  kExtIo = 7, kExtExtensionMem = 8, kExtPeerAgentMem = 12,
};

// Where a load beyond L2 was served from, per DataSrc. Only loads have a DataSrc.
MemLevel level_from_data_src(const IbsOp& op, bool zen4, uint8_t* hops) {
  const bool rmt = op.remote_node;
  if (zen4) {
    switch (op.data_src) {
      case kExtLocalCache: return MemLevel::L3;
      case kExtNearCcxCache: *hops = 1; return MemLevel::RemoteCache;
      case kExtFarCcxCache: *hops = rmt ? 2 : 1; return MemLevel::RemoteCache;
      case kExtDram:
      // Memory of another agent on the fabric (a GPU's, say): counted as DRAM by its node.
      case kExtPeerAgentMem: return rmt ? MemLevel::RemoteDram : MemLevel::LocalDram;
      case kExtPmem: return MemLevel::Pmem;
      case kExtIo: return MemLevel::Io;
      case kExtExtensionMem: return MemLevel::Cxl;
      default: return MemLevel::NotAvailable;
    }
  }
  switch (op.data_src) {
    case kSrcLocalCache: return MemLevel::L3;
    case kSrcRemoteCache: *hops = rmt ? 2 : 1; return MemLevel::RemoteCache;
    case kSrcDram: return rmt ? MemLevel::RemoteDram : MemLevel::LocalDram;
    case kSrcIo: return MemLevel::Io;
    default: return MemLevel::NotAvailable;
  }
}

// The memory level, in the same order of evidence the hardware gives it: uncached first (the
// miss bits mean nothing then), an L1 hit, an L2 hit, DataSrc for loads, the fill buffer.
MemSource to_source(const IbsOp& op, bool zen4, uint32_t family, uint32_t model) {
  MemSource s;
  s.op = op.load ? MemOp::Load : op.store ? MemOp::Store : MemOp::NotAvailable;
  if (!op.load && !op.store) return s;
  s.locked = op.locked;
  if (op.lin_addr_valid)
    s.tlb = op.l1_tlb_miss && op.l2_tlb_miss ? TlbState::Miss : TlbState::Hit;
  const bool io_src = op.data_src == (zen4 ? uint8_t(kExtIo) : uint8_t(kSrcIo));
  if (op.uncached && !io_src) {
    s.level = MemLevel::Uncached;
    return s;
  }
  if (!op.dc_miss) {
    s.level = MemLevel::L1;
    return s;
  }
  const bool erratum_1293 = family == 0x19 && model <= 0xf && (op.sw_prefetch || op.no_mab_alloc);
  if (!op.l2_miss && !erratum_1293) {
    s.level = MemLevel::L2;
    return s;
  }
  if (op.load) {
    uint8_t hops = 0;
    s.level = level_from_data_src(op, zen4, &hops);
    s.hops = hops;
    // RmtNode has no meaning for I/O.
    s.remote = op.remote_node && s.level != MemLevel::Io;
    // A line another core's cache held owned (shared but dirty) had to be snooped out of it.
    s.hitm = s.level == MemLevel::RemoteCache && op.cache_hit_owned;
    s.peer = s.level == MemLevel::RemoteCache;
    if (s.level != MemLevel::NotAvailable) return s;
  }
  // The miss merged into one already outstanding: the line came through the fill buffer.
  if (op.no_mab_alloc) s.level = MemLevel::FillBuffer;
  return s;
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
  op.tag_to_retire = uint16_t(bits(r.op_data, 16, 16));

  const bool zen4 = (r.caps & kIbsCapsZen4) != 0;
  op.data_src = uint8_t(bits(r.op_data2, 0, 3));
  if (zen4) op.data_src |= uint8_t(bits(r.op_data2, 6, 2) << 3);
  op.remote_node = bit(r.op_data2, 4);
  op.cache_hit_owned = bit(r.op_data2, 5);

  const uint64_t d3 = r.op_data3;
  op.load = bit(d3, 0);
  op.store = bit(d3, 1);
  op.l1_tlb_miss = bit(d3, 2);
  op.l2_tlb_miss = bit(d3, 3);
  op.dc_miss = bit(d3, 7);
  op.write_combining = bit(d3, 13);
  op.uncached = bit(d3, 14);
  op.locked = bit(d3, 15);
  op.no_mab_alloc = bit(d3, 16);
  op.lin_addr_valid = bit(d3, 17);
  op.phys_addr_valid = bit(d3, 18);
  op.l2_miss = bit(d3, 20);
  op.sw_prefetch = bit(d3, 21);
  // DcMissLat is only meaningful for a load that missed the data cache.
  op.dc_miss_latency = op.load && op.dc_miss ? uint16_t(bits(d3, 32, 16)) : 0;
  if (op.lin_addr_valid) op.lin_addr = r.dc_lin_addr;
  if (op.phys_addr_valid) op.phys_addr = r.dc_phys_addr;
  op.source = to_source(op, zen4, family, model);
  return op;
}

}  // namespace hpcrun
