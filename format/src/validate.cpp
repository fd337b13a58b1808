// The invariants of docs/FORMAT.md that span records or sections: tree shape, indices into
// MODULES, SITES, STATICS and SCRIPT_FRAMES, metric order, symbol order. The reader refuses a
// file that breaks one, so code working on a Profile from read_profile_*() can index without
// checking.
#include <algorithm>
#include <cinttypes>
#include <tuple>

#include "layout.h"
#include "payload.h"
#include "strf.h"

namespace hpcl::payload {
namespace {

using NodeKey = std::tuple<uint32_t, uint8_t, uint32_t, uint64_t, uint32_t>;  // with the index

// Two children of one parent with the same (kind, a, b) would make TreeBuilder and the viewer
// disagree about which one a path leads to. The first such pair by (parent, kind, a, b) of the
// `size` nodes whose keys `key(i)` gives, in the reader's words; "" when there is none.
template <typename Key>
std::string duplicate_children(size_t size, Key key, size_t tree, uint32_t tid) {
  std::vector<NodeKey> keys;
  keys.reserve(size);
  for (uint32_t i = 1; i < size; ++i) keys.push_back(key(i));
  std::sort(keys.begin(), keys.end());
  for (size_t k = 1; k < keys.size(); ++k) {
    const NodeKey& x = keys[k - 1];
    const NodeKey& y = keys[k];
    if (std::get<0>(x) == std::get<0>(y) && std::get<1>(x) == std::get<1>(y) &&
        std::get<2>(x) == std::get<2>(y) && std::get<3>(x) == std::get<3>(y))
      return duplicate_children_error(tree, tid, std::get<4>(x), std::get<4>(y), std::get<0>(x));
  }
  return {};
}

struct Checker {
  const Profile& p;
  const uint32_t script = p.script_module();

  bool module_ok(uint32_t m) const { return m == kNoModule || m < p.modules.size(); }
  std::string bad_module(uint32_t m) const {
    return strf("module index %" PRIu32 " out of range (%zu modules)", m, p.modules.size());
  }

  // A frame of the script pseudo-module is an index into SCRIPT_FRAMES: consumers look it up
  // without checking.
  bool frame_ok(uint32_t m, uint64_t offset) const {
    return module_ok(m) && (m != script || m == kNoModule || offset < p.script_frames.size());
  }
  std::string bad_frame(uint32_t m, uint64_t offset) const {
    if (!module_ok(m)) return bad_module(m);
    if (p.script_frames.empty())
      return strf("script frame %" PRIu64 ", but the file has no SCRIPT_FRAMES entries "
                  "(module %" PRIu32 " is the script pseudo-module, %s)", offset, m, kScriptModulePath);
    return strf("script frame %" PRIu64 " out of range (%zu SCRIPT_FRAMES entries)", offset,
                p.script_frames.size());
  }

  // At most one script pseudo-module: two would make a frame's meaning depend on which one.
  std::string modules() const {
    if (script == kNoModule) return {};
    for (size_t i = script + 1; i < p.modules.size(); ++i)
      if (is_script_module(p.modules[i]))
        return strf("section MODULES: module %zu is a second script pseudo-module %s (the first is "
                    "module %" PRIu32 "; a file has at most one)", i, kScriptModulePath, script);
    return {};
  }

  // Node i of a tree, as read from a Tree or from a FlatTree.
  struct NodeFields {
    uint32_t parent;
    NodeKind kind;
    uint32_t a;
    uint64_t b;
    std::span<const Metric> metrics;
  };

