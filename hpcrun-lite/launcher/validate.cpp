// See validate.h.
#include "validate.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "install_paths.h"
#include "hpcl/io.h"
#include "hpcl/profile.h"
#include "hpcrun/probe/source_verdict.h"

extern char** environ;

namespace hpcrun {

namespace {

namespace fs = std::filesystem;

constexpr double kTolerancePoints = 5.0;
constexpr uint64_t kMinArraySamples = 200;  // below it, binomial noise alone is over 3 points
constexpr const char* kKernelSeconds = "1.5";
// soft samples at 4,000/s here, eight times its default: the kernel's 1.5 s then give ~6,000
// samples and binomial noise of 0.6 points on a third, so the tolerance is 8 sigma and leaves
// room for what the kernel's clock and the sampler disagree on (up to 2 points seen). At 1,000/s
// (1.2 points of noise, 4 sigma, over three arrays) about one run in 10,000 failed on noise
// alone, before any disagreement; at 500/s about one in a hundred.
constexpr const char* kSoftRate = "@4000";
constexpr int kTimeoutSeconds = 180;
constexpr int kArrays = 3;
constexpr int kLevels = int(hpcl::MemLevel::Count);

struct Truth {
  uint64_t bytes = 0, loads = 0, ns = 0;
};

struct Measured {
  std::string source;            // META source: what the runtime really used
  uint64_t samples = 0;          // every sample of the run
  uint64_t on_array[kArrays] = {};
  uint64_t latency = 0, latency_samples = 0;
  uint64_t levels[kLevels] = {};
};

// Runs `hpcrun-lite -e SOURCE -o DIR/meas -- KERNEL SECONDS` with its output in DIR; false with
// why when it did not end well.
bool run_measured(const std::string& source, const fs::path& dir, const std::string& kernel,
                  std::string* why) {
  const std::string self = launcher_dir() + "/hpcrun-lite";
  const std::string out = (dir / "meas").string();
  std::vector<std::string> args = {self, "-e", source, "-o", out, "--", kernel, kKernelSeconds};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, (dir / "kernel.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, (dir / "kernel.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid;
  int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    *why = std::string("cannot start ") + self + ": " + strerror(rc);
    return false;
  }
  const time_t deadline = time(nullptr) + kTimeoutSeconds;
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      *why = std::string("waitpid: ") + strerror(errno);
      return false;
    }
    if (time(nullptr) > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      *why = "the kernel did not end within " + std::to_string(kTimeoutSeconds) + " s";
      return false;
    }
    struct timespec ms{0, 50000000};
    nanosleep(&ms, nullptr);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream err(dir / "kernel.err");
    std::stringstream text;
    text << err.rdbuf();
    *why = "the measured kernel failed (" +
           (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                              : "signal " + std::to_string(WTERMSIG(status))) +
           ")" + (text.str().empty() ? "" : ": " + text.str());
    while (!why->empty() && why->back() == '\n') why->pop_back();
    return false;
  }
  return true;
}

bool read_truth(const fs::path& dir, Truth truth[kArrays], uint32_t* reader, std::string* why) {
  std::ifstream in(dir / "kernel.out");
  std::string word;
  int k = 0;
  *reader = 0;
  while (k < kArrays && in >> word) {
    if (word == "reader_tid") in >> *reader;
    if (word != "array") continue;
    std::string loads, ns;
    in >> truth[k].bytes >> loads >> truth[k].loads >> ns >> truth[k].ns;
    if (!in || loads != "loads" || ns != "cpu_ns") break;
    ++k;
  }
  if (k == kArrays && *reader) return true;
  *why = "the kernel printed no truth (" + (dir / "kernel.out").string() + ")";
  return false;
}

// The reading thread's samples (the arrays are filled by another thread, whose are not).
bool read_measured(const fs::path& dir, const Truth truth[kArrays], uint32_t reader, Measured* m,
                   std::string* why) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / "meas", ec))
    if (e.path().extension() == ".hpcl") files.push_back(e.path());
  if (files.size() != 1) {
    *why = std::to_string(files.size()) + " profiles written, expected 1";
    return false;
  }
  hpcl::ReadResult r = hpcl::read_profile_file(files[0].string());
  if (!r.ok) {
    *why = "cannot read the profile: " + r.error;
    return false;
  }
  const hpcl::Profile& p = r.profile;
  if (const std::string* s = p.find_meta("source")) m->source = *s;
  for (const hpcl::Tree& t : p.trees) {
    if (t.tid != reader) continue;
    // The array each node lies under (parents come before children), -1 for none.
    std::vector<int> array(t.nodes.size(), -1);
    for (size_t i = 0; i < t.nodes.size(); ++i) {
      const hpcl::Node& n = t.nodes[i];
      if (n.kind == hpcl::NodeKind::HeapVar) {
        for (int k = 0; k < kArrays; ++k)
          if (n.a < p.sites.size() && p.sites[n.a].bytes == truth[k].bytes) array[i] = k;
      } else if (n.parent != hpcl::kNoParent) {
        array[i] = array[n.parent];
      }
      const uint64_t samples = n.metric(hpcl::kMetricSamples);
      m->samples += samples;
      if (array[i] < 0) continue;
      m->on_array[array[i]] += samples;
      m->latency += n.metric(hpcl::kMetricLatency);
      m->latency_samples += n.metric(hpcl::kMetricLatencySamples);
      for (int l = 0; l < kLevels; ++l)
        m->levels[l] += n.metric(uint16_t(hpcl::kMetricDataSrcBase + l));
    }
  }
  return true;
}

