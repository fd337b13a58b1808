// A thread's calling-context tree while it is being measured.
//
// Only the owning thread's signal handler inserts into it (the sampling signal is blocked while
// its handler runs, so insertions never nest), and the writer reads it after sampling stopped.
// Nodes live in mmap'd chunks and are found through an open-addressing hash table keyed by
// (parent, kind, a, b) that grows by mapping a larger table: mmap/munmap are async-signal-safe,
// malloc is not. Parents are always created before their children, which the file format
// requires too. Keys hold raw runtime values (code addresses, site ids, module/symbol indices);
// the writer translates them to the format's (module, offset) and table indices.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trees/mem_counts.h"

namespace hpcrun {

// The four kind roots, created by Cct::init in this order.
inline constexpr uint32_t kCctHeapRoot = 1, kCctStaticRoot = 2, kCctUnknownRoot = 3,
                          kCctNoDataRoot = 4;

struct RtNode {
  uint32_t parent;
  uint32_t kind : 8;   // hpcl::NodeKind
  uint32_t mem : 24;   // its slot in the memory-metrics side table (mem_counts.h), 0 = none
  uint64_t a;
  uint64_t b;
  uint64_t samples;
  // Samples in blocks tracked with probability p < 1 (weight w = 1/p): sum of (w - 1), the
  // samples they stand for beyond their own, and the variance contribution (see
  // sources/classify.cpp).
  uint64_t estimated_extra;
  uint64_t estimated_var;
  uint64_t page_faults;  // first touches at this node (page-fault source), not samples
};

static_assert(sizeof(RtNode) == 56, "RtNode grew: memory metrics belong in the side table");

class Cct {
 public:
  static constexpr uint32_t kChunkBits = 14;  // 16384 nodes (768 KiB) per chunk
  static constexpr uint32_t kMaxChunks = 256; // at most 4M nodes per thread
  static constexpr uint32_t kNone = 0xffffffffu;
  // Tests only (HPCRUN_LITE_TEST_TREE_NODES): fewer nodes per thread, to run the tree full.
  static uint32_t node_limit;

  // Creates the root and the four kind roots (indices 0..4) in an empty tree: zeroed memory (as
  // raw_mmap gives it; a thread's state is never constructed), a constructed Cct, or reset's.
  // Not from a signal handler.
  bool init();
  // Find-or-create; kNone when memory is exhausted.
  uint32_t child(uint32_t parent, uint8_t kind, uint64_t a, uint64_t b);
  void add_samples(uint32_t node, uint64_t n) { at(node)->samples += n; }
  void add_page_faults(uint32_t node, uint64_t n) { at(node)->page_faults += n; }
  void add_estimate(uint32_t node, uint64_t extra, uint64_t var) {
    at(node)->estimated_extra += extra;
    at(node)->estimated_var += var;
  }

  uint32_t size() const { return count_; }
  const RtNode* at(uint32_t i) const { return &chunks_[i >> kChunkBits][i & ((1u << kChunkBits) - 1)]; }
  RtNode* at(uint32_t i) { return &chunks_[i >> kChunkBits][i & ((1u << kChunkBits) - 1)]; }
  // The node's memory metrics, created zeroed on first use; nullptr when memory is exhausted.
  // Async-signal-safe (mmap), same single-writer rule as child().
  MemCounts* mem(uint32_t node);
  // nullptr when the node has none.
  const MemCounts* mem_at(uint32_t node) const {
    uint32_t s = at(node)->mem;
    return s ? mem_.at(s) : nullptr;
  }
  uint32_t mem_slots() const { return mem_.size(); }
  size_t footprint() const;
  // Drops every node but the roots (fork child).
  void reset();

 private:
  uint32_t new_node(uint32_t parent, uint8_t kind, uint64_t a, uint64_t b);
  bool grow_table();
  static uint64_t hash(uint32_t parent, uint8_t kind, uint64_t a, uint64_t b);

  RtNode* chunks_[kMaxChunks] = {};  // mapped in order from 0: the first null ends them
  uint32_t count_ = 0;
  uint32_t* table_ = nullptr;  // node index + 1, 0 = empty
  uint32_t table_mask_ = 0;    // capacity - 1
  PopulatedFront nodes_front_;
  MemTable mem_;
};

}  // namespace hpcrun
