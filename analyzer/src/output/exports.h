// Exports of the report model to the tools users already have: folded stacks (flamegraph.pl,
// inferno, speedscope), a CSV row per variable and access path (pandas, spreadsheets), one
// self-contained HTML page (a browser), pprof's profile.proto (go tool pprof, Pyroscope) and
// Hatchet's JSON (Hatchet, Thicket).
// docs/EXPORTS.md describes each format.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "formatters.h"
#include "model/report_model.h"

namespace hpcl::analysis {

// Where a frame of a folded stack comes from; the HTML page colours frames by it.
enum class FoldedPart : char { Variable = 'v', Allocation = 'a', Access = 'x', NoData = 'n' };

struct FoldedFrame {
  FoldedPart part = FoldedPart::Access;
  std::string name;  // already made safe by folded_frame_name
};

struct FoldedStack {
  std::vector<FoldedFrame> frames;  // root first: the variable, its allocation path, its access path
  uint64_t count = 0;
};

// A frame name the folded format can carry: ';' (the frame separator) becomes ':', control
// characters (line breaks, tabs, ESC ...) become '?', whitespace before trailing digits becomes
// '_' (inferno reads "... name 12 34" as two counts), and an empty name becomes "[?]".
std::string folded_frame_name(std::string_view s);

// The stacks of the data-centric tree: for each variable with samples, in the model's order, one
// stack per access path (hottest first; identical stacks merged), and the variable's samples
// that no access path holds (a Group row, or a model built with fewer access paths) as the
// variable alone. Then "[no data]" with the samples whose instruction had no data address, and
// "[profiler's own work]" with those of them that interrupted the runtime's tracking. The
// counts add up to the model's total_samples when every variable is printed (top = 0) and the
// model was built with every access path.
std::vector<FoldedStack> folded_stacks(const ReportModel& model, size_t top);

void write_folded(const ReportModel& model, const ReportOptions& options, std::ostream& out);
// One row per variable x access path (--view accesses).
void write_csv_accesses(const ReportModel& model, const ReportOptions& options, std::ostream& out);
void write_html(const ReportModel& model, const ReportOptions& options, std::ostream& out);
// pprof's profile.proto, gzipped (format_pprof.cpp): one sample per variable and access path, the
// variable the root and the leaf frame, labels variable, kind, allocator and bytes. False when
// the profile could not be written.
bool write_pprof(const ReportModel& model, const ReportOptions& options, std::ostream& out);
// Hatchet's JSON (format_hatchet.cpp): a graph root per variable with its access paths below
// (with `group`, the runtime libraries' variables under a root per family), a root "[no data]",
// and a dataframe row per node and rank from the database's RANK_VALUES (per node alone without
// them). The model must list every variable apart (no group rows) with every access path.
void write_hatchet(const ReportModel& model, const Profile& db, const ReportOptions& options, bool group,
                   std::ostream& out);

}  // namespace hpcl::analysis
