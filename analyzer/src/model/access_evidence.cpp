// See access_evidence.h.
#include "access_evidence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "advice.h"
#include "report_model.h"
#include "symbols/code_facts.h"

namespace hpcl::analysis {
namespace {

PatternView view_of(const InstructionFacts& f) {
  const AccessPattern& p = f.pattern;
  PatternView v;
  v.analysed = true;
  v.unreadable = f.unreadable;
  v.kind = p.kind;
  v.has_stride = p.has_stride;
  v.stride = p.stride;
  v.has_line_use = p.has_line_use;
  v.line_use = p.line_use;
  v.size = p.size;
  v.has_outer_stride = p.has_outer_stride;
  v.outer_stride = p.outer_stride;
  v.why = f.why;
  return v;
}

std::string element_key(const DataType& t) { return t.name + "/" + std::to_string(t.size); }

std::string percent0(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100.0);
  return buf;
}

// The fields of `e`'s element that the typed instructions' loops read, their samples spread over
// the bytes each loop reads per iteration through the sampled access's address (its group): a
// timer sample lands on one of the loop's accesses, often not the one that missed (the soft
// source charges the instruction that waited, docs/DESIGN.md), while the line the loop fetches
// serves them all.
using Typed = std::vector<std::pair<const InstructionFacts*, uint64_t>>;

// Each typed access's samples over the fields of `t` its loop reads, by field offset.
std::map<uint64_t, FieldShare> field_shares(const DataType& t, const Typed& typed) {
  std::map<uint64_t, FieldShare> by_offset;
  for (const auto& [f, samples] : typed) {
    // Byte spans of one element, the group folded into it (an access may run past the element's
    // end, a vector load into the next one: wrapped).
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    std::vector<std::pair<int64_t, uint32_t>> group = f->pattern.group;
    if (group.empty()) group.emplace_back(0, f->pattern.size);
    const int64_t E = static_cast<int64_t>(t.size);
    for (const auto& [rel, bytes] : group) {
      int64_t at = (static_cast<int64_t>(f->offset_in_element) + rel) % E;
      if (at < 0) at += E;
      for (uint64_t left = std::max<uint32_t>(bytes, 1); left > 0 && spans.size() < 64;) {
        const uint64_t n = std::min<uint64_t>(left, static_cast<uint64_t>(E - at));
        spans.emplace_back(static_cast<uint64_t>(at), n);
        left -= n;
        at = 0;
      }
    }
    uint64_t total = 0;
    for (const auto& [off, n] : spans) total += n;
    for (const auto& [off, n] : spans)
      for (const DataMember* m : t.members_at(off, n)) {
        const uint64_t from = std::max(off, m->offset), to = std::min(off + n, m->offset + std::max<uint64_t>(m->size, 1));
        FieldShare& fs = by_offset[m->offset];
        fs.name = m->name;
        fs.offset = m->offset;
        fs.size = m->size;
        fs.samples += static_cast<double>(samples) * static_cast<double>(to - from) / static_cast<double>(total);
      }
  }
  return by_offset;
}

// The fields every typed access reads (e.fields), and the hot fields of the loop that matters:
// the typed accesses grouped by their innermost loop (its header; accesses in no loop are one
// group), the group with the most samples. `labels[i]` is typed[i]'s line.
void add_fields(const DataType& t, const Typed& typed, const std::vector<std::string>& labels,
                double variable_samples, AccessEvidence& e) {
  for (const auto& [f, samples] : typed) e.typed_samples += static_cast<double>(samples);
  for (auto& [off, fs] : field_shares(t, typed)) e.fields.push_back(fs);
  std::map<uint64_t, uint64_t> by_loop;
  for (const auto& [f, samples] : typed) by_loop[f->pattern.loop_head] += samples;
  uint64_t loop = 0, most = 0;
  for (const auto& [head, samples] : by_loop)
    if (samples > most) loop = head, most = samples;
  Typed focus;
  size_t hottest = typed.size();
  for (size_t i = 0; i < typed.size(); ++i)
    if (typed[i].first->pattern.loop_head == loop) {
      focus.push_back(typed[i]);
      if (hottest == typed.size() || typed[i].second > typed[hottest].second) hottest = i;
    }
  if (by_loop.size() > 1 && hottest < labels.size()) e.hot_loop = labels[hottest];
  e.hot_loop_share = variable_samples > 0 ? static_cast<double>(most) / variable_samples : 0;
  // The hot fields: the fewest, hottest first, that hold 90% of that loop's samples.
  std::vector<FieldShare> order;
  for (auto& [off, fs] : field_shares(t, focus)) order.push_back(fs);
  std::stable_sort(order.begin(), order.end(), [](const FieldShare& a, const FieldShare& b) { return a.samples > b.samples; });
  double held = 0;
  for (const FieldShare& f : order) {
    if (held >= 0.9 * static_cast<double>(most)) break;
    held += f.samples;
    e.hot_bytes += f.size;
    e.hot_fields.push_back(f.name);
  }
  e.hot_share = most > 0 ? held / static_cast<double>(most) : 0;
}

// Its element type and fields from the instructions' facts.
void add_element(const Variable& v, CodeFacts& facts, const std::vector<std::pair<const InstructionFacts*, uint64_t>>& insns,
                 const std::vector<std::string>& insn_labels, AccessEvidence& e) {
  std::optional<DataType> type;
  std::string why;
  if (e.is_static) type = facts.static_type(e.static_module, e.static_offset, &why);
  std::vector<std::pair<const InstructionFacts*, uint64_t>> typed;
  std::vector<std::string> labels;  // of the typed ones
  auto take = [&](size_t i) {
    typed.push_back(insns[i]);
    labels.push_back(insn_labels[i]);
  };
  if (e.is_static) {
    for (size_t i = 0; i < insns.size(); ++i) {
      const InstructionFacts* f = insns[i].first;
      if (type && f->in_static && f->static_start == e.static_offset && f->offset_known &&
          f->element && element_key(*f->element) == element_key(*type))
        take(i);
    }
  } else {
    // The element type most samples read; instructions reading another one are not counted.
    std::map<std::string, std::pair<uint64_t, const DataType*>> votes;
    for (const auto& [f, samples] : insns)
      if (f->element && f->offset_known) {
        auto& vote = votes[element_key(*f->element)];
        vote.first += samples;
        vote.second = &*f->element;
      }
    const DataType* best = nullptr;
    uint64_t most = 0;
    for (const auto& [key, vote] : votes)
      if (vote.first > most) most = vote.first, best = vote.second;
    if (best != nullptr) {
      type = *best;
      for (size_t i = 0; i < insns.size(); ++i) {
        const InstructionFacts* f = insns[i].first;
        if (f->element && f->offset_known && element_key(*f->element) == element_key(*best)) take(i);
      }
    }
  }
  if (!type) {
    // Why not, as the most sampled instruction without a type says.
    uint64_t most = 0;
    for (const auto& [f, samples] : insns)
      if (!f->type_why.empty() && samples > most) most = samples, why = f->type_why;
    e.fields_note = "no fields known: " + (why.empty() ? std::string("no DWARF type found for its accesses") : why);
    return;
  }
  e.has_element = true;
  e.element_type = type->name;
  e.element_size = type->size;
  e.dims = type->dims;
  e.pitches = type->pitches;
  e.column_major = type->column_major;
  if (type->members.empty()) {
    e.fields_note = "no fields: its elements are " + type->name + " (" + std::to_string(type->size) + " bytes)";
    for (const auto& [f, samples] : typed) e.typed_samples += static_cast<double>(samples);
    return;
  }
  if (typed.empty()) {
    e.fields_note = "no fields known: no sampled access's offset into its " + type->name + " is known";
    return;
  }
  add_fields(*type, typed, labels, static_cast<double>(v.samples), e);
}

}  // namespace

