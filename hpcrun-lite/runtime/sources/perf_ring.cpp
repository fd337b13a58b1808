// See perf_ring.h. The protocol is the kernel's (include/uapi/linux/perf_event.h): load
// data_head with acquire ordering before reading records, store data_tail with release ordering
// after, so the kernel does not overwrite a record while we read it.
#include "sources/perf_ring.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace hpcrun {

bool perf_ring_map(int fd, unsigned data_pages_log2, PerfRing* ring) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t data_bytes = page << data_pages_log2;
  const size_t bytes = page + data_bytes;
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return false;
  ring->meta = static_cast<perf_event_mmap_page*>(m);
  ring->data = static_cast<uint8_t*>(m) + page;
  ring->data_size = data_bytes;
  ring->map_bytes = bytes;
  return true;
}

bool perf_ring_map_or_smaller(int fd, unsigned data_pages_log2, unsigned small_pages_log2,
                              PerfRing* ring) {
  return perf_ring_map(fd, data_pages_log2, ring) || perf_ring_map(fd, small_pages_log2, ring);
}

void perf_ring_unmap(PerfRing* ring) {
  if (ring->map_bytes) munmap(ring->meta, ring->map_bytes);
  *ring = PerfRing{};
}

namespace {

// Copies `n` bytes starting at ring position `pos` (any 64-bit value; wrapped here).
void copy_out(const PerfRing* ring, uint64_t pos, void* to, size_t n) {
  const uint64_t mask = ring->data_size - 1;
  const size_t at = size_t(pos & mask);
  const size_t first = n < ring->data_size - at ? n : size_t(ring->data_size - at);
  memcpy(to, ring->data + at, first);
  if (first < n) memcpy(static_cast<uint8_t*>(to) + first, ring->data, n - first);
}

}  // namespace

uint64_t perf_ring_drain(PerfRing* ring, RingSampleFn fn, void* ctx, RingCounts* counts) {
  if (!ring->meta || ring->data_size == 0) return 0;
  const uint64_t head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = ring->meta->data_tail;
  uint64_t read = 0;
  // 8-byte aligned: bodies are read as u64 fields.
  alignas(8) uint8_t buf[kMaxRingRecord];
  while (head - tail >= sizeof(perf_event_header)) {
    perf_event_header h;
    copy_out(ring, tail, &h, sizeof h);
    // A size below the header cannot be stepped over: drop the rest (tail moves to head) rather
    // than stay stuck. A record that runs past data_head is not complete yet: the next drain
    // reads it.
    if (h.size < sizeof h) {
      ++counts->malformed;
      tail = head;
      break;
    }
    if (h.size > head - tail) break;
    ++read;
    const size_t body = h.size - sizeof h;
    if (h.size > sizeof buf) {
      ++counts->malformed;
    } else {
      copy_out(ring, tail + sizeof h, buf, body);
      switch (h.type) {
        case PERF_RECORD_SAMPLE:
          ++counts->records;
          fn(buf, body, ctx);
          break;
        case PERF_RECORD_LOST: {
          // struct { u64 id; u64 lost; } (plus sample_id when sample_id_all is set).
          uint64_t lost = 0;
          if (body >= 16) memcpy(&lost, buf + 8, sizeof lost);
          counts->lost += lost;
          break;
        }
        case PERF_RECORD_THROTTLE: ++counts->throttled; break;
        default: break;  // UNTHROTTLE and others: nothing to count
      }
    }
    tail += h.size;
  }
  __atomic_store_n(&ring->meta->data_tail, tail, __ATOMIC_RELEASE);
  return read;
}

}  // namespace hpcrun
