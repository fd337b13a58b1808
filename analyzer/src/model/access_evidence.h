// From which variable to why: per variable, the evidence the binaries give about its sampled
// accesses (read at report time through symbols/code_facts.h) and the changes it supports.
//   - the access pattern of each sampled instruction in its innermost loop (sequential, strided
//     with its stride and the share of each cache line used, indirect, dependent, unknown and
//     why), attached to every access path and summarised per source line;
//   - the fields of its element type that carry its samples (DWARF), and how few bytes of the
//     element take most of them;
//   - the advice (advice.h): a few lines, each naming its evidence.
// docs/REPORT.md ("Access patterns, fields and what to try") documents what the reports print.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hpcl/profile.h"
#include "symbols/location.h"
#include "symbols/loop_pattern.h"

namespace hpcl::analysis {

// The pattern of one sampled instruction, as the reports show it.
struct PatternView {
  bool analysed = false;  // the model looked at it (heap, static and stack variables)
  bool unreadable = false;  // its module's file could not be read (a note of the model says so)
  PatternKind kind = PatternKind::Unknown;
  bool has_stride = false;
  int64_t stride = 0;
  bool has_line_use = false;
  double line_use = 0;
  uint32_t size = 0;  // bytes per access
  bool has_outer_stride = false;
  int64_t outer_stride = 0;
  std::string why;    // unknown: the reason; else a detail or ""
};

// "strided 16384 B, 8 of 64 B per line", "sequential", "unknown: it is in no loop ...".
std::string pattern_text(const PatternView& p, bool with_why);

struct LinePattern;
// "numpy_kernel.c:120 ← norm (solver.py:31)": the line and the Python line that ran it.
std::string line_label(const LinePattern& l);

// One source line's accesses of a variable (its instructions there with one pattern), apart for
// each Python line that ran them.
struct LinePattern {
  Location where;      // the leaf location of its hottest instruction
  std::string label;   // location_label(where)
  // Code the Python interpreter ran: the program's Python frame above it ("norm (solver.py:31)",
  // symbols/script_code.h), which says more than NumPy's loop; else "".
  std::string caller;
  uint64_t samples = 0;
  PatternView pattern;
};

struct FieldShare {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
  double samples = 0;  // a vector access covering several fields splits its samples by bytes
};

struct Advice {
  std::string kind;  // storage_order, split_structure, contiguous_allocation, sort_index,
                     // pad_shared_fields, parallel_first_touch
  std::string text;
};

struct AccessEvidence {
  bool analysed = false;
  bool unreadable = false;  // no module of its accesses could be read
  // Its sampled instructions: (frame, samples, a leaf node of the tree holding it), filled while
  // the model reads the tree.
  struct Instruction {
    Frame frame;
    uint64_t samples = 0;
    uint32_t leaf = 0;
    std::string caller;  // LinePattern::caller, from the tree's scan (report_model.cpp)
  };
  std::vector<Instruction> instructions;
  // A static variable: where its symbol is (for its DWARF type).
  bool is_static = false;
  uint32_t static_module = kNoModule;
  uint64_t static_offset = 0;

  std::vector<LinePattern> lines;  // samples descending
  // The pattern of each of its sampled instructions, by frame (the viewer's frame rows).
  std::vector<std::pair<Frame, PatternView>> instruction_patterns;
  // The element type its accesses read (the most sampled one when they differ).
  bool has_element = false;
  std::string element_type;
  uint64_t element_size = 0;
  std::vector<uint64_t> dims, pitches;  // a static array's dimensions and their pitches
  bool column_major = false;            // its first index is the contiguous one (Fortran)
  std::vector<FieldShare> fields;       // by offset; only fields with samples
  double typed_samples = 0;             // samples whose bytes in the element are known
  // The fields of the access that matters: the loop whose typed accesses have the most samples
  // (an initialisation that writes every field, a memset, is another loop and does not dilute
  // the one that reads two of eight). The fewest of its fields (hottest first) holding 90% of
  // its samples: their bytes, and their share of its samples; that loop's share of all the
  // variable's samples, and its hottest line when the variable has typed accesses elsewhere too.
  uint64_t hot_bytes = 0;
  double hot_share = 0;
  std::vector<std::string> hot_fields;
  double hot_loop_share = 0;
  std::string hot_loop;
  std::string fields_note;  // without fields: why ("no DWARF for ...", "an array of double")
  std::vector<Advice> advice;
};

// "16 of 64 bytes take 93% of the samples" (of its hottest loop's: "... of the samples of
// move (p.c:40)"); "" without fields.
std::string hot_bytes_text(const AccessEvidence& e);

struct ReportModel;
struct ReportModelOptions;
struct Variable;
class CodeFacts;

// Analyses variables one at a time, sharing what it has read of the binaries (each function is
// decoded and analysed once): the report analyses the rows it prints, the viewer the rows it
// shows, when it first shows them.
class EvidenceBuilder {
 public:
  explicit EvidenceBuilder(const Profile& db);  // db outlives the builder
  ~EvidenceBuilder();
  EvidenceBuilder(const EvidenceBuilder&) = delete;
  EvidenceBuilder& operator=(const EvidenceBuilder&) = delete;

  // A heap or static variable with samples whose sampled instructions are still there to analyse.
  static bool analysable(const Variable& v);
  // Fills m.variables[row].evidence and the pattern of each of its access paths; false (and
  // nothing changed) when the variable is not analysable.
  bool analyse(ReportModel& m, size_t row);
  // The access pattern of one instruction (what analyse gives its instruction_patterns).
  PatternView pattern_of(Frame frame);
  // The report's note naming the binaries that could not be read, if any.
  void add_notes(ReportModel& m) const;

 private:
  const Profile& db_;
  std::unique_ptr<CodeFacts> facts_;
};

// Fills Variable::evidence of the heap, static and stack variables with samples among the first `rows`
// variables of the model, and the pattern of each of their access paths, reading the binaries
// the database names. The others' sampled instructions are dropped, or with `keep_rest` kept
// for an EvidenceBuilder to analyse later.
void add_access_evidence(const Profile& db, ReportModel& m, size_t rows = SIZE_MAX,
                         bool keep_rest = false);

}  // namespace hpcl::analysis
