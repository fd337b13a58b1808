// The viewer's three views built from the database and its report model (see view_model.h).
#include "hpcl/view/view_model.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "model/database.h"
#include "hpcl/text/format_common.h"

namespace hpcl::analysis {

const char* view_name(ViewKind k) {
  switch (k) {
    case ViewKind::DataCentric: return "data-centric";
    case ViewKind::TopDown: return "top-down";
    case ViewKind::Flat: return "flat";
  }
  return "";
}

namespace {

ReportModelOptions viewer_options(ReportModelOptions o) {
  // The viewer builds access paths itself, lazily, from the tree; the report model needs only
  // the leaf of each variable's hottest path to find the variable's node.
  o.max_access_paths = 1;
  // It lists no variable without anything measured: counted, not built (issue 23).
  o.all_variables = false;
  // The hottest variables' evidence now, the others' when their rows are shown (prepare()).
  o.evidence_rows = std::min(o.evidence_rows, ViewModel::kEagerEvidence);
  o.evidence_later = o.access_evidence;
  return o;
}

std::unique_ptr<ViewNode> make_row(RowKind kind, const std::string& label, size_t columns) {
  auto row = std::make_unique<ViewNode>();
  row->kind = kind;
  row->label = printable_line(label);
  row->values.assign(columns, kNoValue);
  return row;
}

void set_location(ViewNode& row, const Location& loc) {
  row.function = printable_line(loc.function);
  row.file = printable_line(loc.file);
  row.line = loc.line;
}

}  // namespace

ViewModel::ViewModel(Profile db, const ReportModelOptions& options)
    : db_(std::move(db)), report_(build_report_model(db_, viewer_options(options))), index_(db_) {
  if (options.access_evidence) evidence_ = std::make_unique<EvidenceBuilder>(db_);
  columns_ = available_columns(report_);
  for (const Variable& v : report_.variables)
    for (const auto& [frame, pattern] : v.evidence.instruction_patterns) patterns_.emplace(frame, pattern);
  variable_node_.assign(report_.variables.size(), kNoParent);
  for (size_t i = 0; i < report_.variables.size(); ++i) {
    const Variable& v = report_.variables[i];
    if (v.kind == VariableKind::Group) continue;
    if (!v.stack_nodes.empty()) variable_node_[i] = v.stack_nodes.front();
    else if (!v.accesses.empty()) variable_node_[i] = index_.variable_of(v.accesses[0].leaf);
    else if (!v.first_touches.empty()) variable_node_[i] = index_.variable_of(v.first_touches[0].leaf);
  }
  views_[0] = std::make_unique<ViewTree>(view_name(ViewKind::DataCentric),
                                         [this](ViewNode& n) { build_data(n); });
  views_[1] = std::make_unique<ViewTree>(view_name(ViewKind::TopDown),
                                         [this](ViewNode& n) { build_top_down(n); });
  views_[2] = std::make_unique<ViewTree>(view_name(ViewKind::Flat),
                                         [this](ViewNode& n) { build_flat(n); });
}

ViewTree& ViewModel::view(ViewKind k) {
  const size_t i = static_cast<size_t>(k);
  if (!rooted_[i]) {
    rooted_[i] = true;
    if (k == ViewKind::DataCentric) views_[i]->set_roots(data_roots());
    else if (k == ViewKind::TopDown) views_[i]->set_roots(top_down_roots());
    else views_[i]->set_roots(flat_roots());
  }
  return *views_[i];
}

std::unique_ptr<ViewModel> ViewModel::open(const std::string& path, std::string* error,
                                           const ReportModelOptions& options) {
  Profile db;
  if (!load_database(path, &db, error)) return nullptr;
  return std::make_unique<ViewModel>(std::move(db), options);
}

std::vector<size_t> ViewModel::shown_columns() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i].shown) out.push_back(i);
  return out;
}

void ViewModel::set_bundle_values(ViewNode& row) const {
  for (size_t c = 0; c < columns_.size(); ++c) {
    const Column& col = columns_[c];
    uint64_t sum = 0, div = 0;
    switch (col.kind) {
      case ColumnKind::Metric:
      case ColumnKind::RawSamples:  // a frame's samples are counted ones already
        for (uint32_t n : row.db_nodes) sum += index_.inclusive(col.metric, n);
        row.values[c] = static_cast<double>(sum);
        break;
      case ColumnKind::MeanLatency:
        for (uint32_t n : row.db_nodes) {
          sum += index_.inclusive(kMetricLatency, n);
          div += index_.inclusive(kMetricLatencySamples, n);
        }
        row.values[c] = div > 0 ? static_cast<double>(sum) / static_cast<double>(div) : kNoValue;
        break;
      case ColumnKind::Pattern:
        row.values[c] = pattern_value(row.pattern);
        break;
      default:
        break;  // per-rank statistics are kept per variable only
    }
  }
}

