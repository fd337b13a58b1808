// Which ranks used which sampling source, kept through the merge (merge/source_ranks.h): ranks
// grouped into ranges per source, processes without a rank counted, fallback reasons kept, and
// nothing written when every process used the one source it asked for.
#include "merge/source_ranks.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace hpcl;
using namespace hpcl::analysis;

namespace {

Profile process(const char* source, const char* rank, const char* requested = "",
                const char* fallback = "", const char* pid = "4242") {
  Profile p;
  p.set_meta("source", source);
  p.set_meta("rank", rank);
  p.set_meta("pid", pid);
  if (*requested) p.set_meta("source_requested", requested);
  if (*fallback) p.set_meta("source_fallback", fallback);
  return p;
}

std::string meta(const Profile& p, const char* key) {
  const std::string* v = p.find_meta(key);
  return v ? *v : "(none)";
}

TEST(SourceRanks, RanksPerSourceAndTheFallbacks) {
  std::set<std::string> facts;
  for (const char* r : {"0", "1", "2", "5"}) facts.insert(source_fact(process("pebs-load", r, "pebs-load")));
  facts.insert(source_fact(process("soft", "3", "pebs-load", "pebs-load: perf_event_open refused; busy")));
  facts.insert(source_fact(process("soft", "4", "pebs-load", "pebs-load: no PMU")));
  Profile db;
  set_source_meta(facts, &db);
  EXPECT_EQ(meta(db, "source_ranks"), "pebs-load:0-2,5;soft:3-4");
  EXPECT_EQ(meta(db, "source_fallbacks"),
            "rank 3\x1fpebs-load\x1fpebs-load: perf_event_open refused, busy;"
            "rank 4\x1fpebs-load\x1fpebs-load: no PMU");
}

TEST(SourceRanks, OneSourceAsAskedWritesNothing) {
  std::set<std::string> facts;
  for (const char* r : {"0", "1"}) facts.insert(source_fact(process("soft", r, "auto")));
  Profile db;
  set_source_meta(facts, &db);
  EXPECT_EQ(meta(db, "source_ranks"), "(none)");
  EXPECT_EQ(meta(db, "source_fallbacks"), "(none)");
}

TEST(SourceRanks, ProcessesWithoutARankAndOddRanks) {
  std::set<std::string> facts;
  facts.insert(source_fact(process("pebs-load", "-1", "pebs-load", "", "10")));
  facts.insert(source_fact(process("soft", "-1", "pebs-load", "no PMU", "11")));
  facts.insert(source_fact(process("soft", "x7", "pebs-load", "", "12")));  // not a number
  Profile db;
  set_source_meta(facts, &db);
  EXPECT_EQ(meta(db, "source_ranks"), "pebs-load:1 process;soft:2 processes");
  EXPECT_EQ(meta(db, "source_fallbacks"), "pid 11\x1fpebs-load\x1fno PMU");
}

}  // namespace
