// The address ranges that are not blocks of an allocation call, each in an address map of its
// own (heap_map.h) beside the map of heap blocks:
//  - the program's mappings (anonymous, of a file, of shared memory): variables, named by their
//    mapping call path and, for files and shared memory, by path or name;
//  - the ranges the program named with hpcrun_lite_name (a pool's sub-arrays): variables that
//    win over the block or mapping they lie in;
//  - the allocators' own arenas (what jemalloc, mimalloc, tcmalloc, TBB map for themselves):
//    never variables; an address there that no tracked block covers is untracked heap.
// Mappings never overlap (the kernel replaces what a new one covers), and the runtime keeps the
// named ranges and the arenas from overlapping by carving (a new name over an old one cuts the
// old one), so each map answers a lookup with the one range holding the address, as it does for
// heap blocks. The innermost range wins: named, then heap block, then mapping.
#pragma once

#include <cstdint>

#include "memory/heap_map.h"

namespace hpcrun {

extern HeapMap g_maps;
extern HeapMap g_named;
extern HeapMap g_arenas;

// Writers (never from a signal handler), serialised by the regions lock: a carve is several
// map operations. Removes [lo, hi) from `map`: entries inside go, an entry that straddles an end
// keeps its part outside (same site and weight).
void carve(HeapMap& map, uint64_t lo, uint64_t hi);
// Inserts [lo, hi) for `site` after carving what was there.
bool insert_carved(HeapMap& map, uint64_t lo, uint64_t hi, uint32_t site);
// The regions lock itself, held by carve and insert_carved; fork holds it across fork() so the
// child never inherits a half-done carve (with the three maps' own locks, regions_fork_*).
void regions_fork_prepare();
void regions_fork_parent();
void regions_fork_child();

// Async-signal-safe: the variable's range holding `ea`: a named range, else a tracked heap block
// (find_heap_block: its bytes, its chunk header, the block `freeing`), else a mapping.
bool find_variable_block(const HeapMap& heap, const BlockInfo& freeing, uint64_t ea, BlockInfo* out);

// Async-signal-safe: `ea` lies in an arena an allocator mapped for itself.
inline bool in_allocator_arena(uint64_t ea) {
  return g_arenas.ever_used() && g_arenas.lookup(ea, nullptr);
}

}  // namespace hpcrun