  std::string node(uint32_t i, const NodeFields& n) const {
    auto kind = static_cast<uint8_t>(n.kind);
    if (i > 0) {
      if (n.parent >= i) {
        return strf("node %" PRIu32 " has parent %" PRIu32 " (parents must come first)", i, n.parent);
      }
      if (n.kind == NodeKind::Root) return strf("node %" PRIu32 " is a second Root", i);
    }
    if (kind > layout::kMaxNodeKind) return strf("node %" PRIu32 " has unknown kind %u", i, kind);
    switch (n.kind) {
      case NodeKind::Frame:
      case NodeKind::StackOwner:
        if (!frame_ok(n.a, n.b)) return strf("node %" PRIu32 ": ", i) + bad_frame(n.a, n.b);
        break;
      case NodeKind::StackSlot:
        if (n.a == 0) return strf("node %" PRIu32 ": a stack slot of width 0", i);
        break;
      case NodeKind::HeapVar:
        if (n.a >= p.sites.size()) {
          return strf("node %" PRIu32 ": site index %" PRIu32 " out of range (%zu sites)", i, n.a,
                      p.sites.size());
        }
        break;
      case NodeKind::StaticVarNode:
        if (n.a >= p.statics.size()) {
          return strf("node %" PRIu32 ": static index %" PRIu32 " out of range (%zu statics)", i,
                      n.a, p.statics.size());
        }
        break;
      default: break;
    }
    for (size_t j = 0; j < n.metrics.size(); ++j) {
      const Metric& m = n.metrics[j];
      if (j > 0 && m.id <= n.metrics[j - 1].id) {
        return strf("node %" PRIu32 ": metric %u follows metric %u (metrics are sorted by id, "
                    "each at most once)", i, m.id, n.metrics[j - 1].id);
      }
      if (m.value == 0) {
        return strf("node %" PRIu32 ": metric %u is zero (zero values are left out)", i, m.id);
      }
    }
    return {};
  }

  // The checks of one tree whose node i `at(i)` gives, but for children with the same key.
  template <typename At>
  std::string tree(size_t ti, uint32_t tid, size_t size, At at) const {
    std::string where = strf("tree %zu (tid %" PRIu32 "): ", ti, tid);
    if (size == 0) return where + "no nodes (node 0 must be the Root)";
    const NodeFields root = at(0);
    if (root.kind != NodeKind::Root || root.parent != kNoParent) {
      return where + strf("node 0 must be the Root with parent 0xffffffff (found kind %u, parent %" PRIu32 ")",
                          static_cast<unsigned>(root.kind), root.parent);
    }
    for (uint32_t i = 0; i < size; ++i) {
      if (std::string err = node(i, at(i)); !err.empty()) return where + err;
    }
    return {};
  }

  std::string tree(size_t ti) const {
    const Tree& t = p.trees[ti];
    std::string err = tree(ti, t.tid, t.nodes.size(), [&](uint32_t i) {
      const Node& n = t.nodes[i];
      return NodeFields{n.parent, n.kind, n.a, n.b, n.metrics};
    });
    if (!err.empty()) return err;
    return duplicate_children(t.nodes.size(), [&](uint32_t i) {
      const Node& n = t.nodes[i];
      return NodeKey{n.parent, static_cast<uint8_t>(n.kind), n.a, n.b, i};
    }, ti, t.tid);
  }

  std::string tree(size_t ti, const FlatTree& t, const FlatTreeCheck& check) const {
    if (check.nodes_ok && check.modules <= p.modules.size() && check.sites <= p.sites.size() &&
        check.statics <= p.statics.size() && check.script_module == script &&
        check.script_frames <= p.script_frames.size())
      return {};
    return tree(ti, t.tid, t.size(), [&](uint32_t i) {
      return NodeFields{t.parent[i], t.kind[i], t.a[i], t.b[i], t.metrics_of(i)};
    });
  }

  // One histogram per variable, of a known owner, with kOffsetBins bins.
  std::string offsets() const {
    std::vector<std::pair<uint8_t, uint32_t>> seen;
    for (size_t i = 0; i < p.offsets.size(); ++i) {
      const OffsetHistogram& h = p.offsets[i];
      size_t limit = h.owner == OffsetOwner::Site     ? p.sites.size()
                     : h.owner == OffsetOwner::Static ? p.statics.size()
                                                      : 0;
      if (h.owner != OffsetOwner::Site && h.owner != OffsetOwner::Static)
        return strf("offset histogram %zu has unknown owner %u", i, static_cast<unsigned>(h.owner));
      if (h.index >= limit)
        return strf("offset histogram %zu: %s index %" PRIu32 " out of range (%zu)", i,
                    h.owner == OffsetOwner::Site ? "site" : "static", h.index, limit);
      if (h.bins.size() != kOffsetBins)
        return strf("offset histogram %zu has %zu bins (%" PRIu32 " expected)", i, h.bins.size(),
                    kOffsetBins);
      if (h.min > h.max)
        return strf("offset histogram %zu: min %" PRIu64 " above max %" PRIu64, i, h.min, h.max);
      seen.emplace_back(static_cast<uint8_t>(h.owner), h.index);
    }
    std::sort(seen.begin(), seen.end());
    if (std::adjacent_find(seen.begin(), seen.end()) != seen.end())
      return "two offset histograms for one variable";
    return {};
  }

