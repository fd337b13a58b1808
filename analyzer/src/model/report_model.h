// The report model: what hpcprof-lite's reports say about a database, independent of any output
// format. The data view lists variables (heap sites, static variables, unknown-data classes)
// with their samples and access paths; the code view lists the source locations of the sampled
// instructions. The text/JSON/CSV formatters and the ncurses viewer all render this model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "access_evidence.h"
#include "merge/balance.h"
#include "hpcl/profile.h"
#include "symbols/location.h"
#include "memory_model.h"
#include "path_expander.h"
#include "watch_summary.h"

namespace hpcl::analysis {

// Group: the variables of one runtime library family folded into one row (runtime_libs.h).
// Stack: a local of one function's frame (format 1.10), or the frame as a whole when its
// variables cannot be told apart.
enum class VariableKind { Heap, Static, Unknown, Group, Stack };
const char* kind_name(VariableKind kind);  // "heap", "static", "unknown", "group", "stack"

// One access path of a variable: the calling context of the sampled instruction.
struct AccessPath {
  // Innermost first: the sampled instruction, then its callers. Empty until expanded (see
  // ReportModelOptions::expand_access_paths and ReportModel::access_path).
  std::vector<Location> path;
  uint64_t samples = 0;
  uint32_t leaf = 0;           // the leaf's node in the database tree
  bool expanded = false;       // `path` holds the frames
  PatternView pattern;         // of the sampled instruction (heap and static variables)
};

// A function that read an unattributed class ([stack], [unknown data], [untracked heap]), named
// as the code view names it (location_label without the line), and its samples there.
struct ReaderShare {
  std::string function;
  uint64_t samples = 0;
};

// One library's part of a Group row.
// One of the hottest variables folded into a group row: what the group holds.
inline constexpr size_t kGroupParts = 6;
struct GroupPart {
  std::string name;
  uint64_t samples = 0;
  double samples_estimated = 0;
  uint64_t bytes = 0;
};

struct LibraryDetail {
  std::string module;      // module path
  uint64_t variables = 0;  // variables of this library folded into the group
  uint64_t samples = 0;
  uint64_t bytes = 0;
  double share = 0;        // samples / total samples
};

// First touch of one variable (page-fault source): how its page faults spread over the threads
// (FIRST_TOUCH section) and over the NUMA nodes of the CPUs that took them (metrics 80 + k).
struct FirstTouch {
  bool has_threads = false;   // the database has the variable's FIRST_TOUCH entry
  uint64_t threads = 0;       // threads that first-touched it
  uint64_t run_threads = 0;   // threads of the run (BALANCE thread_groups)
  double top_share = 0;       // the largest thread's share of its page faults
  GroupId top_thread;         // that thread
  // One thread of several took every fault of a variable of at least kSerialMinFaults pages:
  // its pages sit wherever that thread ran (docs/REPORT.md "first touch").
  bool serial = false;
  std::vector<std::pair<uint32_t, uint64_t>> nodes;  // (NUMA node, faults), node ascending, no zeros
};
inline constexpr uint64_t kSerialMinFaults = 16;

struct Variable {
  VariableKind kind = VariableKind::Unknown;
  std::string name;          // heap: allocation-site label; static: source-level name; "[stack]" ...
  uint64_t samples = 0;      // inclusive: every access path of the variable
  double share = 0;          // samples / total samples of the database
  double share_low = 0;      // its 95% interval (stats.h share_interval)
  double share_high = 0;
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
  size_t label_frame = 0;                 // index of the frame in allocation_path that names it
  std::string allocation_site;            // "calloc in make_grid (grid.c:41)"

  // Static.
  std::string symbol;  // raw symbol name
  std::string module;  // module path (static; stack: the owning function's)
  bool tls = false;

  // Stack: the function whose frame holds it, as the code view names functions, and what it is
  // there ("local", "argument", "automatic array", "array temporary", "private", "frame": the
  // frame's bytes no variable covers, or all of them without DWARF); its declaration
  // ("kernel.c:14", "" unknown) and type ("double[16384]", "" unknown).
  std::string owner;
  std::string role;
  std::string declared;
  std::string type;
  // Its StackSlot nodes in the database's tree, whose children are its access paths (the viewer
  // opens the row into them).
  std::vector<uint32_t> stack_nodes;
  int64_t stack_lo = 0;  // its first byte from its frame's CFA, when `bytes` is known

