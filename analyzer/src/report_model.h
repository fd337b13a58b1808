// The report model: what hpcprof-lite's reports say about a database, independent of any output
// format. The data view lists variables (heap sites, static variables, unknown-data classes)
// with their samples and access paths; the code view lists the source locations of the sampled
// instructions. The text/JSON/CSV formatters and the ncurses viewer all render this model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hpcl/profile.h"
#include "location.h"

namespace hpcl::analysis {

enum class VariableKind { Heap, Static, Unknown };
const char* kind_name(VariableKind kind);  // "heap", "static", "unknown"

// One access path of a variable: the calling context of the sampled instruction.
struct AccessPath {
  std::vector<Location> path;  // innermost first: the sampled instruction, then its callers
  uint64_t samples = 0;
  uint32_t leaf = 0;           // the leaf's node in the database tree
};

struct Variable {
  VariableKind kind = VariableKind::Unknown;
  std::string name;          // heap: allocation-site label; static: source-level name; "[stack]" ...
  uint64_t samples = 0;      // inclusive: every access path of the variable
  double share = 0;          // samples / total samples of the database
  // Horvitz-Thompson estimate of the samples the variable would have with every block tracked
  // (= samples when all its blocks were tracked), and the estimate's variance (0 when exact).
  // The unattributed classes give up what the estimates claim (docs/REPORT.md).
  double samples_estimated = 0;
  double samples_estimated_var = 0;
  uint64_t allocations = 0;  // heap only (tracked blocks)
  uint64_t bytes = 0;        // heap: tracked bytes; static: symbol size

  // Heap.
  std::string allocator;                  // "calloc", "operator new[]", ...
  bool sampled = false;                   // some blocks tracked with probability < 1
  std::vector<Location> allocation_path;  // innermost first, starting with the API pseudo-frame
  std::string allocation_site;            // "calloc in make_grid (grid.c:41)"

  // Static.
  std::string symbol;  // raw symbol name
  std::string module;  // module path
  bool tls = false;

  std::vector<AccessPath> accesses;  // samples descending; at most max_access_paths of them
  std::string hottest_access;        // label of the leaf of accesses[0]; "" without accesses
};

// A source location of sampled instructions (code view).
struct CodeLocation {
  Location where;             // offset/has_address only for unsymbolized frames
  std::string label;         // location_label(where)
  uint64_t samples = 0;      // every sample at this location
  uint64_t data_samples = 0; // those attributed to a variable (heap, static or unknown data)
  double share = 0;          // samples / total samples
};

struct ReportModel {
  std::string source;  // META source ("soft", "pebs", ..., "mixed"); "" if absent
  uint64_t processes = 0, threads = 0, ranks = 0;
  uint64_t total_samples = 0;  // inclusive samples of the root, no-data samples included
  uint64_t data_samples = 0;   // under the heap, static and unknown roots
  uint64_t samples_dropped = 0;
  uint64_t samples_in_runtime = 0;     // interrupted the runtime: code time under no data
  double estimated_data_samples = 0;   // sum of samples_estimated over the variables
  std::string skipped;         // META skipped
  std::vector<std::string> notes;  // caveats a reader must know (time weighting, sampling ...)

  std::vector<Variable> variables;      // samples descending, ties by name
  std::vector<CodeLocation> locations;  // samples descending, ties by label
};

struct ReportModelOptions {
  // Access paths expanded per variable, hottest first. Counting and sorting need no strings; a
  // report that prints only the hottest access (text, CSV) asks for 1, so a large database is not
  // materialised as millions of location strings.
  size_t max_access_paths = SIZE_MAX;
};

// Builds both views. The database must have passed validate_profile and be a database.
ReportModel build_report_model(const Profile& db, const ReportModelOptions& options = {});

}  // namespace hpcl::analysis
