// The machine's NUMA nodes as the kernel lists them (which CPU is on which node) and whether
// move_pages(2) answers here: what `hpcrun-lite --check` reports and what the runtime's NUMA
// placement (runtime/trees/numa.h) looks pages up against.
#pragma once

#include <cstdint>

namespace hpcrun {

inline constexpr int kMaxNumaCpus = 1024;

// Reads <root>/sys/devices/system/node/node*/cpulist. Returns the number of nodes found (0:
// no NUMA information, every CPU counts as node 0). Not signal-safe.
int numa_init(const char* root);
// What numa_init found (0 before it ran).
int numa_node_count();
// The node of `cpu`, -1 when unknown. Async-signal-safe (a table read).
int numa_cpu_node(uint32_t cpu);
// Whether every CPU is on one node, so that every placement is local and nothing needs
// looking up: after numa_init found at most one node, until numa_set_cpu_node.
bool numa_single_node();
// One move_pages query of one page, at start-up: 0 when it works, else its errno (ENOSYS on a
// kernel without NUMA, EPERM under a seccomp filter), and then placement is not looked up.
// Leaves errno as it was.
int numa_probe();

// Test hook: replaces the move_pages system call (same arguments, nodes always NULL), for the
// probe and for the runtime's lookups alike.
using MovePagesHook = long (*)(unsigned long count, void** pages, int* status);
void set_move_pages_hook(MovePagesHook hook);
MovePagesHook move_pages_hook();
// Test: sets the CPU -> node map directly (and makes placement looked up, as on several nodes).
void numa_set_cpu_node(uint32_t cpu, int node);

}  // namespace hpcrun
