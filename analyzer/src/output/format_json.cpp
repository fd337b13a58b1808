// The JSON report. The schema is documented in docs/REPORT.md; field names and nesting are a
// contract with scripts, so change them only together with that document and its version.
#include <cmath>

#include "hpcl/text/format_common.h"
#include "formatters.h"
#include "json_writer.h"
#include "model/stats.h"

namespace hpcl::analysis {
namespace {

constexpr int kShareDecimals = 6;
constexpr int kEstimateDecimals = 1;

void write_location(JsonWriter& w, const Location& l) {
  w.begin_object(/*inline_=*/true);
  w.field("function", l.function);
  w.field("file", l.file);
  w.field("line", l.line);
  w.field("module", l.module);
  if (l.has_address) {
    w.field("offset", l.offset);
  }
  if (l.tail_call) {
    w.field("tail_call", true);
  }
  if (l.omp_region) {
    w.field("omp_region", true);
  }
  if (l.wrapper) {
    w.field("wrapper", true);
  }
  w.end_object();
}

void write_path(JsonWriter& w, const std::vector<Location>& path) {
  w.begin_array();
  for (const Location& l : path) write_location(w, l);
  w.end_array();
}

void write_samples(JsonWriter& w, uint64_t samples, const uint64_t* data_samples = nullptr) {
  w.key("metrics");
  w.begin_object(true);
  w.field("samples", samples);
  if (data_samples != nullptr) {
    w.field("data_samples", *data_samples);
  }
  w.end_object();
}

void write_offsets(JsonWriter& w, const Variable& v) {
  w.key("offsets");
  w.begin_object();
  w.key("bins");
  w.begin_array(/*inline_=*/true);
  for (uint64_t b : v.offset_bins) w.value(b);
  w.end_array();
  w.field("min", v.offset_min);
  w.field("max", v.offset_max);
  HotRange r = hot_range(v.offset_bins, 0.8);
  const double nbins = static_cast<double>(v.offset_bins.size());
  w.key("hot");
  w.begin_object(true);
  w.field_fixed("from", r.first / nbins, kShareDecimals);
  w.field_fixed("to", r.count > 0 ? (r.last + 1) / nbins : 0, kShareDecimals);
  w.field("samples", r.count);
  w.end_object();
  w.end_object();
}

void write_libraries(JsonWriter& w, const Variable& v) {
  w.key("libraries");
  w.begin_array();
  for (const LibraryDetail& d : v.libraries) {
    w.begin_object(true);
    w.field("module", d.module);
    w.field("variables", d.variables);
    w.field("samples", d.samples);
    w.field("bytes", d.bytes);
    w.field_fixed("share", d.share, kShareDecimals);
    w.end_object();
  }
  w.end_array();
  w.key("parts");
  w.begin_array();
  for (const GroupPart& p : v.parts) {
    w.begin_object(true);
    w.field("name", p.name);
    w.field("samples", p.samples);
    w.field_fixed("samples_estimated", p.samples_estimated, kEstimateDecimals);
    w.field("bytes", p.bytes);
    w.end_object();
  }
  w.end_array();
}

// "ranks" and "threads": docs/REPORT.md. max_rank -1 names a process without a rank, which
// max_pid then names; a thread is max_rank, max_pid and max_thread (its tree in the process).
void write_balance(JsonWriter& w, const char* key, const BalanceStats& b, bool thread) {
  w.key(key);
  w.begin_object(true);
  w.field("count", b.count);
  w.field("with_samples", b.with);
  w.field_fixed("min", b.min, kEstimateDecimals);
  w.field_fixed("mean", b.mean, kEstimateDecimals);
  w.field_fixed("max", b.max, kEstimateDecimals);
  w.field_fixed("stddev", b.stddev, kEstimateDecimals);
  w.field("max_rank", b.with > 0 ? b.max_group.rank : int64_t{-1});
  if (thread || (b.with > 0 && b.max_group.rank < 0)) w.field("max_pid", b.max_group.pid);
  if (thread) w.field("max_thread", b.max_group.thread);
  w.field_fixed("imbalance", b.imbalance, kShareDecimals);
  w.end_object();
}

// "memory": the raw sums under their metric names, then the figures derived from them, each only
// when its metrics are present (docs/REPORT.md).
void write_memory_fields(JsonWriter& w, const MemoryStats& s) {
  w.key("metrics");
  w.begin_object(true);
  for (const Metric& m : s.sums) w.field(memory_metric_name(m.id), m.value);
  w.end_object();
  if (s.has_mean_latency) w.field_fixed("mean_latency", s.mean_latency, kEstimateDecimals);
  if (s.has_latency_per_instruction)
    w.field_fixed("latency_per_instruction", s.latency_per_instruction, kShareDecimals);
  if (!s.levels.empty()) {
    w.key("data_sources");
    w.begin_array();
    for (const LevelShare& l : s.levels) {
      w.begin_object(true);
      w.field("level", memory_metric_name(l.id));
      w.field("samples", l.samples);
      w.field_fixed("share", l.share, kShareDecimals);
      w.end_object();
    }
    w.end_array();
  }
  if (s.has_tlb) w.field_fixed("tlb_miss_rate", s.tlb_miss_rate, kShareDecimals);
  if (s.has_numa) w.field_fixed("numa_remote_share", s.numa_remote_share, kShareDecimals);
}

void write_assessment(JsonWriter& w, const MemoryAssessment& a) {
  w.key("assessment");
  w.begin_object();
  w.field("verdict", boundness_name(a.verdict));
  w.field_fixed("threshold", kMemoryBoundLatencyPerInstruction, 1);
  if (a.verdict != Boundness::Unknown)
    w.field_fixed("latency_per_instruction", a.latency_per_instruction, kShareDecimals);
  if (a.has_period) w.field("period", a.period);
  if (a.has_instructions) w.field("instructions", a.instructions);
  if (a.has_cycles) w.field("cycles", a.cycles);
  if (a.cycles_per_instruction > 0)
    w.field_fixed("cycles_per_instruction", a.cycles_per_instruction, kShareDecimals);
  w.field_fixed("memory_instruction_share", a.memory_instruction_share, kShareDecimals);
  w.key("missing");
  w.begin_array(true);
  for (const std::string& m : a.missing) w.value(m);
  w.end_array();
  w.end_object();
}

// "first_touch": who first touched the variable's pages (docs/REPORT.md). threads and
// top_thread_* only when the database has the FIRST_TOUCH section; nodes by NUMA node number.
void write_first_touch(JsonWriter& w, const Variable& v) {
  const FirstTouch& t = v.first_touch;
  w.key("first_touch");
  w.begin_object();
  w.field("page_faults", v.page_faults);
  if (t.has_threads) {
    w.field("threads", t.threads);
    w.field("run_threads", t.run_threads);
    w.field_fixed("top_thread_share", t.top_share, kShareDecimals);
    w.field("top_thread_rank", t.top_thread.rank);
    w.field("top_thread_pid", t.top_thread.pid);
    w.field("top_thread", t.top_thread.thread);
    w.field("serial", t.serial);
  }
  w.key("nodes");
  w.begin_object(true);
  for (const auto& [node, faults] : t.nodes) w.field(std::to_string(node), faults);
  w.end_object();
  w.end_object();
}

// "sharing" and "reuse": the watchpoint analyses (docs/REPORT.md), each only where it ran.
void write_watch(JsonWriter& w, const WatchSummary& s) {
  if (s.sharing.present) {
    w.key("sharing");
    w.begin_object(true);
    w.field("false_sharing", s.sharing.false_sharing);
    w.field("false", s.sharing.false_traps);
    w.field("true", s.sharing.true_traps);
    w.field("threads", s.sharing.threads);
    w.field("lines", s.sharing.lines);
    w.field("armed", s.sharing.armed);
    w.key("offsets");
    w.begin_array(true);
    for (uint64_t o : s.sharing.offsets) w.value(o);
    w.end_array();
    w.end_object();
  }
  if (s.reuse.present) {
    w.key("reuse");
    w.begin_object(true);
    w.field("samples", s.reuse.samples);
    w.field_fixed("median_ns", s.reuse.median_ns, 1);
    w.field_fixed("p10_ns", s.reuse.p10_ns, 1);
    w.field_fixed("p90_ns", s.reuse.p90_ns, 1);
    w.field("no_reuse", s.reuse.no_reuse);
    w.field("armed", s.reuse.armed);
    w.key("histogram");
    w.begin_array(true);
    for (uint64_t b : s.reuse.histogram) w.value(b);
    w.end_array();
    w.end_object();
  }
}

// "pattern" of an access path: the loop pattern of its sampled instruction (docs/REPORT.md).
void write_pattern(JsonWriter& w, const PatternView& p) {
  w.key("pattern");
  w.begin_object(true);
  w.field("kind", pattern_kind_name(p.kind));
  w.key("stride_bytes");
  if (p.has_stride) w.value(p.stride);
  else w.null_value();
  w.key("line_use");
  if (p.has_line_use) w.value_fixed(p.line_use, kShareDecimals);
  else w.null_value();
  if (p.size > 0) w.field("access_bytes", static_cast<uint64_t>(p.size));
  if (p.has_outer_stride) w.field("outer_stride_bytes", p.outer_stride);
  w.field("why", p.analysed ? p.why : std::string("only the accesses of heap and static variables are analysed"));
  w.end_object();
}

// "fields", "element_size", "advice" and their companions: what the binaries say about the
// variable's data and what to try (docs/REPORT.md).
void write_evidence(JsonWriter& w, const Variable& v) {
  const AccessEvidence& e = v.evidence;
  if (e.has_element) {
    w.field("element_type", e.element_type);
    w.field("element_size", e.element_size);
    if (!e.dims.empty()) {
      w.key("dims");
      w.begin_array(true);
      for (uint64_t d : e.dims) w.value(d);
      w.end_array();
    }
  }
  w.key("fields");
  w.begin_array();
  for (const FieldShare& f : e.fields) {
    w.begin_object(true);
    w.field("name", f.name);
    w.field("offset", f.offset);
    w.field("size", f.size);
    w.field("samples", static_cast<uint64_t>(std::llround(f.samples)));
    w.field_fixed("share", v.samples > 0 ? f.samples / static_cast<double>(v.samples) : 0, kShareDecimals);
    w.end_object();
  }
  w.end_array();
  if (!e.fields.empty()) {
    w.field("hot_bytes", e.hot_bytes);
    w.field_fixed("hot_share", e.hot_share, kShareDecimals);  // of the hottest loop's samples
    w.field_fixed("hot_loop_share", e.hot_loop_share, kShareDecimals);
    if (!e.hot_loop.empty()) w.field("hot_loop", e.hot_loop);
  }
  if (e.analysed && e.fields.empty()) w.field("fields_note", e.fields_note);
  w.key("advice");
  w.begin_array();
  for (const Advice& a : e.advice) {
    w.begin_object(true);
    w.field("kind", a.kind);
    w.field("text", a.text);
    w.end_object();
  }
  w.end_array();
}

void write_variable(JsonWriter& w, const ReportModel& m, const Variable& v, std::vector<Location>& scratch) {
  const bool page_faults = m.has_page_faults;
  w.begin_object();
  w.field("kind", kind_name(v.kind));
  w.field("name", v.name);
  if (v.kind == VariableKind::Heap) {
    w.field("allocator", v.allocator);
    w.field("sampled", v.sampled);
    w.field("allocation_site", v.allocation_site);
    w.key("allocation_path");
    write_path(w, v.allocation_path);
    w.field("label_frame", static_cast<uint64_t>(v.label_frame));
  } else if (v.kind == VariableKind::Static) {
    w.field("symbol", v.symbol);
    w.field("module", v.module);
    w.field("tls", v.tls);
  } else if (v.kind == VariableKind::Stack) {
    w.key("owner");
    w.begin_object();
    w.field("function", v.owner);
    w.field("module", v.module);
    w.end_object();
    w.field("role", v.role);
    w.field("declared", v.declared);
    w.field("type", v.type);
  }
  w.field("allocations", v.allocations);
  w.field("bytes", v.bytes);
  w.field_fixed("share", v.share, kShareDecimals);
  w.field_fixed("share_low", v.share_low, kShareDecimals);
  w.field_fixed("share_high", v.share_high, kShareDecimals);
  w.key("metrics");
  w.begin_object(true);
  w.field("samples", v.samples);
  w.field_fixed("samples_estimated", v.samples_estimated, kEstimateDecimals);
  w.field_fixed("samples_estimated_var", v.samples_estimated_var, kEstimateDecimals);
  if (page_faults) w.field("page_faults", v.page_faults);
  w.end_object();
  if (v.has_balance) {
    write_balance(w, "ranks", v.ranks, false);
    write_balance(w, "threads", v.threads, true);
  }
  if (v.memory.present()) {
    w.key("memory");
    w.begin_object();
    write_memory_fields(w, v.memory);
    w.end_object();
  }
  if (v.has_offsets) write_offsets(w, v);
  write_watch(w, v.watch);
  if (page_faults && v.page_faults > 0 && v.kind != VariableKind::Group) write_first_touch(w, v);
  if (v.kind == VariableKind::Group) write_libraries(w, v);
  write_evidence(w, v);
  w.field("hottest_access", v.hottest_access);
  w.key("accesses");
  w.begin_array();
  for (const AccessPath& a : v.accesses) {
    w.begin_object();
    w.key("path");
    write_path(w, m.access_path(a, scratch));
    write_samples(w, a.samples);
    write_pattern(w, a.pattern);
    w.end_object();
  }
  w.end_array();
  if (page_faults) {
    w.key("first_touches");
    w.begin_array();
    for (const AccessPath& a : v.first_touches) {
      w.begin_object();
      w.key("path");
      write_path(w, m.access_path(a, scratch));
      w.key("metrics");
      w.begin_object(true);
      w.field("page_faults", a.samples);
      w.end_object();
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
}

void write_prologue(JsonWriter& w, const ReportModel& m, const char* view) {
  w.field("format", "hpcprof-lite-report");
  w.field("version", 1);
  w.field("view", view);
  w.field("source", m.source);
  if (!m.source_ranks.empty()) {
    w.key("source_ranks");
    w.begin_object();
    for (const auto& [source, who] : m.source_ranks) w.field(source, who);
    w.end_object();
  }
  if (!m.source_fallbacks.empty()) {
    w.key("source_fallbacks");
    w.begin_array();
    for (const SourceFallback& f : m.source_fallbacks) {
      w.begin_object();
      w.field("process", f.process);
      w.field("requested", f.requested);
      w.field("reason", f.reason);
      w.end_object();
    }
    w.end_array();
  }
  if (m.hw_fallback_threads > 0) w.field("hw_fallback_threads", m.hw_fallback_threads);
  w.key("totals");
  w.begin_object();
  w.field("samples", m.total_samples);
  w.field("data_samples", m.data_samples);
  w.field("processes", m.processes);
  w.field("threads", m.threads);
  w.field("ranks", m.ranks);
  w.field("samples_dropped", m.samples_dropped);
  w.field("no_data_samples", m.no_data_samples);
  w.field("unknown_data_samples", m.unknown_samples);
  w.field("stack_samples", m.stack_samples);
  w.field("stack_unplaced_samples", m.stack_unplaced);
  w.field("samples_in_runtime", m.samples_in_runtime);
  if (m.dlopen_unsampled_ns > 0) w.field("dlopen_unsampled_ns", m.dlopen_unsampled_ns);
  w.field_fixed("estimated_data_samples", m.estimated_data_samples, kEstimateDecimals);
  if (m.has_sample_details) {
    w.field("samples_taken", m.samples_taken);
    w.field("samples_dropped_full", m.samples_dropped_full);
    if (m.samples_dropped_nested > 0) w.field("samples_dropped_nested", m.samples_dropped_nested);
    w.field("unresolved_samples", m.samples_unresolved);
    w.field("offsets_lost", m.offsets_lost);
  }
  if (m.has_page_faults) {
    w.field("page_faults", m.page_faults);
    w.field("page_faults_lost", m.page_faults_lost);
    w.field("page_faults_throttled", m.page_faults_throttled);
  }
  w.field("grouped_variables", static_cast<uint64_t>(m.grouped_variables));
  // Without --all, the variables with nothing measured are counted here, not listed.
  w.field("unlisted_variables", m.variables_not_built);
  w.end_object();
  if (m.memory.present()) {
    w.key("memory");
    w.begin_object();
    write_memory_fields(w, m.memory);
    write_assessment(w, m.assessment);
    w.end_object();
  }
  if (!m.counters.empty()) {
    w.key("counters");
    w.begin_array();
    for (const Counter& c : m.counters) {
      w.begin_object();
      w.field("event", c.event);
      w.field("period", c.period);
      w.field("events", c.total);
      w.end_object();
    }
    w.end_array();
  }
  w.key("notes");
  w.begin_array();
  for (const std::string& n : m.notes) w.value(n);
  w.end_array();
}

}  // namespace

void write_json(const ReportModel& m, const ReportOptions& options, std::ostream& out) {
  JsonWriter w(out);
  w.begin_object();
  if (options.view == View::Data) {
    write_prologue(w, m, "data");
    w.key("variables");
    w.begin_array();
    size_t n = rows_to_print(m.variables.size(), options.top);
    std::vector<Location> scratch;  // one access path at a time (ReportModel::access_path)
    for (size_t i = 0; i < n; ++i) write_variable(w, m, m.variables[i], scratch);
    w.end_array();
  } else {
    write_prologue(w, m, "code");
    w.key("locations");
    w.begin_array();
    size_t n = rows_to_print(m.locations.size(), options.top);
    for (size_t i = 0; i < n; ++i) {
      const CodeLocation& c = m.locations[i];
      w.begin_object();
      w.field("label", c.label);
      if (!c.caller.empty()) w.field("caller", c.caller);
      w.field("function", c.where.function);
      w.field("file", c.where.file);
      w.field("line", c.where.line);
      w.field("module", c.where.module);
      if (c.where.has_address) {
        w.field("offset", c.where.offset);
      }
      if (c.where.omp_region) {
        w.field("omp_region", true);
      }
      w.field_fixed("share", c.share, kShareDecimals);
      write_samples(w, c.samples, &c.data_samples);
      if (!c.counters.empty()) {
        w.key("counters");
        w.begin_object();
        for (size_t k = 0; k < c.counters.size(); ++k) w.field(m.counters[k].event, c.counters[k]);
        w.end_object();
      }
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  w.finish();
}

}  // namespace hpcl::analysis
