// Parsing of one PERF_RECORD_SAMPLE as the kernel lays it out (include/uapi/linux/perf_event.h:
// the fields present are those of the event's sample_type, in the kernel's fixed order). The
// ring reader hands over a record made contiguous (copied out when it wrapped); this parser only
// reads it: no allocation, no state, safe in a signal handler or a ring drain. Pointers in the
// result point into the caller's record.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hpcrun {

struct PerfSample {
  uint64_t sample_type = 0;  // the fields below that were present
  uint64_t id = 0;           // IDENTIFIER or ID
  uint64_t ip = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint64_t addr = 0;
  uint64_t stream_id = 0;
  uint32_t cpu = 0;
  uint64_t period = 0;
  uint64_t callchain_nr = 0;
  const uint8_t* callchain = nullptr;  // callchain_nr u64 values, unaligned-safe reads only
  uint32_t raw_size = 0;
  const uint8_t* raw = nullptr;  // raw_size bytes (the kernel's padding included)
  // WEIGHT gives one u64; WEIGHT_STRUCT splits the same 8 bytes: var1 (u32, the access
  // latency on Intel), var2 and var3 (u16, e.g. the instruction latency).
  uint64_t weight = 0;
  uint32_t weight_var1 = 0;
  uint16_t weight_var2 = 0, weight_var3 = 0;
  uint64_t data_src = 0;
  uint64_t transaction = 0;
  uint64_t phys_addr = 0;
  uint64_t cgroup = 0;
  uint64_t data_page_size = 0;
  uint64_t code_page_size = 0;
};

enum class SampleParse : uint8_t {
  Ok = 0,
  NotASample,    // header.type is not PERF_RECORD_SAMPLE
  Truncated,     // header.size exceeds the bytes given, or a field runs past header.size
  Unsupported,   // sample_type asks for a field whose length depends on other attributes
                 // (READ, BRANCH_STACK, REGS_USER/INTR, STACK_USER, AUX): not requested by us
};

const char* sample_parse_name(SampleParse r);

// `rec` starts at the perf_event_header; `len` is the bytes available there. Fields after the
// last one sample_type names are ignored (the kernel may pad), fields before must all fit.
SampleParse parse_sample(uint64_t sample_type, const void* rec, size_t len, PerfSample* out);
// The same for a record's body alone (after its perf_event_header, `size` bytes), as the ring
// reader (perf_ring.h) hands it over.
SampleParse parse_sample_body(uint64_t sample_type, const void* body, size_t size, PerfSample* out);

}  // namespace hpcrun
