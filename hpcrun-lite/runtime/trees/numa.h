// NUMA placement of sampled data, for every source: was the sampled page on the NUMA node of
// the CPU that made the access (numa_local) or on another (numa_remote)?
//
// The page's node comes from move_pages(2) in query mode (a NULL node list: nothing moves), the
// CPU's node from the map numa_topology.h reads from /sys/devices/system/node at start-up (not
// in a signal). move_pages costs a system call per batch, so the sampling handler only logs (tree
// node, page, CPU) in a small per-thread NumaLog; the log is resolved in batches by the thread's
// allocation wrappers once half full, at thread end, and at process end before the writer.
// When the log fills inside the handler (a thread that samples without allocating), the
// handler resolves it there: move_pages is a plain system call, async-signal-safe, and the
// log's tree is the handler's own. Whoever resolves the log outside the handler blocks the
// sampling signal meanwhile (the handler writes the same log and tree).
//
// A page that is not present (never touched, swapped out, freed since) has no node: counted
// as unresolved, not as local or remote.
//
// On a machine with one node every placement is local, and nothing is looked up: the handler
// counts the sample local at once (no log, no move_pages, no blocked signal in free()). Asking
// the kernel cost a third of a system call per sample there (a flush in free() whenever the log
// held anything: two sigprocmask and a move_pages; bench/kernel_entries.sh, 2-vCPU EPYC VM).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hpcrun/probe/numa_topology.h"

namespace hpcrun {

class Cct;

// Whether placement is looked up in this run (numa_enable, HPCRUN_LITE_NUMA).
bool numa_enabled();
void numa_enable(bool on);

struct NumaCounts {
  uint64_t local = 0, remote = 0;
  uint64_t unresolved = 0;  // page not present, or the CPU's node unknown
};
// Process-wide totals of what every log resolved.
NumaCounts numa_counts();

class NumaLog {
 public:
  static constexpr uint32_t kCapacity = 128;
  // Logs one sampled address at tree node `node`; resolves the log first when it is full.
  // Async-signal-safe.
  void add(Cct& c, uint32_t node, uint64_t addr, uint32_t cpu);
  bool half_full() const { return n_ >= kCapacity / 2; }
  // Whether a logged page lies in [lo, hi): a block being freed must be placed first.
  bool holds(uint64_t lo, uint64_t hi) const;
  uint32_t size() const { return n_; }
  // Looks up every logged page and counts numa_local/remote in the nodes' memory metrics.
  // Async-signal-safe; the caller keeps the sampling handler out (see above).
  void flush(Cct& c);
  void clear() { n_ = 0; }

 private:
  struct Entry {
    uint32_t node;
    uint32_t cpu;
  };
  uint32_t n_;
  Entry e_[kCapacity];
  uint64_t page_[kCapacity];
};

}  // namespace hpcrun
