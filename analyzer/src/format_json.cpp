// The JSON report. The schema is documented in docs/REPORT.md; field names and nesting are a
// contract with scripts, so change them only together with that document and its version.
#include "format_common.h"
#include "formatters.h"
#include "json_writer.h"

namespace hpcl::analysis {
namespace {

constexpr int kShareDecimals = 6;

void write_location(JsonWriter& w, const Location& l) {
  w.begin_object(/*inline_=*/true);
  w.key("function");
  w.value(l.function);
  w.key("file");
  w.value(l.file);
  w.key("line");
  w.value(l.line);
  w.key("module");
  w.value(l.module);
  if (l.has_address) {
    w.key("offset");
    w.value(l.offset);
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
  w.key("samples");
  w.value(samples);
  if (data_samples != nullptr) {
    w.key("data_samples");
    w.value(*data_samples);
  }
  w.end_object();
}

void write_variable(JsonWriter& w, const Variable& v) {
  w.begin_object();
  w.key("kind");
  w.value(kind_name(v.kind));
  w.key("name");
  w.value(v.name);
  if (v.kind == VariableKind::Heap) {
    w.key("allocator");
    w.value(v.allocator);
    w.key("sampled");
    w.value(v.sampled);
    w.key("allocation_site");
    w.value(v.allocation_site);
    w.key("allocation_path");
    write_path(w, v.allocation_path);
  } else if (v.kind == VariableKind::Static) {
    w.key("symbol");
    w.value(v.symbol);
    w.key("module");
    w.value(v.module);
    w.key("tls");
    w.value(v.tls);
  }
  w.key("allocations");
  w.value(v.allocations);
  w.key("bytes");
  w.value(v.bytes);
  w.key("share");
  w.value_fixed(v.share, kShareDecimals);
  write_samples(w, v.samples);
  w.key("hottest_access");
  w.value(v.hottest_access);
  w.key("accesses");
  w.begin_array();
  for (const AccessPath& a : v.accesses) {
    w.begin_object();
    w.key("path");
    write_path(w, a.path);
    write_samples(w, a.samples);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_prologue(JsonWriter& w, const ReportModel& m, const char* view) {
  w.key("format");
  w.value("hpcprof-lite-report");
  w.key("version");
  w.value(1);
  w.key("view");
  w.value(view);
  w.key("source");
  w.value(m.source);
  w.key("totals");
  w.begin_object();
  w.key("samples");
  w.value(m.total_samples);
  w.key("data_samples");
  w.value(m.data_samples);
  w.key("processes");
  w.value(m.processes);
  w.key("threads");
  w.value(m.threads);
  w.key("ranks");
  w.value(m.ranks);
  w.key("samples_dropped");
  w.value(m.samples_dropped);
  w.end_object();
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
    for (size_t i = 0; i < n; ++i) write_variable(w, m.variables[i]);
    w.end_array();
  } else {
    write_prologue(w, m, "code");
    w.key("locations");
    w.begin_array();
    size_t n = rows_to_print(m.locations.size(), options.top);
    for (size_t i = 0; i < n; ++i) {
      const CodeLocation& c = m.locations[i];
      w.begin_object();
      w.key("label");
      w.value(c.label);
      w.key("function");
      w.value(c.where.function);
      w.key("file");
      w.value(c.where.file);
      w.key("line");
      w.value(c.where.line);
      w.key("module");
      w.value(c.where.module);
      if (c.where.has_address) {
        w.key("offset");
        w.value(c.where.offset);
      }
      w.key("share");
      w.value_fixed(c.share, kShareDecimals);
      write_samples(w, c.samples, &c.data_samples);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  w.finish();
}

}  // namespace hpcl::analysis
