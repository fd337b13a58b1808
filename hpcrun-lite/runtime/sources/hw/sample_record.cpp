// See sample_record.h. Field order, from include/uapi/linux/perf_event.h: IDENTIFIER, IP, TID,
// TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, READ, CALLCHAIN, RAW, BRANCH_STACK, REGS_USER,
// STACK_USER, WEIGHT/WEIGHT_STRUCT, DATA_SRC, TRANSACTION, REGS_INTR, PHYS_ADDR, CGROUP,
// DATA_PAGE_SIZE, CODE_PAGE_SIZE, AUX.
#include "sources/hw/sample_record.h"

#include <linux/perf_event.h>

#include <cstring>

namespace hpcrun {

namespace {

// A bounds-checked cursor over the record body; every read is memcpy, so an unaligned copy of a
// record works as well as the ring itself.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;

  bool take(void* dst, size_t n) {
    if (!ok || size_t(end - p) < n) return ok = false;
    memcpy(dst, p, n);
    p += n;
    return true;
  }
  uint64_t u64() {
    uint64_t v = 0;
    take(&v, 8);
    return v;
  }
  const uint8_t* skip(uint64_t n) {
    if (!ok || uint64_t(end - p) < n) {
      ok = false;
      return nullptr;
    }
    const uint8_t* at = p;
    p += n;
    return at;
  }
};

constexpr uint64_t kUnsupported = PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK |
                                  PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
                                  PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX;

}  // namespace

const char* sample_parse_name(SampleParse r) {
  switch (r) {
    case SampleParse::Ok: return "ok";
    case SampleParse::NotASample: return "not a sample record";
    case SampleParse::Truncated: return "truncated sample record";
    case SampleParse::Unsupported: return "sample_type has a field this parser does not read";
  }
  return "?";
}

SampleParse parse_sample(uint64_t st, const void* rec, size_t len, PerfSample* out) {
  *out = PerfSample{};
  if (st & kUnsupported) return SampleParse::Unsupported;
  perf_event_header h;
  if (len < sizeof h) return SampleParse::Truncated;
  memcpy(&h, rec, sizeof h);
  if (h.type != PERF_RECORD_SAMPLE) return SampleParse::NotASample;
  if (h.size < sizeof h || h.size > len) return SampleParse::Truncated;
  return parse_sample_body(st, static_cast<const uint8_t*>(rec) + sizeof h, h.size - sizeof h, out);
}

SampleParse parse_sample_body(uint64_t st, const void* body, size_t size, PerfSample* out) {
  *out = PerfSample{};
  if (st & kUnsupported) return SampleParse::Unsupported;
  const uint8_t* base = static_cast<const uint8_t*>(body);
  Cursor c{base, base + size};
  PerfSample& s = *out;
  s.sample_type = st;
  if (st & PERF_SAMPLE_IDENTIFIER) s.id = c.u64();
  if (st & PERF_SAMPLE_IP) s.ip = c.u64();
  if (st & PERF_SAMPLE_TID) {
    c.take(&s.pid, 4);
    c.take(&s.tid, 4);
  }
  if (st & PERF_SAMPLE_TIME) s.time = c.u64();
  if (st & PERF_SAMPLE_ADDR) s.addr = c.u64();
  if (st & PERF_SAMPLE_ID) s.id = c.u64();
  if (st & PERF_SAMPLE_STREAM_ID) s.stream_id = c.u64();
  if (st & PERF_SAMPLE_CPU) {
    uint32_t reserved;
    c.take(&s.cpu, 4);
    c.take(&reserved, 4);
  }
  if (st & PERF_SAMPLE_PERIOD) s.period = c.u64();
  if (st & PERF_SAMPLE_CALLCHAIN) {
    s.callchain_nr = c.u64();
    // Checked before multiplying: a corrupt count must not wrap the byte length.
    if (s.callchain_nr > uint64_t(c.end - c.p) / 8) return SampleParse::Truncated;
    s.callchain = c.skip(s.callchain_nr * 8);
  }
  if (st & PERF_SAMPLE_RAW) {
    c.take(&s.raw_size, 4);
    s.raw = c.skip(s.raw_size);
  }
  if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
    uint8_t w[8];
    if (c.take(w, 8)) {
      memcpy(&s.weight, w, 8);
      memcpy(&s.weight_var1, w, 4);
      memcpy(&s.weight_var2, w + 4, 2);
      memcpy(&s.weight_var3, w + 6, 2);
    }
  }
  if (st & PERF_SAMPLE_DATA_SRC) s.data_src = c.u64();
  if (st & PERF_SAMPLE_TRANSACTION) s.transaction = c.u64();
  if (st & PERF_SAMPLE_PHYS_ADDR) s.phys_addr = c.u64();
  if (st & PERF_SAMPLE_CGROUP) s.cgroup = c.u64();
  if (st & PERF_SAMPLE_DATA_PAGE_SIZE) s.data_page_size = c.u64();
  if (st & PERF_SAMPLE_CODE_PAGE_SIZE) s.code_page_size = c.u64();
  return c.ok ? SampleParse::Ok : SampleParse::Truncated;
}

}  // namespace hpcrun
