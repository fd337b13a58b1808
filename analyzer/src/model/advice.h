// What to try for one variable: a few lines, each naming the evidence it rests on, never going
// beyond it. Each rule reads the variable's access evidence (access_evidence.h) or the results of
// the watchpoint and page-fault sources:
//   storage_order          a constant stride larger than a line carries a good part of its
//                          samples: traverse it in storage order, or interchange the loops (said
//                          when the enclosing loop moves by less, or the stride is a pitch of
//                          the static array's dimensions);
//   split_structure        a few fields of a large element take most of its samples: split the
//                          structure (hot and cold), or make it a structure of arrays;
//   contiguous_allocation  pointer chasing over many small blocks of one site: allocate them
//                          contiguously (a pool or an array);
//   sort_index             indirect accesses: sort the index, or block the loop;
//   pad_shared_fields      false sharing seen by the watchpoints: pad or align what each thread
//                          writes;
//   parallel_first_touch   one thread first-touched every page of data many threads use:
//                          initialise it in parallel.
// The first three need data larger than a first-level cache (64 KiB). The thresholds are written
// where they are used; docs/REPORT.md lists them.
#pragma once

#include <vector>

#include "access_evidence.h"

namespace hpcl::analysis {

struct Variable;
struct ReportModel;

std::vector<Advice> advise(const Variable& v, const ReportModel& m);

}  // namespace hpcl::analysis
