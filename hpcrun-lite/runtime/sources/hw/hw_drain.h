// Reading a hardware source's ring into a thread's tree: each PERF_RECORD_SAMPLE is parsed
// (sample_record.h), turned into a HwSample (PEBS fields or IBS registers, hw_sample.h), its
// data address classified into a variable node, and counted at its precise instruction under
// that variable: samples = 1 plus the memory metrics (latency, data source, TLB, lock, HITM, DC
// miss) in the node's side table (mem_counts.h). What cannot be attributed is counted, never
// dropped silently: LOST and THROTTLE records, unparsable records, ops the hardware did not tag
// validly, kernel-mode records, the runtime's own accesses, records without a data address
// (counted under the no-data root, as soft samples without one are), and a full tree.
//
// A record of stack data is placed in the frame that owns its address (env->place) when the
// drain's signal context is the record's (the newest) or the stack is another thread's.
//
// The path above the instruction: the thread's creator path, then, for the newest record of a
// drain done in the sampling handler, the callers of the interrupted context (the signal comes
// at the wakeup of that record, wakeup_events = 1, so the thread is still in the function that
// made the access, a few instructions of skid later). Older records of the same drain (their
// signals were held while the thread blocked the signal) and records read at thread or process
// end get only the creator path: their stack is gone.
//
// Pure of the runtime's globals (the classifier is a callback), so unit tests drive it with
// synthetic rings. Async-signal-safe: no allocation, no lock.
#pragma once

#include <cstddef>
#include <cstdint>

#include "process/source_table.h"
#include "sources/perf_ring.h"
#include "trees/cct.h"

namespace hpcrun {

struct HwSample;
struct SampleEstimate;

struct HwCounts {
  uint64_t records = 0;     // PERF_RECORD_SAMPLE records read
  uint64_t recorded = 0;    // of which counted in a tree with a data address
  uint64_t no_address = 0;  // counted under the no-data root: no data address in the record
  uint64_t lost = 0;        // PERF_RECORD_LOST: records the kernel dropped, ring full
  uint64_t throttled = 0;   // PERF_RECORD_THROTTLE
  uint64_t malformed = 0;   // the ring reader or the parser could not read it
  uint64_t not_valid = 0;   // the hardware tagged nothing usable (IBS op not valid)
  uint64_t kernel = 0;      // an instruction in the kernel
  uint64_t in_runtime = 0;  // the runtime's own code: not the program's access
  uint64_t dropped = 0;     // the tree was full
  void add(const HwCounts& o);
};

enum class HwDecoder : uint8_t { Pebs, Ibs };

struct HwDrainEnv {
  Cct* cct = nullptr;
  uint64_t sample_type = 0;   // the event's, for the parser
  HwDecoder decoder = HwDecoder::Pebs;
  uint32_t family = 0, model = 0;  // the CPU's, for IBS decoding
  // The variable node of data address `ea` in `c` (Cct::kNone when the tree is full), and the
  // sample's Horvitz-Thompson estimate in `est` (sources/classify.h).
  uint32_t (*classify)(Cct& c, uint64_t ea, void* arg, SampleEstimate* est) = nullptr;
  bool (*in_runtime)(uint64_t ip, void* arg) = nullptr;  // optional
  void* arg = nullptr;
  const uint64_t* creator = nullptr;  // innermost first, outermost frames of every record
  int ncreator = 0;
  const uint64_t* path = nullptr;     // the interrupted context's callers, innermost first,
  int npath = 0;                      // for the newest record only
  // Optional: the node a record of stack data goes under, given its variable node `var` (the
  // [stack] class, or any other, which it returns as is): stack_place.h's place_on_stack. `uc`
  // is the context the drain's signal interrupted, for the newest record only (nullptr for the
  // others and for drains outside a signal): the frames it walks are the record's only then.
  uint32_t (*place)(Cct& c, uint32_t var, uint64_t ea, uint64_t ip, const void* uc, void* arg) = nullptr;
  const void* uc = nullptr;
  // Optional: each record's data access, `a.var` its variable node, for the rows that act on
  // accesses (source_table.h: the NUMA placement logs every record's page, the watches arm on
  // the newest only, `a.fresh`: the others are older than the drain's signal by up to a whole
  // ring, too old to start a reuse or sharing window at).
  void (*on_access)(void* arg, const SampledAccess& a) = nullptr;
  HwCounts counts;
  // The newest record read so far, held back until the drain knows it is the newest.
  alignas(8) uint8_t pending[kMaxRingRecord];
  size_t pending_size = 0;
  bool has_pending = false;
};

// Reads every complete record of `ring` into env->cct. Returns the records read.
uint64_t hw_drain(PerfRing* ring, HwDrainEnv* env);

// One record body (after its header): what hw_drain does with each. `newest`: the drain's last
// record, hung under env->path and passed to env->on_access as fresh. Exposed for tests.
void hw_record(const uint8_t* body, size_t size, HwDrainEnv* env, bool newest);

// Adds one sample's memory metrics to `m`.
void mem_counts_add(MemCounts* m, const HwSample& s);

}  // namespace hpcrun
