// See hw_drain.h.
#include "sources/hw/hw_drain.h"

#include <cstring>

#include "hpcl/ids.h"
#include "memory/track_control.h"
#include "sources/hw/hw_sample.h"
#include "sources/hw/sample_record.h"

namespace hpcrun {

void HwCounts::add(const HwCounts& o) {
  records += o.records;
  recorded += o.recorded;
  no_address += o.no_address;
  lost += o.lost;
  throttled += o.throttled;
  malformed += o.malformed;
  not_valid += o.not_valid;
  kernel += o.kernel;
  in_runtime += o.in_runtime;
  dropped += o.dropped;
}

void mem_counts_add(MemCounts* m, const HwSample& s) {
  if (s.latency) {
    m->latency += s.latency;
    ++m->latency_samples;
  }
  ++m->level[int(s.source.level) < kMemLevels ? int(s.source.level) : 0];
  if (s.source.tlb == TlbState::Hit) ++m->tlb_hit;
  else if (s.source.tlb == TlbState::Miss) ++m->tlb_miss;
  if (s.source.locked) ++m->locked;
  if (s.source.hitm) ++m->hitm;
  if (s.dc_miss) ++m->dc_miss;
}

void hw_record(const uint8_t* body, size_t size, HwDrainEnv* env, bool newest) {
  HwCounts& k = env->counts;
  PerfSample ps;
  if (parse_sample_body(env->sample_type, body, size, &ps) != SampleParse::Ok) {
    ++k.malformed;
    return;
  }
  HwSample s;
  HwSampleResult r = env->decoder == HwDecoder::Ibs
                         ? hw_sample_from_ibs(ps, env->family, env->model, &s)
                         : hw_sample_from_pebs(ps, &s);
  if (r == HwSampleResult::NotValid) {
    ++k.not_valid;
    return;
  }
  // x86-64 user space is the lower half; exclude_kernel keeps PEBS there, IBS cannot.
  if (r == HwSampleResult::KernelMode || (s.ip >> 63) != 0) {
    ++k.kernel;
    return;
  }
  if (env->in_runtime && env->in_runtime(s.ip, env->arg)) {
    ++k.in_runtime;
    return;
  }
  Cct& c = *env->cct;
  uint32_t node;
  SampleEstimate est;
  if (s.addr_valid) {
    node = env->classify(c, s.addr, env->arg, &est);
  } else {
    ++k.no_address;
    node = kCctNoDataRoot;
  }
  const uint32_t var = node;
  if (s.addr_valid && var != Cct::kNone && env->place)
    node = env->place(c, var, s.addr, s.ip, newest ? env->uc : nullptr, env->arg);
  for (int i = env->ncreator - 1; i >= 0 && node != Cct::kNone; --i)
    node = c.child(node, uint8_t(hpcl::NodeKind::Frame), 0, env->creator[i]);
  if (newest)
    for (int i = env->npath - 1; i >= 0 && node != Cct::kNone; --i)
      node = c.child(node, uint8_t(hpcl::NodeKind::Frame), 0, env->path[i]);
  if (node != Cct::kNone) node = c.child(node, uint8_t(hpcl::NodeKind::Frame), 0, s.ip);
  MemCounts* m = node == Cct::kNone ? nullptr : c.mem(node);
  if (!m) {
    ++k.dropped;
    return;
  }
  c.add_samples(node, 1);
  if (est.extra) c.add_estimate(node, est.extra, est.var);
  mem_counts_add(m, s);
  if (s.addr_valid) {
    ++k.recorded;
    // A precise record's access has retired; PEBS and IBS records carry no access size.
    if (env->on_access && var != Cct::kNone)
      env->on_access(env->arg, {.ea = s.addr, .size = 8, .is_write = s.source.op == MemOp::Store,
                                .executed = true, .fresh = newest, .var = var, .node = node,
                                .cpu = int(s.cpu)});
  }
}

namespace {

void take(const uint8_t* body, size_t size, void* ctx) {
  auto* env = static_cast<HwDrainEnv*>(ctx);
  if (env->has_pending) hw_record(env->pending, env->pending_size, env, false);
  memcpy(env->pending, body, size);  // size <= kMaxRingRecord: the ring reader checked
  env->pending_size = size;
  env->has_pending = true;
}

}  // namespace

uint64_t hw_drain(PerfRing* ring, HwDrainEnv* env) {
  RingCounts rc;
  env->has_pending = false;
  uint64_t n = perf_ring_drain(ring, take, env, &rc);
  if (env->has_pending) hw_record(env->pending, env->pending_size, env, true);
  env->has_pending = false;
  env->counts.records += rc.records;
  env->counts.lost += rc.lost;
  env->counts.throttled += rc.throttled;
  env->counts.malformed += rc.malformed;
  return n;
}

}  // namespace hpcrun
