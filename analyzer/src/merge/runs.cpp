// Telling the runs of one measurement directory apart (see runs.h).
#include "runs.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <thread>

#include "hpcl/io.h"

namespace hpcl::analysis {
namespace {

bool number(const std::string* v, long long* out) {
  if (!v || v->empty()) return false;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (*end != 0) return false;
  *out = n;
  return true;
}

RunFacts facts_of(const std::string& path, bool size) {
  RunFacts f;
  f.path = path;
  if (struct stat st {}; size && ::stat(path.c_str(), &st) == 0) f.bytes = static_cast<uint64_t>(st.st_size);
  ReadResult r = read_profile_meta(path);
  if (!r.ok) return f;
  f.readable = true;
  if (const std::string* id = r.profile.find_meta("run_id")) f.run_id = *id;
  long long v = 0;
  if (number(r.profile.find_meta("rank"), &v)) f.rank = v;
  if (number(r.profile.find_meta("pid"), &v)) f.pid = v;
  if (number(r.profile.find_meta("start_ns"), &v) && v > 0) f.start_ns = static_cast<uint64_t>(v);
  if (number(r.profile.find_meta("end_ns"), &v) && v > 0) f.end_ns = static_cast<uint64_t>(v);
  return f;
}

std::string when(uint64_t ns) {
  const time_t s = static_cast<time_t>(ns / 1000000000ull);
  tm t{};
  localtime_r(&s, &t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &t);
  return buf;
}

// Run keys of the profiles without a run id: clusters of overlapping lifetimes, a later cluster
// being a run of its own when it holds a rank the current run has, under another pid.
void runs_by_lifetime(const std::vector<RunFacts>& facts, const std::vector<size_t>& which,
                      std::vector<std::string>& key) {
  std::vector<size_t> order = which;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return facts[a].start_ns < facts[b].start_ns; });
  int run = 0;
  uint64_t cluster_end = 0;
  std::map<long long, std::set<long long>> pids;  // rank -> pids in the current run
  for (size_t k = 0; k < order.size();) {
    // One cluster: profiles whose lifetimes overlap (or touch) the ones before.
    size_t end = k;
    cluster_end = std::max(facts[order[k]].end_ns, facts[order[k]].start_ns);
    while (end + 1 < order.size() && facts[order[end + 1]].start_ns <= cluster_end) {
      ++end;
      cluster_end = std::max(cluster_end, facts[order[end]].end_ns);
    }
    bool repeats = false;
    for (size_t i = k; i <= end; ++i) {
      const RunFacts& f = facts[order[i]];
      auto it = pids.find(f.rank);
      if (f.rank >= 0 && it != pids.end() && !it->second.count(f.pid)) repeats = true;
    }
    if (repeats) {
      ++run;
      pids.clear();
    }
    for (size_t i = k; i <= end; ++i) {
      const RunFacts& f = facts[order[i]];
      pids[f.rank].insert(f.pid);
      key[order[i]] = "#" + std::to_string(run);
    }
    k = end + 1;
  }
}

}  // namespace

RunChoice choose_latest_run(const std::vector<RunFacts>& facts) {
  RunChoice out;
  std::vector<std::string> key(facts.size());  // "" for a file left to the merge
  std::vector<size_t> without_id;
  for (size_t i = 0; i < facts.size(); ++i) {
    if (!facts[i].readable) continue;
    if (!facts[i].run_id.empty()) key[i] = "id " + facts[i].run_id;
    else without_id.push_back(i);
  }
  // Beside profiles with run ids, one without (an image exec'd with an environment of its own)
  // is left to the merge: it cannot be placed, and is more likely of a run than a run itself.
  if (without_id.size() < facts.size() &&
      std::any_of(facts.begin(), facts.end(), [](const RunFacts& f) { return f.readable && !f.run_id.empty(); }))
    without_id.clear();
  runs_by_lifetime(facts, without_id, key);

  struct Run {
    size_t profiles = 0;
    uint64_t first = UINT64_MAX, last = 0;
    std::set<long long> ranks;
  };
  std::map<std::string, Run> runs;
  for (size_t i = 0; i < facts.size(); ++i) {
    if (key[i].empty()) continue;
    Run& r = runs[key[i]];
    ++r.profiles;
    r.first = std::min(r.first, facts[i].start_ns);
    r.last = std::max(r.last, facts[i].start_ns);
    if (facts[i].rank >= 0) r.ranks.insert(facts[i].rank);
  }
  if (runs.size() <= 1) {
    for (const RunFacts& f : facts) out.kept.push_back(f.path);
    return out;
  }
  auto latest = std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second.last, a.first) < std::tie(b.second.last, b.first);
  });
  for (size_t i = 0; i < facts.size(); ++i)
    (key[i].empty() || key[i] == latest->first ? out.kept : out.dropped).push_back(facts[i].path);
  std::sort(out.dropped.begin(), out.dropped.end());

  auto describe = [](const std::string& k, const Run& r) {
    std::string s = k[0] == '#' ? "a run without id" : "run " + k.substr(3);
    s += " (" + std::to_string(r.profiles) + (r.profiles == 1 ? " profile" : " profiles");
    if (!r.ranks.empty())
      s += ", rank" + std::string(r.ranks.size() == 1 ? " " : "s ") + std::to_string(*r.ranks.begin()) +
           (r.ranks.size() > 1 ? "-" + std::to_string(*r.ranks.rbegin()) : "");
    if (r.first != UINT64_MAX && r.first > 0) s += ", started " + when(r.first);
    return s + ")";
  };
  std::string list;
  for (const auto& [k, r] : runs)
    if (k != latest->first) list += (list.empty() ? "" : "; ") + describe(k, r);
  out.message = "the profiles come from " + std::to_string(runs.size()) + " runs (each job, or each measured step of a job, into its own -o " +
                "directory keeps them apart): merged the latest, " + describe(latest->first, latest->second) +
                ", and left out " + std::to_string(out.dropped.size()) + " of the other" +
                (runs.size() > 2 ? "s" : "") + ": " + list;
  out.dropped_reason = "from an earlier run than " + describe(latest->first, latest->second);
  return out;
}

std::vector<RunFacts> read_run_facts(const std::vector<std::string>& paths, unsigned jobs, bool sizes) {
  std::vector<RunFacts> facts(paths.size());
  const size_t n = std::max<size_t>(1, std::min<size_t>(jobs, paths.size()));
  auto work = [&](size_t w) {
    for (size_t i = paths.size() * w / n; i < paths.size() * (w + 1) / n; ++i) facts[i] = facts_of(paths[i], sizes);
  };
  std::vector<std::thread> threads;
  for (size_t w = 1; w < n; ++w) threads.emplace_back(work, w);
  work(0);
  for (std::thread& t : threads) t.join();
  return facts;
}

RunChoice choose_latest_run(const std::vector<std::string>& paths, unsigned jobs) {
  return choose_latest_run(read_run_facts(paths, jobs, false));
}

}  // namespace hpcl::analysis
