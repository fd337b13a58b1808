// The rows of the report model: a variable per heap allocation site, named once every site is
// known, a variable per static symbol with its source-level name, and the labels of the
// unknown-data classes (see report_parts.h).
#include <charconv>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "container_plumbing.h"
#include "heap_naming.h"
#include "runtime_libs.h"
#include "report_parts.h"
#include "symbols/naming.h"

namespace hpcl::analysis {

uint64_t meta_u64(const Profile& db, const char* key) {
  const std::string* s = db.find_meta(key);
  uint64_t v = 0;
  if (s != nullptr) std::from_chars(s->data(), s->data() + s->size(), v);
  return v;
}

std::string meta_str(const Profile& db, const char* key) {
  const std::string* s = db.find_meta(key);
  return s != nullptr ? *s : std::string();
}

std::string unknown_class_name(uint32_t a) {
  if (a & kReadByMpi) {
    const std::string base = unknown_class_name(a & ~kReadByMpi);
    return base.substr(0, base.size() - 1) + " read by MPI]";
  }
  if (a == static_cast<uint32_t>(UnknownClass::Stack)) return "[stack]";
  if (a == static_cast<uint32_t>(UnknownClass::Other)) return "[unknown data]";
  if (a == static_cast<uint32_t>(UnknownClass::UntrackedHeap)) return "[untracked heap]";
  return "[unknown data class " + std::to_string(a) + "]";
}

namespace {

// How far outward a shared label looks for a caller that tells its sites apart.
constexpr size_t kCallerDepth = 8;

// The label of a site once its naming frame is known (`label`, heap_site_context_label): the name
// the program knows the memory by (a mapped file's path, a shared-memory segment, a name given to
// hpcrun_lite_name) when it has one; a pmr resource's buffer by the resource and the function
// (not the line of its first user); the runtime library call that allocated for the program
// ("_gfortran_string_trim in ...").
std::string site_label(const AllocSite& site, const std::vector<Location>& frames, size_t named,
                       std::string label) {
  if (!site.name.empty()) return site.name;
  if (named >= frames.size()) return label;
  if (std::string pmr = heap_site_pmr_resource(frames, named); !pmr.empty()) {
    const Location& f = frames[named];
    std::string where = !f.file.empty() ? std::string(basename_of(f.file)) : std::string(basename_of(f.module));
    return pmr + " in " + (f.function.empty() ? location_label(f) : qualified_base_name(f.function)) +
           (where.empty() ? "" : " (" + where + ")");
  }
  if (std::string call = heap_site_runtime_call(frames, named); !call.empty())
    return call + " in " + label;
  return label;
}

// The module that owns a site's data: that of the frame naming it. MPI and OpenMP allocate their
// own state inside the program's call (MPI_Init: 15,000 sites on LAMMPS, all "PMPI_Init in
// main"): named by that call, it stays in the runtime's group row, which --no-group opens. The
// Fortran runtime's and the numerical libraries' buffers (array temporaries, FFT plans) are the
// program's data and stay rows of their own.
std::string site_data_module(const AllocSite& site, const std::vector<Location>& frames, size_t named) {
  // Memory with a name of its own (a mapped file, a shared-memory segment) is the program's,
  // unless MPI made it while it started: its transports' segments (/dev/shm/vader_segment.*), which
  // MPI polls while a rank waits. A shared window made later (MPI_Win_allocate_shared) stays a row.
  const std::string call = heap_site_runtime_call(frames, named);
  const bool mpi_start = call.starts_with("PMPI_Init") || call.starts_with("MPI_Init");
  if (std::string lib = heap_site_runtime_module(frames, named);
      (site.name.empty() || mpi_start) && !lib.empty() &&
      (runtime_family(lib) == RuntimeFamily::Mpi || runtime_family(lib) == RuntimeFamily::OpenMp))
    return lib;
  return named < frames.size() ? std::string(frames[named].module) : std::string();
}

}  // namespace

// Heap variables, named once every site is known: the wrapper rule needs all allocation paths,
// and making labels distinct needs all labels.
void add_heap_variables(const Profile& db, const PathExpander& expand, const ReportModelOptions& options,
                        const std::vector<bool>& measured, ReportModel& m, RowMap& rows) {
  // Paths are expanded again where needed rather than kept: held all at once, the paths of
  // CP2K's 290,000 sites took most of a gigabyte. Only the built variables keep theirs.
  auto path_of = [&](size_t s, std::vector<Location>& out) {
    expand.append_path(db.sites[s].frames, /*allocation=*/true, out);
  };
  AllocWrappers wrappers(options.alloc_wrappers, options.detect_alloc_wrappers);
  wrappers.learn(db.sites.size(), path_of);

  std::vector<std::vector<Location>> paths(db.sites.size());  // of the built variables, if kept
  std::vector<std::string> labels(db.sites.size());
  std::vector<std::vector<InternedString>> callers(db.sites.size());
  std::vector<size_t> named(db.sites.size());
  // The module that owns each site's data, as an index into a list of the distinct ones: the
  // built sites' into `modules`, the others' into m.quiet_modules. A string per site took 12 MB
  // of a report of 380,000 sites (bench/report_sites.sh), most of them never built.
  std::vector<std::string> modules;
  std::map<std::string, uint32_t> module_index, quiet_module;
  auto intern = [](std::map<std::string, uint32_t>& index, std::vector<std::string>& list,
                   std::string module) {
    auto [it, fresh] = index.try_emplace(std::move(module), static_cast<uint32_t>(list.size()));
    if (fresh) list.push_back(it->first);
    return it->second;
  };
  std::vector<uint32_t> built_module(db.sites.size());
  std::vector<Location> scratch;
  for (size_t s = 0; s < db.sites.size(); ++s) {
    const bool built = measured.empty() || measured[s];
    std::vector<Location>& frames = built && options.keep_allocation_paths ? paths[s] : scratch;
    frames.clear();
    path_of(s, frames);
    named[s] = heap_site_frame(frames, &wrappers);
    // Skipped frames of the program's code: its allocation wrappers and container plumbing.
    for (size_t j = 0; j < frames.size() && j <= named[s]; ++j)
      frames[j].wrapper = !is_allocator_or_runtime(frames[j]) &&
                          (wrappers.is_wrapper(frames[j]) ||
                           (j < named[s] && !is_library_frame(frames[j]) && may_be_plumbing(frames[j])));
    if (named[s] < frames.size()) {
      labels[s] = heap_site_context_label(frames, named[s]);
      // The callers outward, for telling apart the sites that share a label.
      for (size_t k = named[s] + 1; k < frames.size() && callers[s].size() < kCallerDepth; ++k)
        callers[s].push_back(heap_site_label(frames[k]));
    } else {
      labels[s] = std::string("[") + alloc_api_name(db.sites[s].api) + " from an unknown context]";
    }
    labels[s] = site_label(db.sites[s], frames, named[s], std::move(labels[s]));
    const AllocSite& site = db.sites[s];
    std::string module = site_data_module(site, frames, named[s]);
    if (built) {
      built_module[s] = intern(module_index, modules, std::move(module));
    } else {
      m.quiet.push_back({VariableKind::Heap, (site.flags & kSiteSampled) != 0,
                         intern(quiet_module, m.quiet_modules, std::move(module)), site.bytes,
                         site.allocations});
    }
  }
  // Sites with the same frames and name (they differ in API or sampling only) are one place of
  // the program: they keep one label, and only distinct places are told apart.
  // Keyed by the site itself, compared by its frames and name: no copy of every path.
  auto same_place_before = [](const AllocSite* x, const AllocSite* y) {
    return std::tie(x->frames, x->name) < std::tie(y->frames, y->name);
  };
  std::map<const AllocSite*, size_t, decltype(same_place_before)> place(same_place_before);
  std::vector<size_t> first(db.sites.size());
  std::vector<std::string> place_labels;
  std::vector<std::vector<InternedString>> place_callers;
  for (size_t s = 0; s < db.sites.size(); ++s) {
    auto [it, fresh] = place.try_emplace(&db.sites[s], place_labels.size());
    if (fresh) {
      place_labels.push_back(std::move(labels[s]));
      place_callers.push_back(std::move(callers[s]));
    }
    first[s] = it->second;
  }
  std::vector<std::vector<InternedString>>().swap(callers);
  disambiguate_labels(place_labels, place_callers);
  std::vector<std::vector<InternedString>>().swap(place_callers);
  for (size_t s = 0; s < db.sites.size(); ++s) labels[s] = place_labels[first[s]];

  for (size_t s = 0; s < db.sites.size(); ++s) {
    const AllocSite& site = db.sites[s];
    if (!measured.empty() && !measured[s]) continue;
    Variable v;
    v.kind = VariableKind::Heap;
    v.allocator = alloc_api_name(site.api);
    v.sampled = (site.flags & kSiteSampled) != 0;
    v.allocations = site.allocations;
    v.bytes = site.bytes;
    v.name = std::move(labels[s]);
    // A label that starts "in Caller (...)" (a stripped site named by its caller) says "in"
    // itself: "malloc in Caller", not "malloc in in Caller".
    v.allocation_site = v.allocator + (v.name.starts_with("in ") ? " " : " in ") + v.name;
    v.data_module = modules[built_module[s]];
    if (options.keep_allocation_paths) {
      v.label_frame = named[s] < paths[s].size() ? named[s] + 1 : 0;
      // The site's own path becomes the variable's, the API's pseudo-frame in front, at its
      // exact size: a copy left every path held twice until the last variable was built (CP2K
      // --all: 5.5 million frames of 64 bytes each, once is 350 MB).
      std::vector<Location>& path = paths[s];
      path.insert(path.begin(), Location{v.allocator, {}, 0, {}, 0, false});
      path.shrink_to_fit();
      v.allocation_path = std::move(path);
    }
    rows[s] = m.variables.size();
    m.variables.push_back(std::move(v));
  }
}

namespace {

// Modules whose code is Fortran: a symbolized frame in a Fortran source file, or a gfortran
// module symbol among their statics. Their `name_` statics are shown as COMMON blocks.
std::vector<bool> fortran_modules(const Profile& db) {
  std::vector<bool> fortran(db.modules.size(), false);
  for (const Symbolized& s : db.symbols)
    if (s.frame.module < fortran.size() && !fortran[s.frame.module])
      for (const SourceLoc& l : s.locs)
        if (is_fortran_source(l.file)) fortran[s.frame.module] = true;
  for (const StaticVar& v : db.statics)
    if (v.module < fortran.size() && v.name.starts_with("__") &&
        v.name.find("_MOD_") != std::string::npos)
      fortran[v.module] = true;
  return fortran;
}

// Per Fortran module: the COMMON blocks its DWARF declares, or nullopt (no DWARF, no file, or
// not Fortran), when the `name_` heuristic decides alone.
using CommonBlocks = std::vector<std::optional<std::set<std::string>>>;
CommonBlocks common_blocks(const Profile& db, const std::vector<bool>& fortran) {
  CommonBlocks blocks(db.modules.size());
  for (size_t m = 0; m < db.modules.size(); ++m)
    if (fortran[m]) blocks[m] = dwarf_common_blocks(db.modules[m].path);
  return blocks;
}

Variable static_variable(const StaticVar& s, const Profile& db, const std::vector<bool>& fortran,
                         const CommonBlocks& blocks) {
  Variable v;
  v.kind = VariableKind::Static;
  v.name = static_display_name(s.name);
  if (s.module < fortran.size() && fortran[s.module]) {
    const std::optional<std::set<std::string>>& declared = blocks[s.module];
    std::string common = fortran_common_block_name(s.name);
    if (declared && declared->count(s.name) != 0 && common.empty())
      common = "/" + s.name.substr(0, s.name.size() - (s.name.ends_with('_') ? 1 : 0)) + "/";
    if (declared && declared->count(s.name) == 0) common.clear();
    if (!common.empty()) v.name = std::move(common);
  }
  v.symbol = s.name;
  v.module = s.module < db.modules.size() ? db.modules[s.module].path : std::string();
  v.data_module = v.module;
  v.bytes = s.size;
  v.tls = (s.flags & kStaticTls) != 0;
  return v;
}

}  // namespace

void add_static_variables(const Profile& db, const std::vector<bool>& measured, ReportModel& m,
                          RowMap& rows) {
  const std::vector<bool> fortran = fortran_modules(db);
  const CommonBlocks blocks = common_blocks(db, fortran);
  // A quiet static's data module is its own module: one entry per module of the database.
  std::vector<uint32_t> quiet_module(db.modules.size() + 1, UINT32_MAX);
  for (size_t k = 0; k < db.statics.size(); ++k) {
    const StaticVar& s = db.statics[k];
    const size_t r = db.sites.size() + k;
    if (measured.empty() || measured[r]) {
      rows[r] = m.variables.size();
      m.variables.push_back(static_variable(s, db, fortran, blocks));
      continue;
    }
    const size_t mod = std::min<size_t>(s.module, db.modules.size());
    if (quiet_module[mod] == UINT32_MAX) {
      quiet_module[mod] = static_cast<uint32_t>(m.quiet_modules.size());
      m.quiet_modules.push_back(s.module < db.modules.size() ? db.modules[s.module].path : std::string());
    }
    m.quiet.push_back({VariableKind::Static, false, quiet_module[mod], s.size, 0});
  }
}

}  // namespace hpcl::analysis
