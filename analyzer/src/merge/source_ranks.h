// Which sampling source each process used, for a database whose processes did not all use the
// same one: a rank asked for pebs-load where the kernel refused the event, or on a node without
// the PMU, sampled with soft instead (the runtime falls back, META source_requested and
// source_fallback). The database then says which ranks used which source (META source_ranks)
// and why each fallback happened (META source_fallbacks); the report header prints both.
#pragma once

#include <set>
#include <string>

#include "hpcl/profile.h"

namespace hpcl::analysis {

// One process's fact, as one string (a set of them travels between merge workers as META).
std::string source_fact(const Profile& process);

// Sets the database's META source_ranks ("pebs-load:0-2,5;soft:3") and source_fallbacks
// ("rank 3\x1fpebs-load\x1freason;...") from every process's fact: only when the processes used
// more than one source or one of them fell back, so that other databases stay as they were.
void set_source_meta(const std::set<std::string>& facts, Profile* db);

}  // namespace hpcl::analysis
