// See advice.h. The thresholds: a rule speaks for accesses that carry at least kMinShare of the
// variable's samples (a tenth for a stride, which one hot diagnostic loop can make the whole
// story; 30% for indirect and dependent accesses, which are often a minor path through a table);
// a stride is "large" beyond one 64-byte line; a structure is "large" from 32 bytes, and its hot
// fields "few" when they hold at most half its bytes and at least half the variable's samples. The
// order of the accesses matters only for data larger than a core's first-level cache: a variable
// under 64 KiB gets no advice on its traversal, its layout or its index (LAMMPS's 64-byte pair
// coefficient tables, read through the neighbour list's atom types, got "sort the index").
#include "advice.h"

#include <cstdio>
#include <cstdlib>

#include "report_model.h"

namespace hpcl::analysis {
namespace {

constexpr double kStrideMinShare = 0.10;
constexpr double kIrregularMinShare = 0.30;
constexpr int64_t kLine = 64;
constexpr uint64_t kLargeElement = 32;
constexpr uint64_t kManyBlocks = 64;
constexpr uint64_t kSmallBlock = 1024;
constexpr uint64_t kCacheResident = 64 * 1024;
// The loop whose fields split_structure judges must matter: a quarter of the variable's samples.
constexpr double kSplitMinLoopShare = 0.25;

std::string grouped(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

std::string pct(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100.0);
  return buf;
}

// "x", "x and y", "x, y and z", "x, y, z and 2 more".
std::string names(const std::vector<std::string>& n) {
  std::string s;
  const size_t shown = n.size() > 4 ? 3 : n.size();
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) s += i + 1 == shown && shown == n.size() ? " and " : ", ";
    s += n[i];
  }
  if (shown < n.size()) s += " and " + std::to_string(n.size() - shown) + " more";
  return s;
}

// The share of the samples whose pattern is `kind`, and its hottest line.
double share_of(const AccessEvidence& e, PatternKind kind, uint64_t total, const LinePattern** hottest) {
  uint64_t n = 0;
  *hottest = nullptr;
  for (const LinePattern& l : e.lines)
    if (l.pattern.kind == kind) {
      n += l.samples;
      if (*hottest == nullptr) *hottest = &l;
    }
  return total > 0 ? static_cast<double>(n) / static_cast<double>(total) : 0;
}

void storage_order(const Variable& v, std::vector<Advice>& out) {
  const AccessEvidence& e = v.evidence;
  if (v.bytes < kCacheResident) return;
  for (const LinePattern& l : e.lines) {
    const PatternView& p = l.pattern;
    if (p.kind != PatternKind::Strided || !p.has_stride) continue;
    const int64_t S = std::llabs(p.stride);
    const double share = v.samples > 0 ? static_cast<double>(l.samples) / static_cast<double>(v.samples) : 0;
    if (S <= kLine || share < kStrideMinShare) continue;
    // A walk over whole structures is split_structure's case.
    if (!e.fields.empty() && e.element_size > 0 && S % static_cast<int64_t>(e.element_size) == 0) continue;
    std::string text = l.label + " walks it with a constant stride of " + grouped(static_cast<uint64_t>(S)) + " bytes";
    bool dims = false;
    for (size_t k = 0; k < e.pitches.size(); ++k) {
      const bool contiguous = e.column_major ? k == 0 : k + 1 == e.pitches.size();
      if (contiguous || static_cast<int64_t>(e.pitches[k]) != S) continue;
      static const char* const kOrdinal[] = {"first", "second", "third", "fourth"};
      std::string shape;
      for (size_t d = 0; d < e.dims.size(); ++d)
        shape += e.column_major ? (d ? "," : "(") + std::to_string(e.dims[d]) : "[" + std::to_string(e.dims[d]) + "]";
      if (e.column_major) shape += ")";
      text += ", the pitch of its " + (k < 4 ? std::string(kOrdinal[k]) : "index " + std::to_string(k + 1)) +
              " index (" + e.element_type + " " + shape;
      if (e.dims.size() == 2) text += e.column_major ? ": a column" : ": a row";
      text += ")";
      dims = true;
      break;
    }
    if (p.has_line_use) {
      char used[32];
      std::snprintf(used, sizeof used, "%.0f", p.line_use * 64.0);
      text += ", using " + std::string(used) + " of each 64-byte line it touches";
    }
    text += " (" + pct(share) + " of its samples)";
    const bool nest = p.has_outer_stride && p.outer_stride != 0 && std::llabs(p.outer_stride) < S;
    if (nest) {
      const int64_t step = std::llabs(p.outer_stride);
      text += "; the enclosing loop moves it by " + grouped(static_cast<uint64_t>(step)) + " bytes";
      if (!dims && S % step == 0)
        text += ", so the stride is a row of " + grouped(static_cast<uint64_t>(S / step)) + " elements of that size";
    }
    text += ". Traverse it in storage order (the loop over the contiguous index innermost)";
    if (nest || dims) text += ", or interchange the two loops";
    out.push_back(Advice{"storage_order", text + "."});
    return;
  }
}

