// The notes under a report: what a reader must know to trust its numbers (time weighting,
// sampled allocations, samples the runtime lost, modules without debug information). The prose
// lives here, apart from the arithmetic of the model (see report_parts.h).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "merge/runs.h"
#include "hpcl/text/words.h"
#include "report_parts.h"
#include "symbols/debug_hints.h"
#include "symbols/location.h"

namespace hpcl::analysis {

namespace {
// An unattributed class that holds this share of all samples or more is explained, with the
// functions that read it: the row alone names no variable to look at.
constexpr double kExplainedClassShare = 0.05;

// "[stack] holds 25.5% of the samples: ... Read in f (58.2%), g (38.0%) and 14 more functions."
// [untracked heap] has its own note (sampled small allocations) and is not repeated here.
void explain_classes(ReportModel& m) {
  constexpr size_t kNamed = 3;
  for (const Variable& v : m.variables) {
    const bool told = v.kind == VariableKind::Unknown && (v.name == "[stack]" || v.name == "[unknown data]");
    const char* meaning = told ? unknown_class_meaning(v.name) : nullptr;
    if (!meaning || v.share < kExplainedClassShare || v.read_in.empty() || v.samples == 0) continue;
    std::string readers;
    const size_t named = std::min(kNamed, v.read_in.size());
    for (size_t k = 0; k < named; ++k) {
      const ReaderShare& r = v.read_in[k];
      if (k > 0) readers += k + 1 == named && v.read_in.size() == named ? " and " : ", ";
      readers += r.function + " (" +
                 percent(static_cast<double>(r.samples) / static_cast<double>(v.samples)) + ")";
    }
    if (v.read_in.size() > named) readers += " and " + count_of(v.read_in.size() - named, "more function");
    m.notes.push_back(v.name + " holds " + percent(v.share) + " of the samples: " + meaning +
                      ". Read in " + readers + ".");
  }
}

// " They ran in libunwind.so.8 (41%: walking the allocations' call paths), libhpcrun-lite.so
// (33%: the profiler's own code) and 2 more modules." ("" without the modules): what a reader can
// act on (--track-budget, --small-every) depends on which part costs.
std::string own_work_where(const ReportModel& m) {
  constexpr size_t kNamed = 3;
  uint64_t total = 0;
  for (const auto& part : m.own_work_modules) total += part.second;
  if (total == 0) return "";
  auto what = [](const std::string& module) -> std::string {
    if (module.starts_with("libunwind")) return ": walking the allocations' call paths";
    if (module.starts_with("libhpcrun-lite")) return ": the profiler's own code";
    if (module.starts_with("libc.so")) return ": the C library, called by the profiler";
    return "";
  };
  std::string out = " They ran in ";
  const size_t named = std::min(kNamed, m.own_work_modules.size());
  for (size_t k = 0; k < named; ++k) {
    const auto& [module, samples] = m.own_work_modules[k];
    if (k > 0) out += k + 1 == named && m.own_work_modules.size() == named ? " and " : ", ";
    out += (module.empty() ? std::string("code outside any module") : module) + " (" +
           percent(static_cast<double>(samples) / static_cast<double>(total)) + what(module) + ")";
  }
  if (m.own_work_modules.size() > named)
    out += " and " + count_of(m.own_work_modules.size() - named, "more module");
  return out + ".";
}

// "40 ms", "2.5 s": a CPU time in a sentence.
std::string seconds_text(double s) {
  char buf[32];
  if (s < 1) snprintf(buf, sizeof buf, "%.0f ms", s * 1000);
  else snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}
}  // namespace

const char* unknown_class_meaning(std::string_view name) {
  if (name == "[stack]")
    return "local variables and arrays on the threads' stacks (C local arrays, Fortran automatic "
           "arrays and array temporaries, each OpenMP thread's private copies), which the report "
           "does not split by the function that owns them";
  if (name == "[unknown data]")
    return "memory that no heap block, static variable, stack or TLS block covers (mappings made "
           "with mmap, shared-memory segments of MPI, memory of the loader or the kernel)";
  if (name == "[untracked heap]")
    return "heap memory that no tracked block covers (small blocks not tracked, free memory "
           "the allocator walks, its own chunk headers and caches)";
  return nullptr;
}

void add_notes(ReportModel& m, const Profile& db) {
  if (m.source.empty() || m.source == "soft" || m.source == "mixed")
    m.notes.push_back(
        "Soft samples are time-weighted: a variable's share is its share of the time spent "
        "accessing memory, not of the accesses. Data that stays in cache gets fewer samples than "
        "its share of accesses.");
  // Name only the hottest few: an MPI program has hundreds of small sampled sites.
  constexpr size_t kNamed = 3;
  std::string sampled;
  size_t nsampled = 0;
  size_t named = 0;
  // The sites the model only counts (nothing measured) are among them, without samples.
  for (const QuietVariable& q : m.quiet) nsampled += q.sampled ? 1 : 0;
  for (const Variable& v : m.variables) {  // sorted hottest first
    if (!v.sampled) continue;
    ++nsampled;
    // Those that took samples are worth naming; the rest are only counted.
    if (v.samples > 0 && named < kNamed) {
      sampled += (sampled.empty() ? "" : "; ") + v.name;
      ++named;
    }
  }
  if (nsampled > named)
    sampled += (named ? "; and " : "") + std::to_string(nsampled - named) +
               (named ? " more" : " without samples");
  std::string every = meta_str(db, "small_every");
  if (nsampled > 0)
    m.notes.push_back("Sampled small allocations, " + std::to_string(nsampled) + " variable" +
                      (nsampled == 1 ? "" : "s") + " (blocks under " + meta_str(db, "min_bytes") +
                      " bytes, " +
                      (every == "auto" ? std::string("tracked one in k when the program allocated "
                                                     "faster than the tracking budget")
                                       : "one in " + every + " tracked") +
                      "; their samples, bytes and allocations cover only the tracked blocks, "
                      "samples_estimated all of them, taken from [untracked heap]): " +
                      sampled + ".");
  if (m.estimates_excess > 0) {
    const long excess = std::lround(m.estimates_excess);
    if (m.estimates_excess > m.estimates_excess_noise)
      m.notes.push_back("The estimates of sampled heap variables claimed " + std::to_string(excess) +
                        " samples more than fell outside the tracked blocks, beyond their noise: "
                        "some samples were counted twice. The estimates were scaled down to fit; "
                        "please report this with the database.");
    else if (excess > 0)
      m.notes.push_back("The estimates of sampled heap variables claimed " + std::to_string(excess) +
                        " samples more than fell outside the tracked blocks (within their noise); "
                        "they were scaled down to fit.");
  }
  explain_classes(m);
  // Every sample is attributed once, so the shares add up to 100% at most; more is a bug.
  if (m.share_sum > 1.0 + 1e-6)
    m.notes.push_back("The variables' shares add up to " + std::to_string(std::lround(m.share_sum * 100)) +
                      "%, more than 100%: some samples were counted twice; please report this "
                      "with the database.");
  if (m.samples_in_runtime > 0)
    m.notes.push_back(count_of(m.samples_in_runtime, "sample") +
                      " interrupted the profiler's own allocation tracking; " +
                      (m.samples_in_runtime == 1 ? "it is" : "they are") +
                      " code time of the interrupted instruction, without a data address." +
                      own_work_where(m));
  // The timer pauses inside dlopen (the loader, the new libraries' constructors). Said when that
  // time is worth a reader's attention: 1% of the time the samples stand for, or more.
  if (m.dlopen_unsampled_ns > 0 && m.soft_rate > 0 && m.samples_taken > 0) {
    const double sampled_s = double(m.samples_taken) / double(m.soft_rate);
    const double dlopen_s = double(m.dlopen_unsampled_ns) / 1e9;
    if (dlopen_s >= 0.01 * sampled_s)
      m.notes.push_back(seconds_text(dlopen_s) + " of CPU time inside dlopen (the loader and the "
                        "constructors of the libraries it opened) was not sampled: " +
                        std::to_string(std::lround(100 * dlopen_s / (dlopen_s + sampled_s))) +
                        "% of the CPU time measured. The profiler pauses its timer there.");
  }
  if (m.samples_dropped > m.samples_dropped_nested)
    m.notes.push_back(count_of(m.samples_dropped - m.samples_dropped_nested, "sample") + " " +
                      was_were(m.samples_dropped - m.samples_dropped_nested) +
                      " dropped by the runtime (the thread's calling-context tree was full) and " +
                      is_are(m.samples_dropped - m.samples_dropped_nested) + " not in this report.");
  if (m.samples_dropped_nested > 0)
    m.notes.push_back(count_of(m.samples_dropped_nested, "sample") +
                      " landed while the thread was recording a PAPI counter overflow and " +
                      is_are(m.samples_dropped_nested) + " not in this report (the profiler's own time).");
  if (m.offsets_lost > 0)
    m.notes.push_back(count_of(m.offsets_lost, "sample") + " " + is_are(m.offsets_lost) +
                      " missing from the offset histograms (the runtime's table of variables was "
                      "full, or the sample fell on another thread's TLS).");
  if (m.samples_overflowed > 0)
    m.notes.push_back(count_of(m.samples_overflowed, "sample") + " " + was_were(m.samples_overflowed) +
                      " lost: the kernel's queue of pending signals was full (the user's "
                      "RLIMIT_SIGPENDING); " + (m.samples_overflowed == 1 ? "it is" : "they are") +
                      " not in this report.");
  if (m.allocs_lost > 0)
    m.notes.push_back(count_of(m.allocs_lost, "allocation") + " " + was_were(m.allocs_lost) +
                      " not tracked: the runtime's table of allocation sites or its address map "
                      "was full; samples in those blocks are under [untracked heap].");
  if (!m.skipped.empty()) m.notes.push_back("Inputs skipped by the merge: " + m.skipped + ".");
  if (std::string runs = meta_str(db, kMetaRunsLeftOut); !runs.empty())
    m.notes.push_back("The measurement directory held more than one run: " + runs + ".");
  if (std::string nodebug = meta_str(db, kMetaNoDebugInfo); !nodebug.empty()) {
    // An MPI stack is dozens of libraries: name a few, count the rest.
    constexpr size_t kNamedModules = 6;
    std::string names;
    size_t count = 0;
    for (size_t at = 0; at <= nodebug.size(); ++count) {
      size_t end = std::min(nodebug.find(';', at), nodebug.size());
      if (count < kNamedModules)
        names += (names.empty() ? "" : ", ") + std::string(basename_of(nodebug.substr(at, end - at)));
      at = end + 1;
    }
    if (count > kNamedModules) names += " and " + std::to_string(count - kNamedModules) + " more";
    m.notes.push_back("No debug information for " + names +
                      ": their frames have no file and line (hpcprof-lite merge says how to "
                      "get it).");
  }
}

}  // namespace hpcl::analysis
