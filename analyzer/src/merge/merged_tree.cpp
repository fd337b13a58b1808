// Finding and creating merged nodes by path hash, with the next lookups' memory fetched ahead
// (see merged_tree.h).
#include "merged_tree.h"

#include <limits>
#include <stdexcept>

namespace hpcl::analysis {
namespace {

constexpr uint64_t kRootHash = 0x243f6a8885a308d3ull;
// How many input nodes ahead the index slot is fetched, and the node it names, once the slot
// has arrived. Chosen by timing 16/8, 32/12, 48/16 and 64/24 on 1,024 synthetic profiles
// (0.96-1.17 s of CPU, the longer the better, 64/24 within noise of 48/16).
constexpr size_t kAhead = 48, kAheadNode = 16;

// The hash of a child's path from its parent's path hash and its own key. Both halves are used:
// the low bits pick the slot, the high half is the slot's tag. For one parent, distinct keys
// give distinct values before the last step (each step is a bijection of its input), so siblings
// collide only by chance.
inline uint64_t path_hash(uint64_t parent, NodeKind kind, uint32_t a, uint64_t b) {
  uint64_t h = (parent ^ (uint64_t{a} << 8 | static_cast<uint8_t>(kind))) * 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 29) ^ b) * 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

}  // namespace

MergedTree::MergedTree() {
  nodes_.push_back(Node{0, 0, kNoParent, 0, 0, 0, NodeKind::Root});
  hash_.push_back(kRootHash);
  var_.push_back(kNoVariable);
  stack_.push_back(kNoVariable);
  cells_.push_back(Cell{0, 0, 0});
  rehash(1024);
}

