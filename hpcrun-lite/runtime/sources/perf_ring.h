// Reader of a perf_event mmap ring buffer, shared by every source that lets the kernel write
// records instead of sending a signal per event (page faults; the hardware sources' PEBS and IBS
// records next). The kernel writes records at data_head; we read from data_tail and publish the
// new tail, after which the kernel may overwrite what we read.
//
// What the reader handles: the ring wraps (a record may be split across the end of the data
// area: it is copied whole into a small buffer first), PERF_RECORD_LOST (the kernel dropped
// records because the ring was full: their number is added to `lost`), PERF_RECORD_THROTTLE
// (the kernel paused the event for exceeding its rate limit: counted in `throttled`), records
// larger than the copy buffer or a header that claims size 0 (counted in `malformed`; size 0
// ends the drain, since the reader cannot know where the next record starts).
//
// Async-signal-safe: no allocation, no lock; the copy buffer is on the stack. A ring has one
// reader at a time (its thread's own handler, or the writer after sampling stopped).
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace hpcrun {

struct PerfRing {
  perf_event_mmap_page* meta = nullptr;  // the first page of the mapping
  uint8_t* data = nullptr;               // the data area: data_size bytes, a power of two
  uint64_t data_size = 0;
  size_t map_bytes = 0;                  // the whole mapping (meta page + data), 0 if not mapped
};

struct RingCounts {
  uint64_t records = 0;    // PERF_RECORD_SAMPLE records handed to the callback
  uint64_t lost = 0;       // records the kernel dropped (sum of PERF_RECORD_LOST.lost)
  uint64_t throttled = 0;  // PERF_RECORD_THROTTLE records
  uint64_t malformed = 0;  // records the reader could not hand over
};

// The largest record handed to the callback whole; larger ones are skipped as malformed.
inline constexpr size_t kMaxRingRecord = 512;

// Maps the ring of `fd`: one metadata page and 2^data_pages_log2 data pages. Returns false
// (errno set by mmap) when the kernel refuses (the perf mlock limit, kernel.perf_event_mlock_kb).
bool perf_ring_map(int fd, unsigned data_pages_log2, PerfRing* ring);
// The ring with 2^data_pages_log2 data pages, else, when the perf mlock allowance is spent by
// other threads, with 2^small_pages_log2. False (errno set) when neither maps.
bool perf_ring_map_or_smaller(int fd, unsigned data_pages_log2, unsigned small_pages_log2,
                              PerfRing* ring);
void perf_ring_unmap(PerfRing* ring);

// Whether the kernel wrote records the reader has not read. One load of the shared page.
inline bool perf_ring_pending(const PerfRing& ring) {
  return ring.meta && __atomic_load_n(&ring.meta->data_head, __ATOMIC_ACQUIRE) != ring.meta->data_tail;
}

// A sample record's body (after the 8-byte perf_event_header), `size` bytes.
using RingSampleFn = void (*)(const uint8_t* body, size_t size, void* ctx);

// Reads every complete record between data_tail and data_head, hands the samples to `fn`,
// counts the rest into `counts`, then publishes the new data_tail. Returns the records read.
uint64_t perf_ring_drain(PerfRing* ring, RingSampleFn fn, void* ctx, RingCounts* counts);

}  // namespace hpcrun
