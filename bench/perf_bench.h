/* Shared by the bench programs that open the soft source's perf event without a profiler
 * behind them (bare_sampler.c, sample_cost_alt.c): the event's attributes, with or without a
 * ring record per sample, and the count of a ring's records. */
#ifndef HPCL_BENCH_PERF_BENCH_H
#define HPCL_BENCH_PERF_BENCH_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The runtime's event (PERF_COUNT_SW_TASK_CLOCK of the thread, user mode, one sample per
 * `period_ns` of its CPU time), enabled. With `ring`, each sample is also a ring record with the
 * user registers a decoder needs, and with `stack_bytes` > 0 a copy of that much of the user
 * stack; such a ring is read by polling, so its wakeup comes only at `watermark` bytes. */
static inline struct perf_event_attr bench_task_clock_attr(uint64_t period_ns, int ring,
                                                           uint32_t stack_bytes, uint32_t watermark) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = period_ns;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.wakeup_events = 1;
  if (ring) {
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER;
    /* x86-64 perf_regs: AX BX CX DX SI DI BP SP IP FLAGS (0-9), R8-R15 (16-23) */
    a.sample_regs_user = 0x3ffull | (0xffull << 16);
    if (stack_bytes > 0) {
      a.sample_type |= PERF_SAMPLE_STACK_USER;
      a.sample_stack_user = stack_bytes;
    }
    a.wakeup_events = 0;
    a.watermark = 1;
    a.wakeup_watermark = watermark;
  }
  return a;
}

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