void split_structure(const Variable& v, std::vector<Advice>& out) {
  const AccessEvidence& e = v.evidence;
  if (e.fields.empty() || e.element_size < kLargeElement || e.hot_fields.empty() || v.bytes < kCacheResident) return;
  if (2 * e.hot_bytes > e.element_size || e.hot_share < 0.5 || e.hot_loop_share < kSplitMinLoopShare) return;
  // Judged on the loop that matters (access_evidence.h): said so when the variable has more.
  std::string of = " of its samples";
  if (!e.hot_loop.empty())
    of = " of the samples of its hottest loop, " + e.hot_loop + ", which has " + pct(e.hot_loop_share) + " of its samples";
  else if (e.hot_loop_share < 0.95)
    of = " of the samples of the loop that reads it, which has " + pct(e.hot_loop_share) + " of its samples";
  std::string text = std::string(e.hot_fields.size() == 1 ? "Field " : "Fields ") + names(e.hot_fields) + " (" +
                     std::to_string(e.hot_bytes) + " of the " + std::to_string(e.element_size) + " bytes of " +
                     e.element_type + ") " + (e.hot_fields.size() == 1 ? "takes " : "take ") + pct(e.hot_share) + of;
  for (const LinePattern& l : e.lines)
    if (l.pattern.kind == PatternKind::Strided && l.pattern.has_stride &&
        static_cast<uint64_t>(std::llabs(l.pattern.stride)) == e.element_size) {
      text += "; " + l.label + " walks it element by element, so every line it loads carries the other fields too";
      break;
    }
  text += ". Split the structure, the hot fields apart from the rest, or make it a structure of arrays (an array per field).";
  out.push_back(Advice{"split_structure", text});
}

void contiguous_allocation(const Variable& v, std::vector<Advice>& out) {
  if (v.kind != VariableKind::Heap || v.allocations < kManyBlocks) return;
  const uint64_t mean = v.bytes / v.allocations;
  if (mean > kSmallBlock) return;
  const LinePattern* l = nullptr;
  const double share = share_of(v.evidence, PatternKind::Dependent, v.samples, &l);
  if (share < kIrregularMinShare || l == nullptr) return;
  std::string text = l->label + " reaches it by pointer chasing (" + pct(share) + " of its samples), one node at a time among " +
                     (v.sampled ? "at least " : "") + grouped(v.allocations) + " blocks of " + grouped(mean) +
                     " bytes on average from this allocation site. Allocate the nodes contiguously, from a pool or an "
                     "array, in the order they are walked.";
  out.push_back(Advice{"contiguous_allocation", text});
}

void sort_index(const Variable& v, std::vector<Advice>& out) {
  if (v.bytes < kCacheResident) return;
  const LinePattern* l = nullptr;
  const double share = share_of(v.evidence, PatternKind::Indirect, v.samples, &l);
  if (share < kIrregularMinShare || l == nullptr) return;
  out.push_back(Advice{"sort_index", l->label + " reads it through indices or pointers loaded in the loop (indirect, " +
                                         pct(share) + " of its samples). Where the indices do not follow the data's "
                                         "storage order, sort them (or the data in their order), or block the loop so "
                                         "that each block's accesses stay in cache; a table of row pointers walked in "
                                         "order needs no change."});
}

void pad_shared_fields(const Variable& v, std::vector<Advice>& out) {
  const SharingSummary& s = v.watch.sharing;
  if (!s.false_sharing) return;
  std::string offsets;
  for (size_t i = 0; i < s.offsets.size(); ++i) offsets += (i ? ", " : "") + std::to_string(s.offsets[i]);
  std::string text = "Threads write different words of the same 64-byte lines (" + grouped(s.false_traps) +
                     " false-sharing traps against " + grouped(s.true_traps) + " true ones";
  if (!offsets.empty()) text += ", at byte offsets " + offsets + " of the line";
  text += "). Pad or align what each thread writes so that it has a line of its own (alignas(64) on the "
          "per-thread fields or elements).";
  out.push_back(Advice{"pad_shared_fields", text});
}

void parallel_first_touch(const Variable& v, const ReportModel& m, std::vector<Advice>& out) {
  const FirstTouch& t = v.first_touch;
  if (v.page_faults == 0 || !t.serial || !v.has_balance || v.threads.with < 2) return;
  std::string text = "One thread took all " + grouped(v.page_faults) + " of its page faults (its first touch), and " +
                     std::to_string(v.threads.with) + " threads access it. Initialise it in parallel, with the loop "
                     "schedule of the computation that uses it, so that each page sits on the NUMA node of the "
                     "thread that uses it";
  if (m.numa_nodes == 1) text += " (this machine has one NUMA node: the gain is on machines with several)";
  out.push_back(Advice{"parallel_first_touch", text + "."});
}

}  // namespace

std::vector<Advice> advise(const Variable& v, const ReportModel& m) {
  std::vector<Advice> out;
  storage_order(v, out);
  split_structure(v, out);
  contiguous_allocation(v, out);
  sort_index(v, out);
  pad_shared_fields(v, out);
  parallel_first_touch(v, m, out);
  return out;
}

}  // namespace hpcl::analysis