std::string line_label(const LinePattern& l) {
  return l.caller.empty() ? l.label : l.label + " \u2190 " + l.caller;
}

std::string pattern_text(const PatternView& p, bool with_why) {
  if (!p.analysed) return "-";
  std::string s = pattern_kind_name(p.kind);
  if (p.kind == PatternKind::Strided && p.has_stride) {
    s += " " + std::to_string(p.stride) + " B";
    if (p.has_line_use) {
      const double used = p.line_use * 64.0;
      char buf[48];
      std::snprintf(buf, sizeof buf, ", %.0f of 64 B per line", used);
      s += buf;
    }
  }
  if (with_why && !p.why.empty() && p.kind != PatternKind::Sequential && p.kind != PatternKind::Strided)
    s += ": " + p.why;
  return s;
}

std::string hot_bytes_text(const AccessEvidence& e) {
  if (e.fields.empty() || e.element_size == 0) return {};
  return std::to_string(e.hot_bytes) + " of " + std::to_string(e.element_size) + " bytes take " +
         percent0(e.hot_share) + (e.hot_loop.empty() ? " of the samples" : " of the samples of " + e.hot_loop);
}

EvidenceBuilder::EvidenceBuilder(const Profile& db)
    : db_(db), facts_(std::make_unique<CodeFacts>(db.modules)) {}