  // A spread is the summary of non-zero per-group values: at most `limit` groups, and
  // min <= max <= sum <= groups * max, all zero without groups.
  static std::string spread(const Spread& s, const char* what, uint64_t limit) {
    if (s.groups > limit)
      return strf("%s: %" PRIu64 " with samples, but the run has %" PRIu64, what, s.groups, limit);
    if (s.groups == 0) {
      if (s.sum != 0 || s.max != 0 || s.min != 0 || s.sumsq_lo != 0 || s.sumsq_hi != 0)
        return strf("%s: values without any group", what);
      return {};
    }
    if (s.min == 0 || s.min > s.max || s.max > s.sum)
      return strf("%s: min %" PRIu64 ", max %" PRIu64 ", sum %" PRIu64
                  " (a summary of non-zero values has 0 < min <= max <= sum)", what, s.min, s.max, s.sum);
    if (static_cast<unsigned __int128>(s.groups) * s.max < s.sum)
      return strf("%s: sum %" PRIu64 " above %" PRIu64 " groups times the max %" PRIu64, what, s.sum,
                  s.groups, s.max);
    return {};
  }

  // A variable of BALANCE or FIRST_TOUCH: a known owner and an index in range.
  std::string variable(BalanceOwner owner, uint32_t index) const {
    switch (owner) {
      case BalanceOwner::Site:
        if (index >= p.sites.size())
          return strf("site index %" PRIu32 " out of range (%zu sites)", index, p.sites.size());
        return {};
      case BalanceOwner::Static:
        if (index >= p.statics.size())
          return strf("static index %" PRIu32 " out of range (%zu statics)", index, p.statics.size());
        return {};
      case BalanceOwner::Unknown: return {};
    }
    return strf("unknown owner %u", static_cast<unsigned>(owner));
  }
  static constexpr const char* kOutOfOrder =
      "out of order (entries are sorted by owner and index, each variable once)";

  // FIRST_TOUCH: sorted, one entry per variable with page faults, spread over the threads of
  // BALANCE (which must be there).
  std::string first_touch() const {
    const Balance& b = p.balance;
    if (!b.first_touch.empty() && !b.present())
      return "section FIRST_TOUCH without BALANCE (its threads are counted there)";
    for (size_t i = 0; i < b.first_touch.size(); ++i) {
      const VariableFirstTouch& v = b.first_touch[i];
      std::string where = strf("section FIRST_TOUCH entry %zu: ", i);
      if (std::string err = variable(v.owner, v.index); !err.empty()) return where + err;
      if (i > 0 && !(std::tie(b.first_touch[i - 1].owner, b.first_touch[i - 1].index) <
                     std::tie(v.owner, v.index)))
        return where + kOutOfOrder;
      if (v.threads.groups == 0) return where + "a variable without page faults";
      if (std::string err = spread(v.threads, "threads", b.thread_groups); !err.empty())
        return where + err;
    }
    return {};
  }