void MergedTree::rehash(size_t slots) {
  slots_.assign(slots, Slot{0, 0});
  mask_ = slots - 1;
  // The root is never looked up: every input node but the root has a parent.
  for (uint32_t n = 1; n < nodes_.size(); ++n) {
    size_t i = hash_[n] & mask_;
    while (slots_[i].node != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{static_cast<uint32_t>(hash_[n] >> 32), n + 1};
  }
}

uint32_t MergedTree::find_or_add(uint64_t hash, uint32_t parent, NodeKind kind, uint32_t a, uint64_t b) {
  const auto tag = static_cast<uint32_t>(hash >> 32);
  size_t i = hash & mask_;
  for (;; i = (i + 1) & mask_) {
    const Slot s = slots_[i];
    if (s.node == 0) break;
    if (s.tag != tag) continue;
    const Node& n = nodes_[s.node - 1];
    if (n.parent == parent && n.a == a && n.b == b && n.kind == kind) return s.node - 1;
  }
  if (nodes_.size() >= std::numeric_limits<uint32_t>::max() - 1)
    throw std::length_error("merged tree: more than 2^32 - 2 nodes");
  const auto id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(Node{b, a, parent, 0, 0, 0, kind});
  hash_.push_back(hash);
  const bool variable = kind == NodeKind::HeapVar || kind == NodeKind::StaticVarNode ||
                        kind == NodeKind::UnknownClass;
  var_.push_back(variable && var_[parent] == kNoVariable ? id : var_[parent]);
  stack_.push_back(kind == NodeKind::StackOwner || kind == NodeKind::StackSlot ? id : stack_[parent]);
  slots_[i] = Slot{tag, id + 1};
  if (nodes_.size() * 2 > slots_.size()) rehash(slots_.size() * 2);
  return id;
}

std::string MergedTree::map(const FlatTree& t, size_t index, const KeyMaps& maps,
                            std::vector<uint32_t>& dest) {
  const size_t n = t.size();
  dest.resize(n);
  if (n == 0) return {};
  mapped_a_.resize(n);
  input_hash_.resize(n);
  // Every path hash first (parents precede children): then each lookup below is independent of
  // the previous one's result, and its memory can be fetched ahead.
  input_hash_[0] = kRootHash;
  // A Python frame's offset is an index into its input's SCRIPT_FRAMES: mapped like a key.
  const bool script = maps.script_module != kNoModule;
  if (script) mapped_b_.resize(n);
  auto b_of = [&](size_t i) { return script ? mapped_b_[i] : t.b[i]; };
  for (size_t i = 1; i < n; ++i) {
    mapped_a_[i] = maps.map(t.kind[i], t.a[i]);
    if (script) mapped_b_[i] = maps.map_b(t.kind[i], t.a[i], t.b[i]);
    input_hash_[i] = path_hash(input_hash_[t.parent[i]], t.kind[i], mapped_a_[i], b_of(i));
  }
  if (++serial_ == 0) {  // wrapped after 2^32 trees: no node may look seen by this one
    for (Node& node : nodes_) node.seen_tree = 0;
    serial_ = 1;
  }
  dest[0] = 0;
  bool collided = false;
  for (size_t i = 1; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(&slots_[input_hash_[i + kAhead] & mask_]);
    if (i + kAheadNode < n) {
      const Slot& s = slots_[input_hash_[i + kAheadNode] & mask_];
      if (s.node != 0) __builtin_prefetch(&nodes_[s.node - 1]);
    }
    const uint32_t d = find_or_add(input_hash_[i], dest[t.parent[i]], t.kind[i], mapped_a_[i], b_of(i));
    Node& node = nodes_[d];
    if (node.seen_tree == serial_) {
      const uint32_t j = node.seen_node;
      if (t.parent[j] == t.parent[i] && t.kind[j] == t.kind[i] && t.a[j] == t.a[i] && t.b[j] == t.b[i])
        return duplicate_children_error(index, t.tid, j, static_cast<uint32_t>(i), t.parent[i]);
      // Two keys of the input that are one key here (a file that lists one module twice): they
      // add up. A third node could then be a true duplicate of the second that the stamp, which
      // remembers the first, does not see: the reader's own check decides.
      collided = true;
    } else {
      node.seen_tree = serial_;
      node.seen_node = static_cast<uint32_t>(i);
    }
    dest[i] = d;
  }
  return collided ? find_duplicate_children(t, index) : std::string();
}

void MergedTree::truncate(size_t size) {
  if (size >= nodes_.size()) return;
  for (Node& n : nodes_) n.seen_tree = 0;
  nodes_.resize(size);
  hash_.resize(size);
  var_.resize(size);
  stack_.resize(size);
  rehash(slots_.size());
}

void MergedTree::add_metric(uint32_t node, uint16_t id, uint64_t value) {
  if (value == 0) return;  // the format leaves zeros out; a merge must not add them back
  uint32_t prev = 0, c = nodes_[node].metrics;
  while (c != 0 && cells_[c].id < id) {
    prev = c;
    c = cells_[c].next;
  }
  if (c != 0 && cells_[c].id == id) {
    // Saturate rather than wrap, as Node::add_metric does: a wrapped sum could be zero.
    uint64_t sum;
    cells_[c].value = __builtin_add_overflow(cells_[c].value, value, &sum) ? UINT64_MAX : sum;
    return;
  }
  const auto fresh = static_cast<uint32_t>(cells_.size());
  cells_.push_back(Cell{value, c, id});
  if (prev != 0) cells_[prev].next = fresh;
  else nodes_[node].metrics = fresh;
}

std::span<const MergedTree::Reached> MergedTree::add_metrics(const FlatTree& t,
                                                            const std::vector<uint32_t>& dest) {
  // The nodes with metrics, few and far apart in the merged tree: their nodes, first cells and
  // variables are fetched ahead as in map().
  reached_.clear();
  for (uint32_t i = 0; i < t.size(); ++i)
    if (t.metric_end[i] != t.metric_begin(i)) reached_.push_back(Reached{i, kNoVariable, kNoVariable});
  const size_t n = reached_.size();
  for (size_t k = 0; k < n; ++k) {
    if (k + kAheadNode < n) {
      const uint32_t ahead = dest[reached_[k + kAheadNode].node];
      __builtin_prefetch(&nodes_[ahead]);
      __builtin_prefetch(&var_[ahead]);
    }
    if (k + kAheadNode / 2 < n) __builtin_prefetch(&cells_[nodes_[dest[reached_[k + kAheadNode / 2].node]].metrics]);
    const uint32_t i = reached_[k].node;
    for (const Metric& m : t.metrics_of(i)) add_metric(dest[i], m.id, m.value);
    reached_[k].variable = var_[dest[i]];
    reached_[k].stack = stack_[dest[i]];
  }
  return reached_;
}

std::vector<Metric> MergedTree::metrics(uint32_t n) const {
  std::vector<Metric> out;
  for (uint32_t c = nodes_[n].metrics; c != 0; c = cells_[c].next)
    out.push_back(Metric{cells_[c].id, cells_[c].value});
  return out;
}

Tree MergedTree::to_tree() const {
  Tree t;
  t.nodes.resize(nodes_.size());
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    hpcl::Node& n = t.nodes[i];
    n.parent = nodes_[i].parent;
    n.kind = nodes_[i].kind;
    n.a = nodes_[i].a;
    n.b = nodes_[i].b;
    n.metrics = metrics(i);
  }
  return t;
}

}  // namespace hpcl::analysis
