// See cct.h.
#include "trees/cct.h"

#include <initializer_list>

#include "base/raw_sys.h"
#include "hpcl/ids.h"

namespace hpcrun {

static void* map_zeroed(size_t bytes) {
  return raw_mmap(bytes);
}

uint64_t Cct::hash(uint32_t parent, uint8_t kind, uint64_t a, uint64_t b) {
  uint64_t h = (uint64_t(parent) << 8 | kind) * 0x9E3779B97F4A7C15ull;
  h ^= a + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
  h ^= b * 0xC2B2AE3D27D4EB4Full;
  return h ^ (h >> 31);
}

bool Cct::init() {
  count_ = 0;
  mem_.init();
  table_mask_ = (1u << 12) - 1;
  table_ = static_cast<uint32_t*>(map_zeroed(sizeof(uint32_t) * (table_mask_ + 1)));
  if (!table_) return false;
  using hpcl::NodeKind;
  if (new_node(kNone, uint8_t(NodeKind::Root), 0, 0) == kNone) return false;
  for (NodeKind k : {NodeKind::HeapRoot, NodeKind::StaticRoot, NodeKind::UnknownRoot, NodeKind::NoDataRoot})
    if (child(0, uint8_t(k), 0, 0) == kNone) return false;
  return true;
}

void Cct::reset() {
  for (uint32_t c = 0; c < kMaxChunks && chunks_[c]; ++c) {
    raw_munmap(chunks_[c], sizeof(RtNode) << kChunkBits);
    chunks_[c] = nullptr;
  }
  nodes_front_ = PopulatedFront{};  // a new chunk may be mapped where an old one was
  if (table_) raw_munmap(table_, sizeof(uint32_t) * (table_mask_ + 1));
  mem_.release();
  init();
}

uint32_t Cct::node_limit = 0;

uint32_t Cct::new_node(uint32_t parent, uint8_t kind, uint64_t a, uint64_t b) {
  uint32_t i = count_;
  if (node_limit && i >= node_limit) return kNone;
  uint32_t c = i >> kChunkBits;
  if (c >= kMaxChunks) return kNone;
  if (!chunks_[c]) {
    chunks_[c] = static_cast<RtNode*>(map_zeroed(sizeof(RtNode) << kChunkBits));
    if (!chunks_[c]) return kNone;
  }
  RtNode* n = at(i);
  nodes_front_.reach(chunks_[c], n + 1, sizeof(RtNode) << kChunkBits);
  n->parent = parent;
  n->kind = kind;
  n->mem = 0;
  n->a = a;
  n->b = b;
  n->samples = 0;
  n->estimated_extra = 0;
  n->estimated_var = 0;
  n->page_faults = 0;
  count_ = i + 1;
  return i;
}

bool Cct::grow_table() {
  uint32_t new_mask = table_mask_ * 2 + 1;
  auto* t = static_cast<uint32_t*>(map_zeroed(sizeof(uint32_t) * (size_t(new_mask) + 1)));
  if (!t) return false;
  for (uint32_t i = 1; i < count_; ++i) {  // the root is never looked up as a child
    const RtNode* n = at(i);
    uint64_t h = hash(n->parent, n->kind, n->a, n->b);
    uint32_t s = uint32_t(h) & new_mask;
    while (t[s] != 0) s = (s + 1) & new_mask;
    t[s] = i + 1;
  }
  raw_munmap(table_, sizeof(uint32_t) * (size_t(table_mask_) + 1));
  table_ = t;
  table_mask_ = new_mask;
  return true;
}

uint32_t Cct::child(uint32_t parent, uint8_t kind, uint64_t a, uint64_t b) {
  uint64_t h = hash(parent, kind, a, b);
  uint32_t s = uint32_t(h) & table_mask_;
  for (;;) {
    uint32_t v = table_[s];
    if (v == 0) break;
    const RtNode* n = at(v - 1);
    if (n->parent == parent && n->kind == kind && n->a == a && n->b == b) return v - 1;
    s = (s + 1) & table_mask_;
  }
  // Keep the load factor at or below 1/2.
  if ((count_ + 1) * 2 > table_mask_ + 1) {
    if (!grow_table()) return kNone;
    return child(parent, kind, a, b);
  }
  uint32_t i = new_node(parent, kind, a, b);
  if (i == kNone) return kNone;
  table_[s] = i + 1;
  return i;
}

MemCounts* Cct::mem(uint32_t node) {
  RtNode* n = at(node);
  if (n->mem == 0) {
    uint32_t s = mem_.add();
    // 24 bits: a tree has at most kMaxChunks << kChunkBits = 4M nodes, so slots fit.
    if (s == MemTable::kNone || s >= (1u << 24)) return nullptr;
    n->mem = s;
  }
  return mem_.at(n->mem);
}

size_t Cct::footprint() const {
  size_t chunks = 0;
  for (uint32_t c = 0; c < kMaxChunks; ++c)
    if (chunks_[c]) ++chunks;
  return chunks * (sizeof(RtNode) << kChunkBits) + sizeof(uint32_t) * (size_t(table_mask_) + 1) +
         mem_.footprint();
}

}  // namespace hpcrun