std::unique_ptr<ViewNode> ViewModel::frame_row(const std::vector<uint32_t>& bundle) const {
  const Location loc = index_.location(bundle[0]);
  auto row = make_row(RowKind::Frame, location_label(loc), columns_.size());
  set_location(*row, loc);
  row->db_nodes = bundle;
  for (uint32_t n : bundle) row->expandable |= index_.has_children(n);
  // A sampled instruction: its access pattern (the instruction with the most samples of the row).
  uint64_t most = 0;
  for (uint32_t n : bundle) {
    const uint64_t samples = index_.node(n).metric(kMetricSamples);
    if (samples <= most || !instruction_pattern(n, &row->pattern)) continue;
    most = samples;
  }
  set_bundle_values(*row);
  return row;
}

// The children of a set of database nodes (several in the top-down view) merged by what their
// row shows, the location's label: two instructions of one source line are one statement, as in
// hpcviewer, and without line information (Debian's libraries) the sampled instructions of one
// function are one row instead of a column of identical ones (GROMACS: four `solve_pme_yzx`
// leaves under one call). Functions known only by their bounds keep their offsets in the label,
// so their call sites stay apart.
std::vector<std::unique_ptr<ViewNode>> ViewModel::merged_children(const std::vector<uint32_t>& bundle) const {
  std::vector<uint32_t> frames;
  for (uint32_t b : bundle)
    for (uint32_t c : index_.children(b))
      if (index_.node(c).kind == NodeKind::Frame) frames.push_back(c);
  return chain_rows(frames, 0);
}

