// Hatchet's JSON (`report --format hatchet`): what hatchet.GraphFrame.from_json reads, and so what
// Thicket builds on to compare runs and ranks. The data-centric tree as Hatchet's graph: one root
// per variable, below it the frames of its access paths outermost first (paths that share a
// prefix share its nodes); the variables of runtime libraries under a root per family
// ("[MPI runtime data]", as the text report groups them) unless --no-group; a root "[no data]". The dataframe has a row per node and rank
// (index ["node", "rank"]) when the database kept its values per rank (merge --per-rank,
// RANK_VALUES), else a row per node (index ["node"]). docs/EXPORTS.md describes the mapping.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "exports.h"
#include "hpcl/text/format_common.h"
#include "json_writer.h"
#include "symbols/location.h"

namespace hpcl::analysis {
namespace {

// A node of Hatchet's graph. Its exclusive values sit in `samples` and `latency` by rank (one
// entry, rank 0, for a database without rank values). `variable` is the model's variable the
// node belongs to (nullptr for a group's root and "[no data]"), `row` the name of that variable
// or root.
struct GraphNode {
  std::string name;
  const char* type = "function";
  uint32_t parent = UINT32_MAX;
  const Variable* variable = nullptr;
  std::string_view row;
  std::vector<uint32_t> children;
  std::map<std::string, uint32_t> child_of;  // by name, so equal prefixes share their nodes
  std::map<int64_t, uint64_t> samples, latency;  // exclusive, by rank
};

// The database's rank values of one node, found by binary search (they are sorted by node).
class RankIndex {
 public:
  explicit RankIndex(const std::vector<RankValue>& values) : values_(values) {}
  template <typename F>
  void each(uint32_t node, F f) const {
    auto it = std::lower_bound(values_.begin(), values_.end(), node,
                               [](const RankValue& v, uint32_t n) { return v.node < n; });
    for (; it != values_.end() && it->node == node; ++it) f(*it);
  }

 private:
  const std::vector<RankValue>& values_;
};

class Graph {
 public:
  // A node of its own under `parent` (UINT32_MAX: a root): a variable, a group, "[no data]".
  uint32_t add(uint32_t parent, std::string name, const char* type, const Variable* v, std::string_view row) {
    const auto n = uint32_t(nodes_.size());
    nodes_.push_back(GraphNode{std::move(name), type, parent, v, row, {}, {}, {}, {}});
    if (parent != UINT32_MAX) nodes_[parent].children.push_back(n);
    return n;
  }
  // The frame `name` under `parent`, made the first time a path passes there.
  uint32_t frame(uint32_t parent, const std::string& name) {
    auto [it, fresh] = nodes_[parent].child_of.try_emplace(name, uint32_t(nodes_.size()));
    const uint32_t child = it->second;  // read before add() moves the nodes (and their maps)
    if (fresh) add(parent, name, "function", nodes_[parent].variable, nodes_[parent].row);
    return child;
  }
  GraphNode& operator[](uint32_t n) { return nodes_[n]; }
  const std::vector<GraphNode>& nodes() const { return nodes_; }