  // BALANCE: sorted, one entry per variable, known owners, both spreads of one variable sum to
  // the same samples (the same samples split by rank and by thread).
  std::string balance() const {
    const Balance& b = p.balance;
    if (!b.variables.empty() && !b.present()) return "section BALANCE: entries but no ranks";
    if (b.thread_groups < b.rank_groups && !b.variables.empty())
      return strf("section BALANCE: %" PRIu64 " threads in %" PRIu64 " ranks", b.thread_groups,
                  b.rank_groups);
    for (size_t i = 0; i < b.variables.size(); ++i) {
      const VariableBalance& v = b.variables[i];
      std::string where = strf("section BALANCE entry %zu: ", i);
      if (std::string err = variable(v.owner, v.index); !err.empty()) return where + err;
      if (i > 0 && !(std::tie(b.variables[i - 1].owner, b.variables[i - 1].index) <
                     std::tie(v.owner, v.index)))
        return where + kOutOfOrder;
      if (std::string err = spread(v.ranks, "ranks", b.rank_groups); !err.empty()) return where + err;
      if (std::string err = spread(v.threads, "threads", b.thread_groups); !err.empty())
        return where + err;
      if (v.ranks.sum != v.threads.sum)
        return where + strf("ranks sum to %" PRIu64 " samples, threads to %" PRIu64, v.ranks.sum,
                            v.threads.sum);
    }
    return {};
  }

  // RANK_VALUES: nodes of the one tree, sorted by (node, rank, metric) with each triple once,
  // ranks from -1 up, no zero value (a rank without the metric has no entry).
  std::string rank_values(size_t nodes) const {
    const std::vector<RankValue>& r = p.rank_values;
    for (size_t i = 0; i < r.size(); ++i) {
      const RankValue& v = r[i];
      std::string where = strf("section RANK_VALUES entry %zu: ", i);
      if (v.node >= nodes)
        return where + strf("node %" PRIu32 " out of range (%zu nodes)", v.node, nodes);
      if (v.rank < -1) return where + strf("rank %" PRId64 " (ranks are -1 or more)", v.rank);
      if (v.value == 0) return where + "a zero value (a rank without the metric has no entry)";
      if (i > 0 && !(std::tie(r[i - 1].node, r[i - 1].rank, r[i - 1].metric) <
                     std::tie(v.node, v.rank, v.metric)))
        return where + "out of order (entries are sorted by node, rank and metric, each once)";
    }
    return {};
  }

  // STACK_NAMES: known kinds, slots of frames that exist, sorted by (owner, lo), each once,
  // pointing at a variable of the list.
  std::string stack_names() const {
    for (size_t i = 0; i < p.stack_vars.size(); ++i) {
      const auto kind = static_cast<uint8_t>(p.stack_vars[i].kind);
      if (kind == 0 || kind > static_cast<uint8_t>(kLastStackVarKind))
        return strf("section STACK_NAMES variable %zu: unknown kind %u", i, kind);
    }
    const std::vector<StackSlotName>& s = p.stack_slots;
    for (size_t i = 0; i < s.size(); ++i) {
      std::string where = strf("section STACK_NAMES slot %zu: ", i);
      if (!frame_ok(s[i].owner.module, s[i].owner.offset))
        return where + bad_frame(s[i].owner.module, s[i].owner.offset);
      if (s[i].width == 0) return where + "width 0";
      if (s[i].var >= p.stack_vars.size())
        return where + strf("variable %" PRIu32 " out of range (%zu variables)", s[i].var,
                            p.stack_vars.size());
      if (i > 0 && !(std::tie(s[i - 1].owner, s[i - 1].lo) < std::tie(s[i].owner, s[i].lo)))
        return where + "out of order (slots are sorted by owner and lo, each once)";
    }
    return {};
  }

  // STACK_THREADS: stack nodes of the one tree, sorted by (node, thread) with each pair once,
  // ranks from -1 up, no zero value. `kind_of(i)` is the kind of node i.
  template <typename KindOf>
  std::string stack_threads(size_t nodes, KindOf kind_of) const {
    const std::vector<StackThreadValue>& r = p.stack_threads;
    for (size_t i = 0; i < r.size(); ++i) {
      const StackThreadValue& v = r[i];
      std::string where = strf("section STACK_THREADS entry %zu: ", i);
      if (v.node >= nodes)
        return where + strf("node %" PRIu32 " out of range (%zu nodes)", v.node, nodes);
      if (NodeKind k = kind_of(v.node); k != NodeKind::StackOwner && k != NodeKind::StackSlot)
        return where + strf("node %" PRIu32 " is of kind %u, not a stack owner or slot", v.node,
                            static_cast<unsigned>(k));
      if (v.thread.rank < -1) return where + strf("rank %" PRId64 " (ranks are -1 or more)", v.thread.rank);
      if (v.samples == 0) return where + "a zero value (a thread without samples has no entry)";
      if (i > 0 && !(std::tie(r[i - 1].node, r[i - 1].thread) < std::tie(v.node, v.thread)))
        return where + "out of order (entries are sorted by node and thread, each pair once)";
    }
    return {};
  }

