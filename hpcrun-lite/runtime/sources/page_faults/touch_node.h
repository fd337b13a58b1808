// First touch by NUMA node: which node's CPU took each page fault of a variable. The fault
// record carries the CPU (PERF_SAMPLE_CPU, fault_record.h); numa.h maps it to its node; the
// count goes to the faulting instruction's node as metric kMetricFirstTouchNodeBase + node
// (docs/FORMAT.md), beside its page_faults. With the kernel's default policy the page was
// placed on that node, so a variable whose counts all name one node had its pages put there by
// whoever touched them first (often a serial initialization).
#pragma once

#include <cstdint>

namespace hpcrun {

class Cct;

// Counts one first touch at tree node `node` by `cpu`. False when the CPU's node is unknown or
// beyond the metric ids (kMaxTouchNodes), or the memory-metrics table is full: the fault stays
// in page_faults only. Async-signal-safe (Cct::mem, numa_cpu_node): no allocation, no lock.
bool count_touch_node(Cct& c, uint32_t node, uint32_t cpu);

}  // namespace hpcrun