 private:
  std::vector<GraphNode> nodes_;
};

// Per node, per rank: the inclusive sum of `exclusive` over its subtree. Children come after
// their parents, so one backward pass adds each node into its parent.
std::vector<std::map<int64_t, uint64_t>> inclusive(const std::vector<GraphNode>& nodes,
                                                   std::map<int64_t, uint64_t> GraphNode::*exclusive) {
  std::vector<std::map<int64_t, uint64_t>> inc(nodes.size());
  for (size_t i = nodes.size(); i-- > 0;) {
    for (auto [rank, v] : nodes[i].*exclusive) inc[i][rank] += v;
    if (nodes[i].parent != UINT32_MAX)
      for (auto [rank, v] : inc[i]) inc[nodes[i].parent][rank] += v;
  }
  return inc;
}

uint64_t at(const std::map<int64_t, uint64_t>& m, int64_t rank) {
  auto it = m.find(rank);
  return it == m.end() ? 0 : it->second;
}

}  // namespace

void write_hatchet(const ReportModel& m, const Profile& db, const ReportOptions& options, bool group,
                   std::ostream& out) {
  const bool per_rank = !db.rank_values.empty();
  const RankIndex ranks_of(db.rank_values);
  Graph g;
  std::map<std::string, uint32_t> groups;  // the root of each runtime family's group
  bool any_latency = false;
  // Adds the values of database node `node` (a sampled instruction) to graph node `n`.
  auto add_values = [&](uint32_t n, uint32_t node, uint64_t samples) {
    if (!per_rank) {
      g[n].samples[0] += samples;
      return;
    }
    ranks_of.each(node, [&](const RankValue& v) {
      if (v.metric == kMetricSamples) g[n].samples[v.rank] += v.value;
      if (v.metric == kMetricLatency) {
        g[n].latency[v.rank] += v.value;
        any_latency = true;
      }
    });
  };

  std::vector<Location> scratch;
  const size_t rows = rows_to_print(m.variables.size(), options.top);
  for (size_t i = 0; i < rows; ++i) {
    const Variable& v = m.variables[i];
    if (v.samples == 0) continue;
    uint32_t parent = UINT32_MAX;
    if (std::string family = group ? runtime_group_of(v) : ""; !family.empty()) {
      auto [it, fresh] = groups.try_emplace(family, 0);
      if (fresh) it->second = g.add(UINT32_MAX, family, "group", nullptr, it->first);
      parent = it->second;
    }
    const uint32_t var = g.add(parent, v.name, "variable", &v, v.name);
    for (const AccessPath& a : v.accesses) {
      const std::vector<Location>& path = m.access_path(a, scratch);
      uint32_t n = var;
      for (auto it = path.rbegin(); it != path.rend(); ++it) n = g.frame(n, location_label(*it));
      add_values(n, a.leaf, a.samples);
    }
  }
  // The samples without a data address: the database's NoDataRoot subtree (the model's
  // no_data_samples, the profiler's own work among them).
  if (m.no_data_samples > 0) {
    static constexpr std::string_view kNoData = "[no data]";
    const uint32_t root = g.add(UINT32_MAX, std::string(kNoData), "no data", nullptr, kNoData);
    if (!per_rank) {
      g[root].samples[0] = m.no_data_samples;
    } else if (!db.trees.empty()) {
      const Tree& t = db.trees[0];
      std::vector<uint8_t> under(t.nodes.size(), 0);
      for (uint32_t i = 1; i < t.nodes.size(); ++i) {
        under[i] = t.nodes[i].kind == NodeKind::NoDataRoot || (t.nodes[i].parent < i && under[t.nodes[i].parent]);
        if (under[i])
          ranks_of.each(i, [&](const RankValue& v) {
            if (v.metric == kMetricSamples) g[root].samples[v.rank] += v.value;
          });
      }
    }
  }

  // Every rank that took a sample anywhere; a node a rank never reached is a row of zeros, since
  // Hatchet looks rows up by (node, rank) and averages over the rows it has.
  std::set<int64_t> ranks;
  if (per_rank) {
    for (const RankValue& v : db.rank_values)
      if (v.metric == kMetricSamples) ranks.insert(v.rank);
  } else {
    ranks.insert(0);
  }
  const std::vector<GraphNode>& nodes = g.nodes();
  const auto samples_inc = inclusive(nodes, &GraphNode::samples);
  const auto latency_inc = any_latency ? inclusive(nodes, &GraphNode::latency)
                                       : std::vector<std::map<int64_t, uint64_t>>{};

  JsonWriter w(out);
  w.begin_object();
  // One graph of every root: the reader connects children within a graph and takes the nodes
  // without a parent as roots.
  w.key("graph");
  w.begin_array();
  w.begin_object();
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    w.key(std::to_string(n));
    w.begin_object(true);
    w.key("data");
    w.begin_object(true);
    w.field("name", nodes[n].name);
    w.field("type", nodes[n].type);
    w.end_object();
    w.key("children");
    w.begin_array(true);
    for (uint32_t c : nodes[n].children) w.value(c);
    w.end_array();
    w.end_object();
  }
  w.end_object();
  w.end_array();

  w.key("dataframe");
  w.begin_array();
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    const GraphNode& node = nodes[n];
    const Variable* v = node.variable;
    const bool top = v && node.type == std::string_view("variable");
    for (int64_t rank : ranks) {
      w.begin_object(true);
      w.field("node", n);
      if (per_rank) w.field("rank", rank);
      w.field("name", node.name);
      w.field("type", node.type);
      // The variable each row belongs to, so that a dataframe groups by it without the graph.
      w.field("variable", node.row);
      w.field("kind", v ? kind_name(v->kind) : node.type);
      if (top && v->bytes > 0) w.field("bytes", v->bytes);
      if (top && !v->allocation_site.empty()) w.field("allocated at", v->allocation_site);
      w.field("samples", at(node.samples, rank));
      w.field("samples (inc)", at(samples_inc[n], rank));
      if (any_latency) {
        w.field("latency", at(node.latency, rank));
        w.field("latency (inc)", at(latency_inc[n], rank));
      }
      w.end_object();
    }
  }
  w.end_array();

  w.key("dataframe_indices");
  w.begin_array(true);
  w.value("node");
  if (per_rank) w.value("rank");
  w.end_array();
  w.key("exclusive_metrics");
  w.begin_array(true);
  w.value("samples");
  if (any_latency) w.value("latency");
  w.end_array();
  w.key("inclusive_metrics");
  w.begin_array(true);
  w.value("samples (inc)");
  if (any_latency) w.value("latency (inc)");
  w.end_array();
  w.end_object();
  w.finish();
}

}  // namespace hpcl::analysis
