// A small symbolized database built in code for the viewer's tests: two heap sites, two static
// variables (one named with terminal escapes), [stack] and no-data samples, 81 samples in all.
#pragma once

#include <map>

#include "profile_builder.h"

namespace hpcl::testing {

inline Profile make_viewer_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("tool", "hpcprof-lite");
  db.set_meta("source", "soft");
  db.modules = {{"/src/app", "", 0}};
  db.sites = {
      {AllocApi::Malloc, 0, {{0, 0x100}, {0, 0x200}}, 2, 4096},
      {AllocApi::Calloc, 0, {{0, 0x110}, {0, 0x200}}, 1, 100},
  };
  db.statics = {{0, 0x8000, 8, 0, "counter"}, {0, 0x9000, 16, 0, "evil\x1b[31mred\x07\nline"}};
  Tree t = new_tree(0);
  heap_sample(t, 0, {{0, 0x300}, {0, 0x400}}, 30);
  heap_sample(t, 0, {{0, 0x300}, {0, 0x500}}, 10);
  heap_sample(t, 1, {{0, 0x300}, {0, 0x500}}, 5);
  static_sample(t, 0, {{0, 0x300}, {0, 0x600}}, 20);
  static_sample(t, 1, {{0, 0x700}}, 1);
  unknown_sample(t, UnknownClass::Stack, {{0, 0x300}, {0, 0x400}}, 3);
  nodata_sample(t, {{0, 0x300}, {0, 0x400}}, 12);
  db.trees = {t};
  const std::map<Frame, SourceLoc> syms = {
      {{0, 0x100}, {"make_grid", "/src/grid.c", 41}},
      {{0, 0x110}, {"make_table", "/src/table.c", 9}},
      {{0, 0x200}, {"main", "/src/main.c", 5}},
      {{0, 0x300}, {"main", "/src/main.c", 14}},
      {{0, 0x400}, {"compute", "/src/kernel.c", 20}},
      {{0, 0x500}, {"update", "/src/kernel.c", 30}},
      {{0, 0x600}, {"count_it", "/src/main.c", 7}},
      {{0, 0x700}, {"bad\x1b]0;title\x07name", "/src/x.c", 1}},
  };
  for (const auto& [f, loc] : syms) db.symbols.push_back(Symbolized{f, {loc}});
  return db;
}

}  // namespace hpcl::testing