// The level names of the data sources seen, largest first: "local_dram 91%, l3 6%, ...".
std::string level_mix(const Measured& m) {
  uint64_t total = 0;
  for (uint64_t v : m.levels) total += v;
  if (!total) return "";
  std::vector<std::pair<uint64_t, int>> order;
  for (int l = 0; l < kLevels; ++l)
    if (m.levels[l]) order.push_back({m.levels[l], l});
  std::sort(order.rbegin(), order.rend());
  std::string s;
  for (const auto& [v, l] : order) {
    char part[64];
    snprintf(part, sizeof part, "%s%s %.0f%%", s.empty() ? "" : ", ",
             hpcl::metric_name(uint16_t(hpcl::kMetricDataSrcBase + l)), 100.0 * double(v) / double(total));
    s += part;
  }
  return s;
}

// One source's run and verdict, printed; true when it passed.
bool validate_source(FILE* out, const char* name, bool time_weighted, const std::string& kernel) {
  const char* base = getenv("TMPDIR");
  std::string dir_text = std::string(base && *base ? base : "/tmp") + "/hpcrun-lite-validate-XXXXXX";
  std::vector<char> buf(dir_text.begin(), dir_text.end());
  buf.push_back(0);
  const char* made = mkdtemp(buf.data());
  if (!made) {
    fprintf(out, "  %-12s %-8s cannot make a directory for the run: %s\n", name, "FAIL", strerror(errno));
    return false;
  }
  const fs::path dir(made);
  std::string why;
  Truth truth[kArrays];
  uint32_t reader = 0;
  Measured m;
  const std::string source = std::string(name) + (time_weighted ? kSoftRate : "");
  bool ok = run_measured(source, dir, kernel, &why) && read_truth(dir, truth, &reader, &why) &&
            read_measured(dir, truth, reader, &m, &why);
  if (ok && m.source != name) {
    why = std::string("the runtime sampled with ") + (m.source.empty() ? "nothing" : m.source) +
          " instead (see " + (dir / "kernel.err").string() + ")";
    ok = false;
  }
  if (!ok) {
    fprintf(out, "  %-12s %-8s %s\n", name, "FAIL", why.c_str());
    fprintf(out, "  %-12s %-8s the run's files: %s\n", "", "", dir.c_str());
    return false;
  }
  uint64_t on_arrays = 0, loads = 0, ns = 0;
  for (int k = 0; k < kArrays; ++k) {
    on_arrays += m.on_array[k];
    loads += truth[k].loads;
    ns += truth[k].ns;
  }
  double worst = 0;
  std::string shares;
  for (int k = 0; k < kArrays; ++k) {
    const double share = on_arrays ? 100.0 * double(m.on_array[k]) / double(on_arrays) : 0;
    const double want = time_weighted ? 100.0 * double(truth[k].ns) / double(ns ? ns : 1)
                                      : 100.0 * double(truth[k].loads) / double(loads ? loads : 1);
    worst = std::max(worst, std::fabs(share - want));
    char part[80];
    snprintf(part, sizeof part, "%sarray %d %.1f%% (truth %.1f%%)", k ? ", " : "", k + 1, share, want);
    shares += part;
  }
  const bool enough = on_arrays >= kMinArraySamples;
  const bool pass = enough && worst <= kTolerancePoints;
  fprintf(out, "  %-12s %-8s %llu samples of the reading thread, %llu on the arrays; shares of the %s: %s; off by %.1f "
               "points at most (%s %.0f)\n",
          name, pass ? "pass" : "FAIL", (unsigned long long)m.samples, (unsigned long long)on_arrays,
          time_weighted ? "CPU time" : "loads", shares.c_str(), worst,
          pass ? "within" : enough ? "more than" : "too few samples to judge; needs", 
          pass || enough ? kTolerancePoints : double(kMinArraySamples));
  if (m.latency_samples)
    fprintf(out, "  %-12s %-8s latency: mean %.0f cycles over %llu samples\n", "", "",
            double(m.latency) / double(m.latency_samples), (unsigned long long)m.latency_samples);
  if (std::string mix = level_mix(m); !mix.empty())
    fprintf(out, "  %-12s %-8s data source: %s\n", "", "", mix.c_str());
  if (pass) fs::remove_all(dir);
  else fprintf(out, "  %-12s %-8s the run's files: %s\n", "", "", dir.c_str());
  return pass;
}

}  // namespace

int run_validate(FILE* out, const HardwareProbe& hw) {
  const std::string kernel = find_validate_kernel();
  fprintf(out, "\nvalidation: the built-in kernel (three arrays read 1:2:3) measured under each "
               "source; the arrays' shares against the truth, within %.0f points\n\n",
          kTolerancePoints);
  if (kernel.empty()) {
    fprintf(out, "  cannot find hpcrun-lite-validate-kernel relative to the launcher (in " HPCL_BIN_TO_LIBEXEC
                 "/ or beside it)\n");
    return 1;
  }
  fflush(out);
  bool all = true;
  int ran = 0;
  for (ProbedSource s : {kProbeSoft, kProbePebsLoad, kProbePebsStore, kProbeIbsOp}) {
    const char* name = probed_name(s);
    const SourceVerdict v = source_verdict(hw, s);
    if (v.verdict != Verdict::Works) {
      fprintf(out, "  %-12s %-8s %s\n", name, "skipped", v.reason);
      continue;
    }
    if (s == kProbePebsStore) {
      fprintf(out, "  %-12s %-8s the kernel only reads: stores are not validated\n", name, "skipped");
      continue;
    }
    all = validate_source(out, name, s == kProbeSoft, kernel) && all;
    ++ran;
    fflush(out);
  }
  fprintf(out, "\n%s\n", all ? "validation passed" : "validation FAILED: send the output above and "
                               "the machine's files (README.md, \"On a new cluster\")");
  return all && ran > 0 ? 0 : 1;
}

}  // namespace hpcrun
