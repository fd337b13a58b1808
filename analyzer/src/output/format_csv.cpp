// CSV report: a header row and one row per variable (data view) or source location (code view),
// with the text table's columns but raw numbers. Fields are quoted as RFC 4180 says: only when
// they contain a comma, a quote or a line break, with quotes doubled. Lines end with "\n".
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "exports.h"
#include "hpcl/text/format_common.h"
#include "formatters.h"

namespace hpcl::analysis {
namespace {

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

// The balance columns of one variable (empty without a BALANCE section): docs/REPORT.md.
std::vector<std::string> balance_cells(const Variable& v) {
  if (!v.has_balance) return std::vector<std::string>(12);
  std::vector<std::string> out;
  for (bool thread : {false, true}) {
    const BalanceStats& b = thread ? v.threads : v.ranks;
    out.push_back(std::to_string(b.count));
    for (double x : {b.min, b.mean, b.max}) out.push_back(fixed(x));
    out.push_back(b.with > 0 ? group_label(b.max_group, thread) : "");
    out.push_back(fixed(b.imbalance));
  }
  return out;
}

// Memory columns, only for a database with memory metrics: one per metric the whole program has,
// under its metric name, then the derived figures the program has (docs/REPORT.md).
std::vector<std::string> memory_headers(const MemoryStats& p) {
  std::vector<std::string> out;
  for (const Metric& m : p.sums) out.push_back(memory_metric_name(m.id));
  if (p.has_mean_latency) out.push_back("mean_latency");
  if (p.has_latency_per_instruction) out.push_back("latency_per_instruction");
  if (p.has_tlb) out.push_back("tlb_miss_rate");
  if (p.has_numa) out.push_back("numa_remote_share");
  return out;
}

// A variable's cells under memory_headers(p); a figure the variable lacks is empty.
std::vector<std::string> memory_cells(const MemoryStats& p, const MemoryStats& v) {
  std::vector<std::string> out;
  for (const Metric& m : p.sums) out.push_back(std::to_string(v.sum(m.id)));
  auto figure = [&](bool program, bool has, double x) {
    if (program) out.push_back(has ? fixed(x) : "");
  };
  figure(p.has_mean_latency, v.has_mean_latency, v.mean_latency);
  figure(p.has_latency_per_instruction, v.has_latency_per_instruction, v.latency_per_instruction);
  figure(p.has_tlb, v.has_tlb, v.tlb_miss_rate);
  figure(p.has_numa, v.has_numa, v.numa_remote_share);
  return out;
}

// The access evidence of a variable (docs/REPORT.md): the hottest access's pattern, the element
// and its fields ("name:offset:size:samples" joined by ';'), and the kinds of advice.
const std::vector<std::string> kEvidenceHeaders = {"pattern", "stride_bytes", "line_use", "element_type",
                                                   "element_size", "fields", "hot_bytes", "hot_share", "advice"};

std::vector<std::string> pattern_cells(const PatternView& p) {
  if (!p.analysed) return {"", "", ""};
  return {pattern_kind_name(p.kind), p.has_stride ? std::to_string(p.stride) : "", p.has_line_use ? fixed(p.line_use) : ""};
}

std::vector<std::string> evidence_cells(const Variable& v) {
  const AccessEvidence& e = v.evidence;
  std::vector<std::string> out = pattern_cells(v.accesses.empty() ? PatternView{} : v.accesses.front().pattern);
  out.push_back(e.has_element ? e.element_type : "");
  out.push_back(e.has_element ? std::to_string(e.element_size) : "");
  std::string fields, advice;
  for (const FieldShare& f : e.fields)
    fields += (fields.empty() ? "" : ";") + f.name + ":" + std::to_string(f.offset) + ":" + std::to_string(f.size) + ":" +
              std::to_string(std::llround(f.samples));
  for (const Advice& a : e.advice) advice += (advice.empty() ? "" : ";") + a.kind;
  out.push_back(fields);
  out.push_back(e.fields.empty() ? "" : std::to_string(e.hot_bytes));
  out.push_back(e.fields.empty() ? "" : fixed(e.hot_share));
  out.push_back(advice);
  return out;
}

void row(std::ostream& out, const std::vector<std::string>& cells) {
  bool first = true;
  for (const std::string& c : cells) {
    if (!first) out << ',';
    out << csv_field(c);
    first = false;
  }
  out << '\n';
}

}  // namespace

void write_csv(const ReportModel& m, const ReportOptions& options, std::ostream& out) {
  if (options.view == View::Data) {
    std::vector<std::string> headers = {
        "rank", "variable", "kind", "share", "share_low", "share_high", "samples", "bytes",
        "allocations", "sampled", "allocation_site", "module", "hottest_access",
        "ranks", "ranks_min", "ranks_mean", "ranks_max", "ranks_max_rank", "ranks_imbalance",
        "threads", "threads_min", "threads_mean", "threads_max", "threads_max_thread",
        "threads_imbalance"};
    std::vector<std::string> memory = memory_headers(m.memory);
    headers.insert(headers.end(), memory.begin(), memory.end());
    headers.insert(headers.end(), kEvidenceHeaders.begin(), kEvidenceHeaders.end());
    row(out, headers);
    size_t n = rows_to_print(m.variables.size(), options.top);
    for (size_t i = 0; i < n; ++i) {
      const Variable& v = m.variables[i];
      std::vector<std::string> cells = {
          std::to_string(i + 1), v.name, kind_name(v.kind), fixed(v.share), fixed(v.share_low),
          fixed(v.share_high), std::to_string(v.samples), std::to_string(v.bytes),
          std::to_string(v.allocations), v.sampled ? "1" : "0", v.allocation_site, v.module,
          v.hottest_access};
      std::vector<std::string> balance = balance_cells(v);
      cells.insert(cells.end(), balance.begin(), balance.end());
      std::vector<std::string> mem = memory_cells(m.memory, v.memory);
      cells.insert(cells.end(), mem.begin(), mem.end());
      std::vector<std::string> evidence = evidence_cells(v);
      cells.insert(cells.end(), evidence.begin(), evidence.end());
      row(out, cells);
    }
  } else {
    std::vector<std::string> header = {"rank", "function", "file", "line", "module", "label",
                                       "share", "samples", "data_samples"};
    for (const Counter& c : m.counters) header.push_back(c.event);
    row(out, header);
    size_t n = rows_to_print(m.locations.size(), options.top);
    for (size_t i = 0; i < n; ++i) {
      const CodeLocation& c = m.locations[i];
      std::vector<std::string> cells = {std::to_string(i + 1), c.where.function, c.where.file,
                                        std::to_string(c.where.line), c.where.module, c.label,
                                        fixed(c.share), std::to_string(c.samples),
                                        std::to_string(c.data_samples)};
      for (uint64_t events : c.counters) cells.push_back(std::to_string(events));
      row(out, cells);
    }
  }
}

// One row per variable and access path, hottest variable first, then its accesses hottest
// first. The samples of a variable that no access path holds (a Group row) are one row with
// access 0 and an empty path, so each variable's rows add up to its samples.
void write_csv_accesses(const ReportModel& m, const ReportOptions& options, std::ostream& out) {
  row(out, {"rank", "variable", "kind", "variable_samples", "access", "samples", "share",
            "variable_share", "leaf", "function", "file", "line", "module", "path",
            "allocation_site", "pattern", "stride_bytes", "line_use"});
  const double total = static_cast<double>(m.total_samples);
  size_t n = rows_to_print(m.variables.size(), options.top);
  for (size_t i = 0; i < n; ++i) {
    const Variable& v = m.variables[i];
    auto access_row = [&](size_t k, uint64_t samples, const std::vector<Location>& path, const PatternView& pattern) {
      std::string joined;
      for (auto it = path.rbegin(); it != path.rend(); ++it)
        joined += (joined.empty() ? "" : " > ") + location_label(*it);
      const Location none;
      const Location& leaf = path.empty() ? none : path.front();
      std::vector<std::string> cells = {std::to_string(i + 1), v.name, kind_name(v.kind), std::to_string(v.samples),
                std::to_string(k), std::to_string(samples),
                fixed(total > 0 ? static_cast<double>(samples) / total : 0),
                fixed(v.samples > 0 ? static_cast<double>(samples) / static_cast<double>(v.samples) : 0),
                path.empty() ? "" : location_label(leaf), leaf.function, leaf.file,
                path.empty() ? "" : std::to_string(leaf.line), leaf.module, joined,
                v.allocation_site};
      for (std::string& c : pattern_cells(pattern)) cells.push_back(std::move(c));
      row(out, cells);
    };
    uint64_t held = 0;
    for (size_t k = 0; k < v.accesses.size(); ++k) {
      access_row(k + 1, v.accesses[k].samples, v.accesses[k].path, v.accesses[k].pattern);
      held += v.accesses[k].samples;
    }
    if (held < v.samples) access_row(0, v.samples - held, {}, PatternView{});
  }
}

}  // namespace hpcl::analysis
