// The diff model: what `hpcprof-lite diff BEFORE AFTER` says about two databases, independent of
// any output format (the text/JSON/CSV diff formatters and hpcviewer-tui --diff render it). It is
// built on the report model of each side: variables are matched across the two runs (heap by
// symbolized allocation path, static by module and symbol, the rest by name), their samples put
// on one sampling rate, and each change judged against the two sides' 95% intervals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hpcl/profile.h"
#include "report_model.h"

namespace hpcl::analysis {

// How a variable of one run was found in the other.
enum class MatchKind {
  Exact,  // heap: same functions, files and lines; static: same module and symbol; else same name
  Loose,  // heap: same functions, lines moved; static: same module and source name, symbol changed
  New,    // only in AFTER
  Gone,   // only in BEFORE
};
const char* match_name(MatchKind m);  // "exact", "loose", "new", "gone"

// One side of a variable: its samples on the diff's common scale, the 95% interval of those
// samples (the share interval times the run's total), and its share of its own run.
struct DiffSide {
  bool present = false;   // the variable exists in this run
  uint64_t raw_samples = 0;  // as the database counts them
  double samples = 0;     // estimated samples (report model), scaled (and per process)
  double low = 0, high = 0;  // 95% interval of `samples`
  double share = 0;       // of the run's total samples
  double share_low = 0, share_high = 0;
};

// An access path of a matched variable, on both sides: paths are keyed by the function names
// along them (lines move between builds), and their samples scaled like the variable's.
struct AccessChange {
  std::string label;    // the leaf's location label (AFTER's when both have it)
  std::string callers;  // its two innermost callers' function names, " < "-separated
  double before = 0, after = 0;
};

struct VariableDiff {
  VariableKind kind = VariableKind::Unknown;
  std::string name;       // AFTER's name when it has one
  MatchKind match = MatchKind::Exact;
  std::vector<Location> allocation_path;  // heap: AFTER's (else BEFORE's) allocation path
  std::string module;     // static: the module
  DiffSide before, after;
  double delta = 0;                  // after.samples - before.samples
  std::optional<double> ratio;       // after / before; none when before has no samples
  double share_change = 0;           // after.share - before.share
  // The change is more than noise: the two sides' 95% intervals of samples do not overlap.
  bool significant = false;
  std::vector<AccessChange> accesses;  // by the larger of before, after, descending
};

// The run totals of one side, after scaling.
struct RunTotals {
  uint64_t raw_samples = 0;  // total samples of the database
  double samples = 0;        // scaled (and per process)
  double data_share = 0;     // share of the samples with a data address
  uint64_t processes = 0, threads = 0;
  std::string source;        // META source
  std::string rate;          // META rate, as written
  // CPU seconds the samples stand for (soft source: samples / rate), scaled like `samples`;
  // none for a hardware source or an unknown rate.
  std::optional<double> cpu_seconds;
};

struct DiffModel {
  RunTotals before, after;
  // AFTER's samples were multiplied by this to put them on BEFORE's sampling rate (1 when the
  // rates agree or cannot be compared).
  double after_scale = 1;
  bool per_process = false;  // every samples figure is a mean per process
  // Variables with samples on at least one side, by |delta| descending (ties: name).
  std::vector<VariableDiff> variables;
  std::vector<std::string> notes;  // scaling, loose matches, process counts ...
};

struct DiffOptions {
  bool per_process = false;  // compare per-process means (--per-process)
  size_t access_paths = 5;   // access paths kept per variable, hottest first (0 = all)
};

// Builds the diff of two validated databases.
DiffModel build_diff_model(const Profile& before, const Profile& after, const DiffOptions& options = {});

// The matching key of a variable (exact or loose): equal keys of the same kind match. Exposed
// for the tests.
std::string match_key(const Variable& v, bool loose);

}  // namespace hpcl::analysis