// The rows of `frames` `outer` levels below the outermost function of their inline chains: a
// frame the compiler inlined into callers gets a row for each caller, outermost first, at the
// line of its call, as JSON, folded stacks and HTML show them (the viewer once jumped from
// __libc_start_call_main to column_means_bad, leaving out main (heat2d.c:168) between). Rows
// with one label merge, a caller's apart from a frame's own.
std::vector<std::unique_ptr<ViewNode>> ViewModel::chain_rows(const std::vector<uint32_t>& frames,
                                                             size_t outer) const {
  struct Group {
    std::vector<uint32_t> nodes;
    Location where;
    bool caller;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> by_label;
  for (uint32_t f : frames) {
    const std::vector<Location> chain = index_.inline_chain(f);
    if (outer >= chain.size()) continue;
    const size_t level = chain.size() - 1 - outer;
    const bool caller = level > 0;
    auto [it, fresh] = by_label.try_emplace(location_label(chain[level]) + (caller ? "\x01" : ""), groups.size());
    if (fresh) groups.push_back({{}, chain[level], caller});
    groups[it->second].nodes.push_back(f);
  }
  std::vector<std::unique_ptr<ViewNode>> rows;
  rows.reserve(groups.size());
  for (const Group& g : groups) {
    if (!g.caller) {
      rows.push_back(frame_row(g.nodes));
      continue;
    }
    auto row = make_row(RowKind::InlineCaller, location_label(g.where), columns_.size());
    set_location(*row, g.where);
    row->db_nodes = g.nodes;
    row->ref = outer;
    row->expandable = true;
    set_bundle_values(*row);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::unique_ptr<ViewNode> ViewModel::variable_row(size_t i) const {
  const Variable& v = report_.variables[i];
  auto row = make_row(v.kind == VariableKind::Group ? RowKind::Group : RowKind::Variable, v.name,
                      columns_.size());
  row->ref = i;
  row->tag = kind_name(v.kind);
  if (v.sampled) row->tag += "*";  // as the report: small blocks tracked one in k
  if (v.tls) row->tag += " tls";
  if (v.kind == VariableKind::Heap || v.kind == VariableKind::Static || v.kind == VariableKind::Stack)
    row->bytes = v.bytes;
  if (v.kind == VariableKind::Heap && v.label_frame < v.allocation_path.size())
    set_location(*row, v.allocation_path[v.label_frame]);
  if (!v.accesses.empty()) row->pattern = v.accesses.front().pattern;
  for (size_t c = 0; c < columns_.size(); ++c) row->values[c] = variable_value(v, columns_[c]);
  const uint32_t node = variable_node_[i];
  if (!v.stack_nodes.empty()) row->db_nodes = v.stack_nodes;  // a local's slots, each with paths
  else if (node != kNoParent) row->db_nodes = {node};
  row->expandable = v.kind == VariableKind::Heap || (v.kind == VariableKind::Group && !v.libraries.empty()) ||
                    (node != kNoParent && index_.has_children(node));
  row->fixed_order = v.kind == VariableKind::Heap;  // allocation path, then access paths
  return row;
}

bool ViewModel::instruction_pattern(uint32_t n, PatternView* out) const {
  const Node& node = index_.node(n);
  const Frame frame{node.a, node.b};
  auto it = patterns_.find(frame);
  if (it == patterns_.end()) {
    // As the report analyses them: the sampled instructions of heap, static and stack variables.
    const uint32_t var = index_.variable_of(n);
    if (evidence_ == nullptr || var == kNoParent) return false;
    const NodeKind kind = index_.node(var).kind;
    if (kind != NodeKind::HeapVar && kind != NodeKind::StaticVarNode && kind != NodeKind::StackSlot) return false;
    it = patterns_.emplace(frame, evidence_->pattern_of(frame)).first;
  }
  *out = it->second;
  return true;
}

void ViewModel::prepare_row(ViewNode& row) {
  if (evidence_ == nullptr || row.kind != RowKind::Variable || row.ref >= report_.variables.size()) return;
  if (!evidence_->analyse(report_, row.ref)) return;
  const Variable& v = report_.variables[row.ref];
  for (const auto& [frame, pattern] : v.evidence.instruction_patterns) patterns_.emplace(frame, pattern);
  if (!v.accesses.empty()) row.pattern = v.accesses.front().pattern;
  for (size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c].kind == ColumnKind::Pattern) row.values[c] = variable_value(v, columns_[c]);
}

void ViewModel::prepare(ViewTree& t, size_t first, size_t count) {
  const std::vector<ViewNode*>& rows = t.rows();
  for (size_t r = first; r < rows.size() && r - first < count; ++r) prepare_row(*rows[r]);
}

void ViewModel::prepare_all() {
  if (evidence_ == nullptr) return;
  // Variable rows are the data-centric view's roots.
  for (const std::unique_ptr<ViewNode>& row : view(ViewKind::DataCentric).roots()) prepare_row(*row);
}

std::vector<std::unique_ptr<ViewNode>> ViewModel::data_roots() const {
  std::vector<std::unique_ptr<ViewNode>> rows;
  // As the report: variables without samples or page faults are not listed.
  for (size_t i = 0; i < report_.variables.size(); ++i)
    if (report_.variables[i].samples > 0 || report_.variables[i].page_faults > 0)
      rows.push_back(variable_row(i));
  return rows;
}

void ViewModel::build_data(ViewNode& node) const {
  switch (node.kind) {
    case RowKind::Variable: {
      const Variable& v = report_.variables[node.ref];
      const bool paths = !node.db_nodes.empty() && index_.has_children(node.db_nodes[0]);
      if (v.kind != VariableKind::Heap) {
        if (paths) node.children = merged_children(node.db_nodes);
        return;
      }
      auto alloc = make_row(RowKind::AllocationPath,
                            "allocation path: " + v.allocator + ", " + std::to_string(v.allocations) +
                                (v.allocations == 1 ? " block, " : " blocks, ") + human_bytes(v.bytes),
                            columns_.size());
      alloc->ref = node.ref;
      alloc->expandable = !v.allocation_path.empty();
      alloc->fixed_order = true;
      node.children.push_back(std::move(alloc));
      if (paths) {
        auto access = make_row(RowKind::AccessPaths, "access paths", columns_.size());
        access->db_nodes = node.db_nodes;
        access->expandable = true;
        set_bundle_values(*access);
        node.children.push_back(std::move(access));
      }
      return;
    }
    case RowKind::Group:
      for (const LibraryDetail& d : report_.variables[node.ref].libraries) {
        // The library's file name (its directory tells nothing the group does not) and a count
        // that fits the kind column: "/usr/lib/x86_64…a_btl_vader.so 9 va…bles" before.
        auto lib = make_row(RowKind::Library, std::string(basename_of(d.module)), columns_.size());
        lib->function = printable_line(d.module);  // searchable by its path
        lib->tag = std::to_string(d.variables) + (d.variables == 1 ? " var" : " vars");
        lib->bytes = d.bytes;
        lib->values[0] = static_cast<double>(d.samples);
        node.children.push_back(std::move(lib));
      }
      // Then what the group holds: its hottest variables, by name (MPI's segments, its queues).
      for (const GroupPart& p : report_.variables[node.ref].parts) {
        auto part = make_row(RowKind::GroupPart, printable_line(p.name), columns_.size());
        part->tag = "part";
        part->bytes = p.bytes;
        part->values[0] = static_cast<double>(p.samples);
        node.children.push_back(std::move(part));
      }
      return;
    case RowKind::AllocationPath: {
      const Variable& v = report_.variables[node.ref];
      for (size_t j = 0; j < v.allocation_path.size(); ++j) {
        const Location& loc = v.allocation_path[j];
        auto f = make_row(RowKind::AllocationFrame, location_label(loc), columns_.size());
        set_location(*f, loc);
        if (j == v.label_frame && j > 0) f->tag = "site";
        if (loc.wrapper) f->tag = "wrapper";
        node.children.push_back(std::move(f));
      }
      return;
    }
    case RowKind::InlineCaller:
      node.children = chain_rows(node.db_nodes, node.ref + 1);
      return;
    default:
      node.children = merged_children(node.db_nodes);
      return;
  }
}

std::vector<std::unique_ptr<ViewNode>> ViewModel::top_down_roots() const {
  std::vector<uint32_t> bundle;
  if (index_.size() == 0) return {};
  for (uint32_t root : index_.children(0)) {
    const NodeKind k = index_.node(root).kind;
    if (k == NodeKind::NoDataRoot) bundle.push_back(root);
    else if (k == NodeKind::HeapRoot || k == NodeKind::StaticRoot || k == NodeKind::UnknownRoot)
      for (uint32_t var : index_.children(root)) bundle.push_back(var);
  }
  return merged_children(bundle);
}

void ViewModel::build_top_down(ViewNode& node) const {
  node.children = node.kind == RowKind::InlineCaller ? chain_rows(node.db_nodes, node.ref + 1)
                                                     : merged_children(node.db_nodes);
}

// A code location's exclusive samples and counter events, added to a flat row.
void ViewModel::add_code_values(ViewNode& row, const CodeLocation& l) const {
  for (size_t c = 0; c < columns_.size(); ++c) {
    const Column& col = columns_[c];
    if (col.kind != ColumnKind::Metric && col.kind != ColumnKind::RawSamples) continue;
    double v = kNoValue;
    if (col.metric == kMetricSamples) v = static_cast<double>(l.samples);
    for (size_t k = 0; k < report_.counters.size() && k < l.counters.size(); ++k)
      if (report_.counters[k].metric == col.metric) v = static_cast<double>(l.counters[k]);
    if (has_value(v)) row.values[c] = has_value(row.values[c]) ? row.values[c] + v : v;
  }
}

std::vector<std::unique_ptr<ViewNode>> ViewModel::flat_roots() {
  std::vector<std::unique_ptr<ViewNode>> rows;
  std::map<std::pair<std::string, std::string>, size_t> by_function;
  const std::vector<CodeLocation>& locs = report_.locations;
  for (size_t i = 0; i < locs.size(); ++i) {
    const CodeLocation& l = locs[i];
    const std::string key = l.where.function.empty() ? l.label : l.where.function.str();
    auto [it, fresh] = by_function.try_emplace({key, l.where.module}, rows.size());
    if (fresh) {
      Location fn = l.where;
      fn.line = 0;
      auto row = make_row(RowKind::Function, l.where.function.empty() ? l.label : location_label(fn),
                          columns_.size());
      set_location(*row, fn);
      row->ref = function_lines_.size();
      row->expandable = !l.where.function.empty();  // an address alone has no lines to list
      function_lines_.emplace_back();
      rows.push_back(std::move(row));
    }
    ViewNode& fn = *rows[it->second];
    function_lines_[fn.ref].push_back(i);
    add_code_values(fn, l);
  }
  return rows;
}

void ViewModel::build_flat(ViewNode& node) const {
  for (size_t i : function_lines_[node.ref]) {
    const CodeLocation& l = report_.locations[i];
    auto row = make_row(RowKind::Line, l.label, columns_.size());
    set_location(*row, l.where);
    add_code_values(*row, l);
    node.children.push_back(std::move(row));
  }
}

}  // namespace hpcl::analysis