  std::vector<AccessPath> accesses;  // samples descending; at most max_access_paths of them
  // Unknown classes only: every sample by the function of its sampled instruction, descending
  // (ties by name). Told in a note when the class holds a large share (report_notes.cpp).
  std::vector<ReaderShare> read_in;
  // First touch (page-fault source): the variable's page faults, and the instructions that took
  // them (AccessPath::samples holds the faults), descending, at most max_access_paths. A count of
  // its own: it enters no share.
  uint64_t page_faults = 0;
  std::vector<AccessPath> first_touches;
  FirstTouch first_touch;  // meaningful when page_faults > 0
  std::string hottest_access;        // label of the leaf of accesses[0]; "" without accesses

  // The module that owns the data: static: `module`; heap: the module of the frame that names
  // the site. Decides the runtime family a variable is grouped into.
  std::string data_module;

  // Where in the variable the samples fell (OFFSETS section): hpcl::kOffsetBins bins over the
  // block (heap) or the symbol (static), and the lowest and highest byte offset sampled.
  bool has_offsets = false;
  std::vector<uint64_t> offset_bins;
  uint64_t offset_min = 0, offset_max = 0;

  // Group only: per library, samples descending; the hottest of the variables folded in (at
  // most kGroupParts, estimated samples descending; the libraries count them all).
  std::vector<LibraryDetail> libraries;
  std::vector<GroupPart> parts;

  // How the samples (estimated, as the share counts them) spread over the ranks and the threads
  // of the run (BALANCE section). has_balance is false for a database without that section and
  // for Group rows, whose members' per-rank values are not kept.
  bool has_balance = false;
  BalanceStats ranks, threads;

  // Memory metrics of the variable's subtree (hardware sources, NUMA); empty without them.
  MemoryStats memory;

  // Watchpoint analyses (-e wp-sharing, -e wp-reuse): sharing traps and reuse times.
  WatchSummary watch;

