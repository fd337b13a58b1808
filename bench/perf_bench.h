/* Shared by the bench programs that read perf rings without a profiler behind them
 * (bare_sampler.c, sample_cost_alt.c): walks the records of a mapped ring between its tail and
 * head, counts the samples and the samples the kernel reported lost, and frees their space. */
#ifndef HPCL_BENCH_RING_COUNT_H
#define HPCL_BENCH_RING_COUNT_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* `ring`: the mapping (metadata page, then `data_bytes` of data); `page`: the page size. Adds
 * the PERF_RECORD_LOST counts to *lost; returns the PERF_RECORD_SAMPLE records read. */
static inline uint64_t ring_count_and_free(void *ring, long page, uint64_t data_bytes, uint64_t *lost) {
  struct perf_event_mmap_page *m = (struct perf_event_mmap_page *)ring;
  uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE), tail = m->data_tail, n = 0;
  const unsigned char *data = (const unsigned char *)ring + page;
  while (tail < head) {
    struct perf_event_header h;
    for (size_t i = 0; i < sizeof h; ++i) ((unsigned char *)&h)[i] = data[(tail + i) % data_bytes];
    if (h.size == 0) break;
    if (h.type == PERF_RECORD_SAMPLE) n++;
    else if (h.type == PERF_RECORD_LOST) { /* header, id, then the count */
      uint64_t l = 0;
      for (size_t i = 0; i < 8; ++i) ((unsigned char *)&l)[i] = data[(tail + 16 + i) % data_bytes];
      *lost += l;
    }
    tail += h.size;
  }
  __atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
  return n;
}

#endif
