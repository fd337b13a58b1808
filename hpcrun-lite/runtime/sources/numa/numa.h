// NUMA placement of sampled data, for every source: was the sampled page on the NUMA node of
// the CPU that made the access (numa_local) or on another (numa_remote)?
//
// The page's node comes from move_pages(2) in query mode (a NULL node list: nothing moves), the
// CPU's node from a CPU -> node map read from /sys/devices/system/node at start-up (not in a
// signal). move_pages costs a system call per batch, so the sampling handler only logs (tree
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

namespace hpcrun {

class Cct;

inline constexpr int kMaxNumaCpus = 1024;

// Reads <root>/sys/devices/system/node/node*/cpulist. Returns the number of nodes found (0:
// no NUMA information, every CPU counts as node 0). Not signal-safe.
int numa_init(const char* root);
// What numa_init found (0 before it ran).
int numa_node_count();
// The node of `cpu`, -1 when unknown.
int numa_cpu_node(uint32_t cpu);
// One move_pages query of one page, at start-up: 0 when it works, else its errno (ENOSYS on a
// kernel without NUMA, EPERM under a seccomp filter), and then placement is not looked up. A
// lookup that fails so later (a filter installed by the program) turns placement off too. The
// lookups are raw system calls: they run inside the program's free() and never touch errno.
int numa_probe();
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

// Test hook: replaces the move_pages system call (same arguments, nodes always NULL).
using MovePagesHook = long (*)(unsigned long count, void** pages, int* status);
void set_move_pages_hook(MovePagesHook hook);
// Test: sets the CPU -> node map directly (and makes placement looked up, as on several nodes).
void numa_set_cpu_node(uint32_t cpu, int node);

}  // namespace hpcrun