  // What the binaries say about its accesses: patterns, fields, advice (access_evidence.h).
  AccessEvidence evidence;
};

// A variable the model counts but does not build: nothing was measured anywhere in its subtree
// (no samples, page faults, estimates or watch results) and ReportModelOptions::all_variables is
// off. A run of CP2K has 290,000 of them beside 1,200 measured ones: a Variable each would take
// gigabytes. What the runtime groups and the notes need of it is kept.
struct QuietVariable {
  VariableKind kind = VariableKind::Heap;  // Heap or Static
  bool sampled = false;                    // heap: a sampled small site
  uint32_t module = 0;                     // its data_module: ReportModel::quiet_modules[module]
  uint64_t bytes = 0, allocations = 0;
};

// A source location of sampled instructions (code view).
struct CodeLocation {
  Location where;             // offset/has_address only for unsymbolized frames
  // Code the Python interpreter ran, apart for each Python line that ran it: the program's
  // Python frame above it ("norm (solver.py:31)", symbols/script_code.h); else "".
  std::string caller;
  std::string label;         // location_label(where), then " ← " and the caller when there is one
  uint64_t samples = 0;      // every sample at this location
  uint64_t data_samples = 0; // those attributed to a variable (heap, static or unknown data)
  double share = 0;          // samples / total samples
  // Events of each counter (ReportModel::counters, same order) at this location.
  std::vector<uint64_t> counters;
};

// A PAPI event counted beside the samples (format 1.5 counter metrics, META counter.<k>.*).
struct Counter {
  uint16_t metric = 0;  // hpcl::kMetricCounterBase + k
  std::string event;    // as the user asked for it: "PAPI_TOT_CYC"; "mixed" when inputs differ
  uint64_t period = 0;  // events per overflow; 0 when unknown or mixed
  uint64_t total = 0;   // events counted over the whole run (inclusive at the root)
};

// A process that sampled with another source than it asked for (META source_fallbacks).
struct SourceFallback {
  std::string process;    // "rank 3", or "pid 4242" without MPI
  std::string requested;  // "pebs-load"
  std::string reason;
};

// The group row a variable of an ungrouped model would fold into ("[MPI runtime data]", ...;
// runtime_libs.h), "" when it is a row of its own.
std::string runtime_group_of(const Variable& v);

// The orders of the data view (--sort); see sort_variables below.
enum class VariableOrder { Samples, Imbalance, ThreadImbalance };

struct ReportModel {
  std::string source;  // META source ("soft", "pebs", ..., "mixed"); "" if absent
  // With processes that used different sources or fell back (META source_ranks): each source
  // and the ranks that used it ("0-2,5"; "2 processes" without MPI), in source order.
  std::vector<std::pair<std::string, std::string>> source_ranks;
  std::vector<SourceFallback> source_fallbacks;
  // Threads sampled with soft because their hardware events could not start (META
  // hw_fallback_threads).
  uint64_t hw_fallback_threads = 0;
  // NUMA nodes of the measured machine (META numa_nodes); 0 when unknown or mixed. On one node
  // every page is local: the text report leaves NUMA out (JSON keeps the counts).
  uint64_t numa_nodes = 0;
  uint64_t processes = 0, threads = 0, ranks = 0;
  // Groups of the BALANCE section: ranks (processes by META rank, a process without one its own)
  // and threads (TREEs); 0 without the section.
  uint64_t balance_ranks = 0, balance_threads = 0;
  uint64_t total_samples = 0;  // inclusive samples of the root, no-data samples included
  uint64_t data_samples = 0;   // under the heap, static and unknown roots
  uint64_t samples_dropped = 0;
  uint64_t no_data_samples = 0;  // under NoDataRoot: the instruction had no data address
  uint64_t unknown_samples = 0;  // under UnknownRoot: [stack], [unknown data], not the next
  // On a thread's stack: placed in a frame's variables (stack rows), and not placed ([stack]:
  // another thread's stack, a call path cut before the owner, a runtime without the record).
  uint64_t stack_samples = 0, stack_unplaced = 0;
  // From META when the profiles recorded them (format 1.2); has_sample_details says so.
  bool has_sample_details = false;
  uint64_t samples_taken = 0;         // every sample the runtime took, dropped ones included
  uint64_t samples_dropped_full = 0;  // dropped: the thread's tree was full
  uint64_t samples_dropped_nested = 0;  // dropped: inside a PAPI overflow handler (1.5)
  uint64_t samples_unresolved = 0;    // memory operand whose address could not be computed
  uint64_t offsets_lost = 0;          // samples missing from offset histograms (table full)
  uint64_t samples_overflowed = 0;    // sampling signals the kernel could not queue (lost)
  uint64_t allocs_lost = 0;           // blocks left untracked: the runtime's tables were full
  size_t grouped_variables = 0;       // variables folded into Group rows
  uint64_t samples_in_runtime = 0;     // interrupted the runtime: code time under no data
  // Where those samples' instructions were, by module basename, most samples first (the tree's
  // own-work marker keeps each interrupted instruction): which part of the profiler's work
  // costs what (its tracking code, libunwind's walks of the allocation paths, the C library).
  std::vector<std::pair<std::string, uint64_t>> own_work_modules;
  uint64_t samples_in_mpi_code = 0;    // whose instruction is MPI's code (its libraries, transports)
  // CPU time inside dlopen, where the soft source's timer was paused (META dlopen_unsampled_ns),
  // and the sampling rate (samples per second of CPU time; 0 when unknown or not the soft one).
  uint64_t dlopen_unsampled_ns = 0;
  uint64_t soft_rate = 0;
  // The page-fault source (META page_faults_*): has_page_faults when the database has it.
  bool has_page_faults = false;
  uint64_t page_faults = 0;             // attributed in the tree (inclusive at the root)
  uint64_t page_faults_lost = 0;        // dropped by the kernel: a thread's ring was full
  uint64_t page_faults_throttled = 0;   // times the kernel paused the event (rate limit)
  double estimated_data_samples = 0;   // sum of samples_estimated over the variables
  // Samples the heap estimates claimed beyond what fell outside the tracked blocks ([untracked
  // heap] and [unknown data] held less): the estimates were scaled down by that much so that the
  // shares add up to 100% (report_model.cpp). `estimates_excess_noise` is 4 times the estimates'
  // standard deviation: an excess beyond it is no longer their noise (one run in 8 of 1M list
  // nodes with tcmalloc overshot by 2.6 of them; jemalloc's arenas counted twice, issue 21, by
  // far more).
  double estimates_excess = 0;
  double estimates_excess_noise = 0;
  // The sum of the variables' shares (estimated), kept to check it: above 100% is a bug.
  double share_sum = 0;
  std::string skipped;         // META skipped
  std::vector<std::string> notes;  // caveats a reader must know (time weighting, sampling ...)
  // Memory metrics of the whole tree; memory.present() says whether the database has any, and
  // only then do the reports show them and the assessment.
  MemoryStats memory;
  MemoryAssessment assessment;

