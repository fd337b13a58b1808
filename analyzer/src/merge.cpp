// Reading, validating and merging process profiles on worker threads (see merge.h).
#include "merge.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <thread>

#include "accumulator.h"
#include "debug_hints.h"
#include "hpcl/io.h"
#include "symbolize.h"
#include "validate.h"

namespace hpcl::analysis {
namespace {

// The reader's messages start with the path; the skip report names the path itself.
std::string strip_path(const std::string& error, const std::string& path) {
  std::string prefix = path + ": ";
  return error.starts_with(prefix) ? error.substr(prefix.size()) : error;
}

void merge_one(Accumulator& acc, const std::string& path) {
  ReadResult r;
  try {
    r = read_profile_file(path);
  } catch (const std::exception& e) {  // the reader should not throw; a bad_alloc still might
    acc.skip(path, e.what());
    return;
  }
  if (!r.ok) {
    acc.skip(path, strip_path(r.error, path));
    return;
  }
  if (r.profile.kind != FileKind::Process) {
    acc.skip(path, "not a process profile (a database?)");
    return;
  }
  if (std::string why = validate_profile(r.profile); !why.empty()) {
    acc.skip(path, "damaged: " + why);
    return;
  }
  acc.add_process(r.profile);
}

}  // namespace

MergeOutcome merge_files(std::vector<std::string> paths, const MergeOptions& options) {
  MergeOutcome out;
  std::sort(paths.begin(), paths.end());
  out.found = paths.size();
  const size_t nworkers = std::max<size_t>(1, std::min<size_t>(options.jobs, paths.size()));

  // Contiguous slices: each worker's partial is independent; canonical order comes at the end.
  std::vector<Accumulator> partials(nworkers);
  auto run = [&](size_t w) {
    size_t begin = paths.size() * w / nworkers, end = paths.size() * (w + 1) / nworkers;
    for (size_t i = begin; i < end; ++i) merge_one(partials[w], paths[i]);
  };
  if (nworkers == 1) {
    run(0);
  } else {
    std::vector<std::thread> threads;
    for (size_t w = 0; w < nworkers; ++w) threads.emplace_back(run, w);
    for (std::thread& t : threads) t.join();
  }
  for (size_t w = 1; w < nworkers; ++w) partials[0].absorb(partials[w]);
  out.merged = partials[0].processes();
  for (auto& [path, reason] : partials[0].skipped()) out.skipped.push_back({path, reason});
  out.database = partials[0].finish();
  if (out.merged == 0) {
    out.error = "none of the " + std::to_string(out.found) + " profiles could be read; nothing merged";
    return out;
  }
  if (options.symbolize) {
    set_debug_root(options.debug_dir);
    SymbolizeResult sym = symbolize_frames(out.database.modules,
                                           frames_to_symbolize(out.database), options.jobs);
    out.database.symbols = std::move(sym.symbols);
    out.warnings = std::move(sym.warnings);
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

MergeOutcome merge_directory(const std::string& dir, const MergeOptions& options) {
  MergeOutcome out;
  std::error_code ec;
  auto status = std::filesystem::status(dir, ec);
  if (ec || !std::filesystem::exists(status)) {
    out.error = dir + ": no such directory";
    return out;
  }
  if (!std::filesystem::is_directory(status)) {
    out.error = dir + ": not a directory";
    return out;
  }
  std::vector<std::string> paths;
  std::filesystem::directory_iterator it(dir, ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const auto& entry = *it;
    std::error_code fec;
    if (entry.path().extension() == ".hpcl" && entry.is_regular_file(fec))
      paths.push_back(entry.path().string());
  }
  if (ec) {
    out.error = dir + ": " + ec.message();
    return out;
  }
  if (paths.empty()) {
    out.error = "no profiles (*.hpcl) in " + dir;
    return out;
  }
  out = merge_files(std::move(paths), options);
  if (out.merged == 0)
    out.error = "none of the " + std::to_string(out.found) + " profiles in " + dir +
                " could be read (all damaged); nothing merged";
  return out;
}

}  // namespace hpcl::analysis