EvidenceBuilder::~EvidenceBuilder() = default;

bool EvidenceBuilder::analysable(const Variable& v) {
  return (v.kind == VariableKind::Heap || v.kind == VariableKind::Static || v.kind == VariableKind::Stack) &&
         v.samples > 0 &&
         !v.evidence.analysed && !v.evidence.instructions.empty();
}

PatternView EvidenceBuilder::pattern_of(Frame frame) {
  return view_of(facts_->at(frame.module, frame.offset));
}

bool EvidenceBuilder::analyse(ReportModel& m, size_t row) {
  if (db_.trees.empty() || row >= m.variables.size() || !analysable(m.variables[row])) return false;
  const Tree& tree = db_.trees[0];
  CodeFacts& facts = *facts_;
  Variable& v = m.variables[row];
  AccessEvidence& e = v.evidence;
  // One entry per instruction and caller (code the Python interpreter ran is told apart by the
  // Python line that ran it, found with the code view's locations), hottest first (ties by address, for a stable output).
  std::sort(e.instructions.begin(), e.instructions.end(), [](const auto& a, const auto& b) {
    return a.frame != b.frame ? a.frame < b.frame : a.caller < b.caller;
  });
  std::vector<AccessEvidence::Instruction> merged;
  for (auto& x : e.instructions) {
    if (!merged.empty() && merged.back().frame == x.frame && merged.back().caller == x.caller)
      merged.back().samples += x.samples;
    else merged.push_back(std::move(x));
  }
  std::stable_sort(merged.begin(), merged.end(), [](const auto& a, const auto& b) { return a.samples > b.samples; });
  e.instructions = std::move(merged);
  e.analysed = true;
  std::vector<std::pair<const InstructionFacts*, uint64_t>> insns;
  std::vector<std::string> insn_labels;  // each one's line
  std::map<Frame, PatternView> views;
  std::map<std::tuple<std::string, std::string, int, int64_t>, size_t> line_index;
  for (const auto& x : e.instructions) {
    const InstructionFacts& f = facts.at(x.frame.module, x.frame.offset);
    insns.emplace_back(&f, x.samples);
    const PatternView pv = view_of(f);
    views[x.frame] = pv;
    const Location* leaf = m.expander->access_leaf(x.leaf);
    const std::string label = leaf != nullptr ? location_label(*leaf) : "?";
    insn_labels.push_back(label);
    auto key = std::make_tuple(label, x.caller, static_cast<int>(pv.kind), pv.has_stride ? pv.stride : INT64_MIN);
    auto [it, fresh] = line_index.try_emplace(key, e.lines.size());
    if (fresh) e.lines.push_back(LinePattern{leaf != nullptr ? *leaf : Location{}, label, x.caller, 0, pv});
    e.lines[it->second].samples += x.samples;
  }
  std::stable_sort(e.lines.begin(), e.lines.end(), [](const LinePattern& a, const LinePattern& b) { return a.samples > b.samples; });
  e.unreadable = std::all_of(insns.begin(), insns.end(), [](const auto& x) { return x.first->unreadable; });
  e.instruction_patterns.assign(views.begin(), views.end());
  for (AccessPath& a : v.accesses) {
    if (a.leaf >= tree.nodes.size()) continue;
    const Node& n = tree.nodes[a.leaf];
    auto it = views.find(Frame{n.a, n.b});
    if (it != views.end()) a.pattern = it->second;
  }
  add_element(v, facts, insns, insn_labels, e);
  e.advice = advise(v, m);
  std::vector<AccessEvidence::Instruction>().swap(e.instructions);
  return true;
}

void EvidenceBuilder::add_notes(ReportModel& m) const {
  const std::vector<std::string> unreadable = facts_->unreadable();
  if (!unreadable.empty()) {
    std::string note = "Access patterns and fields come from the program's binaries, read at report time; not read:";
    for (size_t i = 0; i < unreadable.size(); ++i) note += (i == 0 ? " " : ", ") + unreadable[i];
    m.notes.push_back(note + ".");
  }
}

void add_access_evidence(const Profile& db, ReportModel& m, size_t rows, bool keep_rest) {
  if (db.trees.empty()) return;
  EvidenceBuilder builder(db);
  for (size_t row = 0; row < m.variables.size(); ++row) {
    if (row < rows) builder.analyse(m, row);
    // What is left unanalysed is dropped, unless a viewer analyses it when it shows the row.
    AccessEvidence& e = m.variables[row].evidence;
    if (e.analysed || !keep_rest) std::vector<AccessEvidence::Instruction>().swap(e.instructions);
  }
  builder.add_notes(m);
}

}  // namespace hpcl::analysis
