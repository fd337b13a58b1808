// Reading, validating and merging process profiles on worker threads (see merge.h).
#include "merge.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <system_error>
#include <thread>

#include "accumulator.h"
#include "runs.h"
#include "symbols/debug_hints.h"
#include "symbols/location.h"
#include "hpcl/io.h"
#include "hpcl/scan.h"
#include "symbols/stack_names.h"
#include "symbols/symbolize.h"

namespace hpcl::analysis {
namespace {

// The reader's messages start with the path; the skip report names the path itself.
std::string strip_path(const std::string& error, const std::string& path) {
  std::string prefix = path + ": ";
  return error.starts_with(prefix) ? error.substr(prefix.size()) : error;
}

// One worker's reader: its buffers serve every file the worker reads.
struct Reader {
  ProfileScanner scanner;
  ScannedProfile profile;
};

// Reads, checks and adds one file, once: the scanner checks all but children with the same key,
// which the accumulator finds while it adds the trees (and then adds nothing).
void merge_one(Accumulator& acc, Reader& reader, const std::string& path) {
  std::string error;
  try {
    error = reader.scanner.read_file(path, reader.profile);
    if (error.empty() && reader.profile.profile.kind != FileKind::Process) {
      acc.skip(path, "not a process profile (a database?)");
      return;
    }
    if (error.empty()) {
      if (std::string why = acc.add_process(reader.profile, path); !why.empty()) acc.skip(path, why);
      return;
    }
  } catch (const std::exception& e) {  // the reader should not throw; a bad_alloc still might
    acc.skip(path, e.what());
    return;
  }
  acc.skip(path, strip_path(error, path));
}

}  // namespace

void merge_into(Accumulator& into, std::vector<std::string> paths, unsigned jobs) {
  std::sort(paths.begin(), paths.end());
  const size_t nworkers = std::max<size_t>(1, std::min<size_t>(jobs, paths.size()));
  // Contiguous slices: each worker's partial is independent; canonical order comes at the end.
  // Worker 0 adds to `into` itself, which saves absorbing one partial.
  std::vector<Accumulator> partials(nworkers);
  for (Accumulator& a : partials) a.keep_rank_values(into.keeps_rank_values());
  auto acc = [&](size_t w) -> Accumulator& { return w == 0 ? into : partials[w]; };
  auto run = [&](size_t w) {
    size_t begin = paths.size() * w / nworkers, end = paths.size() * (w + 1) / nworkers;
    Reader reader;
    for (size_t i = begin; i < end; ++i) merge_one(acc(w), reader, paths[i]);
  };
  // The workers' partials are summed pairwise, the pairs of a round at once (log2 N rounds, as
  // hpcprof-lite-mpi sums its ranks'): absorbing one partial costs about what merging 60
  // profiles does (bm_analyzer's BM_PartialTransport), so 64 workers absorbed one after the
  // other would spend seconds on one core.
  auto in_parallel = [](size_t n, const std::function<void(size_t)>& f) {
    if (n == 1) return f(0);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < n; ++i) threads.emplace_back(f, i);
    for (std::thread& t : threads) t.join();
  };
  in_parallel(nworkers, run);
  for (size_t step = 1; step < nworkers; step *= 2)
    in_parallel((nworkers - step + 2 * step - 1) / (2 * step),
                [&](size_t pair) { acc(2 * step * pair).absorb(acc(2 * step * pair + step)); });
}

MergeOutcome finish_merge(Accumulator& merged, size_t found, const std::string& dir,
                          const MergeOptions& options) {
  MergeOutcome out;
  out.found = found;
  out.merged = merged.processes();
  for (auto& [path, reason] : merged.skipped()) out.skipped.push_back({path, reason});
  out.database = merged.finish();
  if (out.merged == 0) {
    const std::string which = found == 1 ? "the profile" : "none of the " + std::to_string(found) + " profiles";
    const std::string verb = found == 1 ? " could not be read" : " could be read";
    out.error = dir.empty() ? which + verb + "; nothing merged"
                            : which + " in " + dir + verb + (found == 1 ? " (damaged)" : " (all damaged)") +
                                  "; nothing merged";
    return out;
  }
  if (options.symbolize) {
    set_debug_root(options.debug_dir);
    SymbolizeResult sym = symbolize_frames(out.database.modules, frames_to_symbolize(out.database),
                                           options.jobs, out.database.script_frames);
    out.database.symbols = std::move(sym.symbols);
    out.warnings = std::move(sym.warnings);
    name_stack_slots(out.database);
    // The profiler's own libraries (libunwind, its runtime) are no business of the user's: their
    // frames are its own work, and installing their debug packages would change no report.
    std::erase_if(sym.no_debug_info, [](const std::string& m) { return is_profiler_module(m); });
    // Said once, here; the database keeps the list so that every report can repeat it.
    if (!sym.no_debug_info.empty()) {
      std::string list;
      for (const std::string& m : sym.no_debug_info) list += (list.empty() ? "" : ";") + m;
      out.database.set_meta(kMetaNoDebugInfo, list);
      auto packages = options.package_hints ? debian_packages(sym.no_debug_info)
                                            : std::map<std::string, std::string>{};
      out.warnings.push_back(missing_debug_info_message(sym.no_debug_info, packages));
    }
  }
  return out;
}

MergeOutcome merge_files(std::vector<std::string> paths, const MergeOptions& options) {
  Accumulator merged;
  merged.keep_rank_values(options.per_rank);
  size_t found = paths.size();
  merge_into(merged, std::move(paths), options.jobs);
  return finish_merge(merged, found, "", options);
}

std::string list_profiles(const std::string& dir, std::vector<std::string>* paths) {
  std::error_code ec;
  auto status = std::filesystem::status(dir, ec);
  if (ec || !std::filesystem::exists(status)) return dir + ": no such directory";
  if (!std::filesystem::is_directory(status)) return dir + ": not a directory";
  std::filesystem::directory_iterator it(dir, ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const auto& entry = *it;
    std::error_code fec;
    if (entry.path().extension() == ".hpcl" && entry.is_regular_file(fec))
      paths->push_back(entry.path().string());
  }
  if (ec) return dir + ": " + ec.message();
  if (paths->empty()) return "no profiles (*.hpcl) in " + dir;
  return "";
}

void note_other_runs(MergeOutcome& out, const RunChoice& runs) {
  if (runs.dropped.empty()) return;
  out.other_runs = runs.dropped;
  out.warnings.insert(out.warnings.begin(), runs.message);
  if (out.merged > 0) out.database.set_meta(kMetaRunsLeftOut, runs.message);
}

MergeOutcome merge_directory(const std::string& dir, const MergeOptions& options) {
  std::vector<std::string> paths;
  if (std::string error = list_profiles(dir, &paths); !error.empty()) {
    MergeOutcome out;
    out.error = error;
    return out;
  }
  Accumulator merged;
  merged.keep_rank_values(options.per_rank);
  size_t found = paths.size();
  // Two jobs measured into one directory merge as the latest alone (runs.h).
  RunChoice runs = choose_latest_run(paths, options.jobs);
  merge_into(merged, std::move(runs.kept), options.jobs);
  MergeOutcome out = finish_merge(merged, found, dir, options);
  note_other_runs(out, runs);
  return out;
}

}  // namespace hpcl::analysis