  // Variables without anything measured that the model counts but does not list (not built, or
  // not folded into a runtime group row): the reports say how many, and --all lists them.
  uint64_t variables_not_built = 0;
  // The order of `variables` (sort_variables): a table keeps the column it is sorted by.
  VariableOrder order = VariableOrder::Samples;
  // While the model is built: those variables, and the modules they name (emptied at the end).
  std::vector<QuietVariable> quiet;
  std::vector<std::string> quiet_modules;

  std::vector<Counter> counters;        // the PAPI events of the run, in metric order
  std::vector<Variable> variables;      // samples descending, ties by name
  // Samples descending, ties by label; a location with counter events and no samples comes
  // after every sampled one, by its first counter.
  std::vector<CodeLocation> locations;

  // Expands the frames of the database's access paths, each distinct frame once (shared by
  // copies of the model; it refers to the database the model was built from).
  std::shared_ptr<const PathExpander> expander;
  // The frames of an access path of this model: `a.path` when the model expanded it, else
  // expanded now into `scratch` (the database must still be alive) and returned. Lets a report
  // write millions of paths holding one at a time.
  const std::vector<Location>& access_path(const AccessPath& a, std::vector<Location>& scratch) const;
};

struct ReportModelOptions {
  // Access paths expanded per variable, hottest first. Counting and sorting need no strings; a
  // report that prints only the hottest access (text, CSV) asks for 1, so a large database is not
  // materialised as millions of location strings.
  size_t max_access_paths = SIZE_MAX;
  // Of those, how many (hottest first) get their frames in AccessPath::path. The others keep
  // only their leaf and samples, and ReportModel::access_path expands them when asked, from the
  // database, which must then outlive the model. A JSON report asks for 0 and writes each path
  // as it expands it; a viewer expands the paths of the variable it opens.
  size_t expand_access_paths = SIZE_MAX;
  // Keep each heap variable's allocation path (Variable::allocation_path, label_frame) once it
  // is named. Only JSON, folded stacks, HTML (its flame graph), the viewer and the diff read it: a
  // text or CSV report of every variable (--all) holds none (CP2K: 5.5 million frames, 350 MB).
  bool keep_allocation_paths = true;
  // Build the code view (ReportModel::locations); a report of the data view does not need it.
  bool code_locations = true;
  // Functions to treat as the program's allocation wrappers (--alloc-wrapper), searched in the
  // demangled name, in addition to those recognised automatically (heap_naming.h, AllocWrappers).
  std::vector<std::regex> alloc_wrappers;
  bool detect_alloc_wrappers = true;
  // Fold the variables of runtime libraries into one Group row per family (--no-group: false).
  bool group_runtime = true;
  // Read the binaries for the access patterns, fields and advice of the heap and static
  // variables (access_evidence.h); the diff, the code view and tests of other parts leave it off.
  bool access_evidence = true;
  // Of those, only the first this many variables (hottest first): a text report prints 20 rows.
  size_t evidence_rows = SIZE_MAX;
  // The variables beyond evidence_rows keep their sampled instructions for a later analysis
  // (the viewer analyses a row when it first shows it: EvidenceBuilder).
  bool evidence_later = false;
  // Build a Variable for every allocation site and static variable, those without anything
  // measured too (--all). Off, those are only counted (ReportModel::variables_not_built), so a
  // report's memory follows what was measured, not every site the run saw.
  bool all_variables = true;
};

// Builds both views. The database must have passed validate_profile and be a database.
ReportModel build_report_model(const Profile& db, const ReportModelOptions& options = {});

// What an unattributed class holds, as a phrase ("[stack]": "local variables and arrays on the
// threads' stacks (...)"); null for any other name. The report's notes and the viewer's why pane
// say it beside the functions that read the class (Variable::read_in).
const char* unknown_class_meaning(std::string_view name);

// The orders of the data view (--sort). Samples: the model's own order. Imbalance and
// ThreadImbalance: by ranks.imbalance (threads.imbalance) descending among the heap and static
// variables with at least kImbalanceMinShare of the samples, then the rest in samples order: a
// variable with a few samples on one rank has a large imbalance by chance alone, and the unknown
// classes mix unrelated data.
inline constexpr double kImbalanceMinShare = 0.01;
void sort_variables(ReportModel& model, VariableOrder order);

}  // namespace hpcl::analysis
