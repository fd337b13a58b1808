// See watch_summary.h.
#include "watch_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report_model.h"

namespace hpcl::analysis {

bool is_false_sharing(uint64_t false_traps, uint64_t true_traps, uint64_t armed) {
  return false_traps >= kMinFalseTraps && false_traps > true_traps &&
         false_traps * kMaxArmingsPerFalse >= armed;
}

double log2_histogram_quantile(const std::vector<uint64_t>& bins, double q) {
  uint64_t total = 0;
  for (uint64_t b : bins) total += b;
  if (total == 0) return 0;
  const double want = q * static_cast<double>(total);
  double before = 0;
  for (size_t k = 0; k < bins.size(); ++k) {
    if (bins[k] == 0) continue;
    const double here = static_cast<double>(bins[k]);
    if (before + here >= want || k + 1 == bins.size()) {
      const double frac = std::min(1.0, std::max(0.0, (want - before) / here));
      if (k == 0) return 2.0 * frac;
      const double lo = std::ldexp(1.0, static_cast<int>(k));
      return lo * std::pow(2.0, frac);
    }
    before += here;
  }
  return 0;
}

WatchSummary watch_summary_of(const Node& node) {
  WatchSummary w;
  SharingSummary& s = w.sharing;
  s.false_traps = node.metric(kMetricWpFalse);
  s.true_traps = node.metric(kMetricWpTrue);
  s.threads = node.metric(kMetricWpThreads);
  s.lines = node.metric(kMetricWpLines);
  s.armed = node.metric(kMetricWpSharingArmed);
  for (uint16_t id = kMetricWpWordBase; id < kMetricWpWordEnd; ++id)
    if (node.metric(id) > 0) s.offsets.push_back(8u * (id - kMetricWpWordBase));
  s.present = s.armed > 0 || s.false_traps > 0 || s.true_traps > 0;
  s.false_sharing = is_false_sharing(s.false_traps, s.true_traps, s.armed);
  ReuseSummary& r = w.reuse;
  r.no_reuse = node.metric(kMetricWpNoReuse);
  r.armed = node.metric(kMetricWpReuseArmed);
  for (uint16_t id = kMetricWpReuseBase; id < kMetricWpReuseEnd; ++id) {
    r.histogram.push_back(node.metric(id));
    r.samples += r.histogram.back();
  }
  r.present = r.armed > 0 || r.samples > 0 || r.no_reuse > 0;
  r.median_ns = log2_histogram_quantile(r.histogram, 0.5);
  r.p10_ns = log2_histogram_quantile(r.histogram, 0.1);
  r.p90_ns = log2_histogram_quantile(r.histogram, 0.9);
  return w;
}

void attach_watch(const Profile& db, const std::vector<size_t>& rows, std::vector<Variable>& vars) {
  if (db.trees.empty()) return;
  for (const Node& n : db.trees[0].nodes) {
    size_t k;
    if (n.kind == NodeKind::HeapVar) k = n.a;
    else if (n.kind == NodeKind::StaticVarNode) k = db.sites.size() + n.a;
    else continue;
    const size_t i = k < rows.size() ? rows[k] : vars.size();
    if (i >= vars.size() || n.metrics.empty() || !is_watch_metric(n.metrics.back().id)) continue;
    vars[i].watch = watch_summary_of(n);
  }
}

std::string duration_text(double ns) {
  char buf[32];
  if (ns < 1e3) std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (ns < 1e6) std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  else if (ns < 1e9) std::snprintf(buf, sizeof buf, "%.1f ms", ns / 1e6);
  else std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  return buf;
}

namespace {
std::string plural(uint64_t n, const char* what, const char* many = nullptr) {
  return std::to_string(n) + " " + (n == 1 ? what : many ? many : std::string(what) + "s");
}
}  // namespace

std::string watch_text(const WatchSummary& w) {
  std::string out;
  const SharingSummary& s = w.sharing;
  if (s.present) {
    const std::string after = plural(s.armed, "sampled access", "sampled accesses");
    if (s.false_traps + s.true_traps == 0) {
      // The common case in a real program's list: short, so the variables that did trap stand out.
      out += "no sharing seen after " + after;
    } else {
      out += s.false_sharing ? "FALSE SHARING: " : "sharing: ";
      out += std::to_string(s.false_traps) + " false / " + std::to_string(s.true_traps) +
             " true traps after " + after;
      out += ", " + plural(s.threads, "thread") + ", " + plural(s.lines, "line") + ", offsets";
      for (size_t i = 0; i < s.offsets.size(); ++i)
        out += (i ? ", " : " ") + std::to_string(s.offsets[i]);
      out += " in the line";
    }
  }
  const ReuseSummary& r = w.reuse;
  if (r.present) {
    if (!out.empty()) out += "; ";
    if (r.samples > 0)
      out += "median reuse " + duration_text(r.median_ns) + " (p10 " + duration_text(r.p10_ns) + ", p90 " +
             duration_text(r.p90_ns) + "), " + plural(r.samples, "reuse");
    else
      out += "no reuse measured";
    out += ", " + std::to_string(r.no_reuse) + " not reused within the window";
  }
  return out;
}

}  // namespace hpcl::analysis