  std::string run(const std::span<const FlatTree>* flat, std::span<const FlatTreeCheck> checks) const {
    if (std::string err = modules(); !err.empty()) return err;
    for (size_t i = 0; i < p.sites.size(); ++i) {
      for (size_t j = 0; j < p.sites[i].frames.size(); ++j) {
        const Frame& f = p.sites[i].frames[j];
        if (!frame_ok(f.module, f.offset))
          return strf("site %zu frame %zu: ", i, j) + bad_frame(f.module, f.offset);
      }
    }
    for (size_t i = 0; i < p.statics.size(); ++i) {
      if (!module_ok(p.statics[i].module)) return strf("static %zu: ", i) + bad_module(p.statics[i].module);
    }
    if (flat) {
      for (size_t i = 0; i < flat->size(); ++i)
        if (std::string err = tree(i, (*flat)[i], checks[i]); !err.empty()) return err;
    } else {
      for (size_t i = 0; i < p.trees.size(); ++i)
        if (std::string err = tree(i); !err.empty()) return err;
    }
    if (std::string err = offsets(); !err.empty()) return err;
    if (std::string err = balance(); !err.empty()) return err;
    if (std::string err = first_touch(); !err.empty()) return err;
    if (!p.rank_values.empty()) {
      // Databases only (the decoder refuses the section elsewhere), and a database has one tree.
      const size_t nodes = flat ? ((*flat).empty() ? 0 : (*flat)[0].size())
                                : (p.trees.empty() ? 0 : p.trees[0].nodes.size());
      if (std::string err = rank_values(nodes); !err.empty()) return err;
    }
    if (std::string err = stack_names(); !err.empty()) return err;
    if (!p.stack_threads.empty()) {
      std::string err;
      if (flat && !flat->empty())
        err = stack_threads((*flat)[0].size(), [&](uint32_t i) { return (*flat)[0].kind[i]; });
      else if (!flat && !p.trees.empty())
        err = stack_threads(p.trees[0].nodes.size(), [&](uint32_t i) { return p.trees[0].nodes[i].kind; });
      else
        err = stack_threads(0, [](uint32_t) { return NodeKind::Root; });
      if (!err.empty()) return err;
    }
    for (size_t i = 0; i < p.symbols.size(); ++i) {
      const Frame& f = p.symbols[i].frame;
      // CALLEES entries are keyed by these frames (decode.cpp), so they are checked here too.
      if (!frame_ok(f.module, f.offset))
        return strf("symbol %zu: ", i) + bad_frame(f.module, f.offset);
      // Sorted and distinct, so that consumers can binary-search by frame.
      if (i > 0 && !(p.symbols[i - 1].frame < f)) {
        return strf("symbol %zu is out of order (symbols are sorted by module and offset, "
                    "each frame once)", i);
      }
    }
    return {};
  }
};

}  // namespace

std::string validate(const Profile& profile) { return Checker{profile}.run(nullptr, {}); }

std::string validate(const Profile& profile, std::span<const FlatTree> flat,
                     std::span<const FlatTreeCheck> checks) {
  return Checker{profile}.run(&flat, checks);
}

}  // namespace hpcl::payload

namespace hpcl {

std::string duplicate_children_error(size_t tree, uint32_t tid, uint32_t first, uint32_t second,
                                     uint32_t parent) {
  return strf("tree %zu (tid %" PRIu32 "): nodes %" PRIu32 " and %" PRIu32
              " are children of node %" PRIu32 " with the same kind and payload",
              tree, tid, first, second, parent);
}

std::string find_duplicate_children(const FlatTree& t, size_t index) {
  return payload::duplicate_children(t.size(), [&](uint32_t i) {
    return payload::NodeKey{t.parent[i], static_cast<uint8_t>(t.kind[i]), t.a[i], t.b[i], i};
  }, index, t.tid);
}

}  // namespace hpcl
