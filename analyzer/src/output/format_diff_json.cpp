// The JSON diff. The schema is documented in docs/REPORT.md ("diff"); its field names are a
// contract with scripts, so change them only together with that document and its version.
#include "diff_formatters.h"
#include "hpcl/text/format_common.h"
#include "json_writer.h"

namespace hpcl::analysis {
namespace {

constexpr int kSampleDecimals = 1;
constexpr int kShareDecimals = 6;

void write_totals(JsonWriter& w, const char* key, const RunTotals& t) {
  w.key(key);
  w.begin_object();
  w.field_fixed("samples", t.samples, kSampleDecimals);
  w.field("raw_samples", t.raw_samples);
  w.field_fixed("data_share", t.data_share, kShareDecimals);
  if (t.cpu_seconds) w.field_fixed("cpu_seconds", *t.cpu_seconds, 3);
  w.field("processes", t.processes);
  w.field("threads", t.threads);
  w.field("source", t.source);
  w.field("rate", t.rate);
  w.end_object();
}

void write_side(JsonWriter& w, const char* key, const DiffSide& s) {
  w.key(key);
  w.begin_object(/*inline_=*/true);
  w.field("present", s.present);
  w.field_fixed("samples", s.samples, kSampleDecimals);
  w.field("raw_samples", s.raw_samples);
  w.field_fixed("low", s.low, kSampleDecimals);
  w.field_fixed("high", s.high, kSampleDecimals);
  w.field_fixed("share", s.share, kShareDecimals);
  w.field_fixed("share_low", s.share_low, kShareDecimals);
  w.field_fixed("share_high", s.share_high, kShareDecimals);
  w.end_object();
}

void write_variable(JsonWriter& w, const VariableDiff& v) {
  w.begin_object();
  w.field("kind", kind_name(v.kind));
  w.field("name", v.name);
  w.field("match", match_name(v.match));
  w.key("allocation_path");
  w.begin_array();
  for (const Location& l : v.allocation_path) {
    w.begin_object(true);
    w.field("function", l.function);
    w.field("file", l.file);
    w.field("line", l.line);
    w.field("module", l.module);
    w.end_object();
  }
  w.end_array();
  if (v.kind == VariableKind::Static) w.field("module", v.module);
  write_side(w, "before", v.before);
  write_side(w, "after", v.after);
  w.field_fixed("delta", v.delta, kSampleDecimals);
  w.key("ratio");
  if (v.ratio) w.value_fixed(*v.ratio, 4);
  else w.null_value();
  w.field_fixed("share_change", v.share_change, kShareDecimals);
  w.field("significant", v.significant);
  w.key("accesses");
  w.begin_array();
  for (const AccessChange& a : v.accesses) {
    w.begin_object(true);
    w.field("leaf", a.label);
    w.field("callers", a.callers);
    w.field_fixed("before", a.before, kSampleDecimals);
    w.field_fixed("after", a.after, kSampleDecimals);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_names(JsonWriter& w, const char* key, const DiffModel& m, MatchKind match) {
  w.key(key);
  w.begin_array();
  for (const VariableDiff& v : m.variables)
    if (v.match == match) w.value(v.name);
  w.end_array();
}

}  // namespace

void write_diff_json(const DiffModel& m, const DiffReportOptions& options, std::ostream& out) {
  JsonWriter w(out);
  w.begin_object();
  w.field("format", "hpcprof-lite-diff");
  w.field("version", 1);
  w.field("per_process", m.per_process);
  w.field_fixed("after_scale", m.after_scale, kShareDecimals);
  write_totals(w, "before", m.before);
  write_totals(w, "after", m.after);
  w.key("variables");
  w.begin_array();
  const size_t rows = rows_to_print(m.variables.size(), options.top);
  for (size_t i = 0; i < rows; ++i) write_variable(w, m.variables[i]);
  w.end_array();
  write_names(w, "new", m, MatchKind::New);
  write_names(w, "gone", m, MatchKind::Gone);
  w.key("notes");
  w.begin_array();
  for (const std::string& n : m.notes) w.value(n);
  w.end_array();
  w.end_object();
  w.finish();
}

}  // namespace hpcl::analysis
