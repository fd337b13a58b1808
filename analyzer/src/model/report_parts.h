// What the files of the report model share, private to model/. Each builds one part of a
// ReportModel: report_variables.cpp its rows (heap sites, statics, unknown classes),
// report_rows.cpp their order, runtime groups and spread over ranks and threads,
// report_notes.cpp the caveats a reader must know; report_model.cpp runs them in order over the
// database's tree.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hpcl/profile.h"
#include "path_expander.h"
#include "report_model.h"

namespace hpcl::analysis {

// A META value as a number (0 when absent or not a number) or a string ("" when absent).
uint64_t meta_u64(const Profile& db, const char* key);
std::string meta_str(const Profile& db, const char* key);

// The model's row of each database variable (its sites, then its statics); kNoRow for one the
// model only counts (ReportModel::quiet).
inline constexpr size_t kNoRow = static_cast<size_t>(-1);
using RowMap = std::vector<size_t>;

// report_variables.cpp: one Variable per allocation site of the database, in site order, named
// by heap_naming.h's rules; one per static variable, in static order, after them; the label of
// an unknown-data class. `measured` (sites, then statics; empty: all) says which to build: the
// others go to m.quiet. Every site is named all the same: labels are made distinct over all.
void add_heap_variables(const Profile& db, const PathExpander& expand, const ReportModelOptions& options,
                        const std::vector<bool>& measured, ReportModel& m, RowMap& rows);
void add_static_variables(const Profile& db, const std::vector<bool>& measured, ReportModel& m,
                          RowMap& rows);
std::string unknown_class_name(uint32_t cls);

// stack_rows.cpp: the row of the samples below a StackSlot node (under its StackOwner) of the
// tree: the local variable STACK_NAMES names for the slot ("acc (local of kernel, k.c:14)"),
// else the owning frame as a whole ("[stack of kernel]"). Rows are appended to m the first time
// they are met; kNoRow for any other node.
// Where in a local its samples fell, as the OFFSETS of heap and static variables: the `samples`
// of its slot [lo, lo + width) from the CFA, into v's offset bins (the variable's own extent).
void add_stack_offsets(Variable& v, int64_t lo, uint32_t width, uint64_t samples);
// The stack rows' spread over the ranks and threads of the run (STACK_THREADS): each stack
// node's samples per thread, summed by the row that `row_of` gives the node (past the rows: none).
void add_stack_balance(ReportModel& m, const Profile& db, const std::vector<size_t>& row_of);
class StackRows {
 public:
  StackRows(const Profile& db, const PathExpander& expand);
  size_t row(const Tree& tree, size_t node, ReportModel& m);

 private:
  static constexpr uint32_t kNoVar = UINT32_MAX;
  const Profile& db_;
  const PathExpander& expand_;
  std::map<std::string, size_t> by_name_;  // rows by name: two pcs' entries of one local are one
  std::map<uint32_t, size_t> by_var_;      // by STACK_NAMES variable
  std::map<Frame, size_t> by_owner_;       // the frames as a whole, by owner
};
// An unknown-data class (UnknownClass) or'ed with this: the samples of that class taken by MPI's
// code (a frame of the access path is in an MPI module): MPI's own memory outside any tracked
// block (its free lists, its queues), which the report folds into [MPI runtime data].
inline constexpr uint32_t kReadByMpi = 0x100;

// report_rows.cpp.
void set_interval(Variable& v, uint64_t total);
bool hotter(const Variable& x, const Variable& y);
// std::stable_sort of the rows without its buffer of as many Variables (1.3 KB each: 280 MB for
// CP2K's 212,000 under --all): sorts their indices, then moves each row once into place.
void stable_sort_rows(std::vector<Variable>& rows, const std::function<bool(const Variable&, const Variable&)>& less);
// Folds m.quiet too (into the groups' counts, or ReportModel::variables_not_built), then empties it.
void group_runtime_variables(ReportModel& m);
// `unknown_var`: the model's variable of each unknown class met in the tree.
void add_balance(ReportModel& m, const Profile& db, const RowMap& rows,
                 const std::map<uint32_t, size_t>& unknown_var);
void add_first_touch(ReportModel& m, const Profile& db, const RowMap& rows,
                     const std::map<uint32_t, size_t>& unknown_var);

// report_notes.cpp: the model's notes, once its variables are sorted.
void add_notes(ReportModel& m, const Profile& db);

}  // namespace hpcl::analysis
