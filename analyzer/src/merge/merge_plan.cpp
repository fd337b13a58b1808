// See merge_plan.h.
#include "merge_plan.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

#include "merge.h"
#include "runs.h"

namespace hpcl::analysis {

size_t MergePlan::found() const {
  size_t n = other_runs.size();
  for (const auto& share : shares) n += share.size();
  return n;
}

std::optional<int64_t> rank_in_file_name(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') + 1);  // npos + 1 = 0: no directory
  if (!name.ends_with(".hpcl")) return std::nullopt;
  name.remove_suffix(5);
  auto last = [&name] {
    size_t dot = name.rfind('.');
    if (dot == std::string_view::npos) return std::string_view();
    std::string_view field = name.substr(dot + 1);
    name = name.substr(0, dot);
    return field;
  };
  std::string_view field = last();
  if (field.starts_with("exec-")) field = last();
  auto number = [](std::string_view f, int64_t* out) {
    auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), *out);
    return !f.empty() && ec == std::errc() && p == f.data() + f.size() && *out >= 0;
  };
  int64_t pid = 0, rank = 0;
  if (!number(field, &pid) || !number(last(), &rank)) return std::nullopt;
  return rank;
}

MergePlan balance_by_size(std::vector<std::pair<std::string, uint64_t>> files, int ranks) {
  MergePlan plan;
  plan.shares.resize(static_cast<size_t>(std::max(ranks, 1)));
  std::sort(files.begin(), files.end());
  struct Group {
    uint64_t bytes = 0;
    std::vector<std::string> paths;  // sorted
  };
  std::map<int64_t, Group> by_rank;
  std::vector<Group> groups;
  for (auto& [path, size] : files) {
    std::optional<int64_t> rank = rank_in_file_name(path);
    Group& g = rank ? by_rank[*rank] : groups.emplace_back();
    g.bytes += size;
    g.paths.push_back(std::move(path));
  }
  for (auto& [rank, g] : by_rank) groups.push_back(std::move(g));
  std::sort(groups.begin(), groups.end(), [](const Group& x, const Group& y) {
    return std::tie(y.bytes, x.paths.front()) < std::tie(x.bytes, y.paths.front());  // size down, path up
  });
  std::vector<uint64_t> load(plan.shares.size(), 0);
  for (Group& g : groups) {
    size_t r = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[r] += g.bytes;
    for (std::string& path : g.paths) plan.shares[r].push_back(std::move(path));
  }
  return plan;
}

MergePlan plan_from_facts(const std::vector<RunFacts>& facts, int ranks) {
  // Two jobs measured into one directory: the latest alone is merged (runs.h).
  RunChoice runs = choose_latest_run(facts);
  std::map<std::string_view, uint64_t> size_of;
  for (const RunFacts& f : facts) size_of.emplace(f.path, f.bytes);
  // A file that could not be stat'ed is still merged (size 0), so that its reader names the error.
  std::vector<std::pair<std::string, uint64_t>> files;
  for (std::string& p : runs.kept) {
    const uint64_t size = size_of[p];
    files.emplace_back(std::move(p), size);
  }
  MergePlan plan = balance_by_size(std::move(files), ranks);
  plan.other_runs = std::move(runs.dropped);
  plan.runs_message = std::move(runs.message);
  return plan;
}

MergePlan plan_directory(const std::string& dir, int ranks) {
  std::vector<std::string> paths;
  if (std::string error = list_profiles(dir, &paths); !error.empty()) {
    MergePlan plan;
    plan.error = error;
    return plan;
  }
  return plan_from_facts(read_run_facts(paths, 4, true), ranks);
}

namespace {

// Fields separated by NUL bytes, which neither paths nor run ids hold.
void put(std::string& out, std::string_view field) {
  out += field;
  out += '\0';
}

// The next field from `pos`; false when none is left.
bool take(const std::string& bytes, size_t& pos, std::string_view* field) {
  const size_t end = bytes.find('\0', pos);
  if (end == std::string::npos) return false;
  *field = std::string_view(bytes).substr(pos, end - pos);
  pos = end + 1;
  return true;
}

template <class T>
bool take_number(const std::string& bytes, size_t& pos, T* out) {
  std::string_view f;
  if (!take(bytes, pos, &f)) return false;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), *out);
  return ec == std::errc() && p == f.data() + f.size();
}

}  // namespace

std::string encode_paths(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) put(out, p);
  return out;
}

bool decode_paths(const std::string& bytes, std::vector<std::string>* paths) {
  paths->clear();
  std::string_view f;
  for (size_t pos = 0; pos < bytes.size();) {
    if (!take(bytes, pos, &f)) return false;
    paths->emplace_back(f);
  }
  return true;
}

std::string encode_facts(const std::vector<RunFacts>& facts) {
  std::string out;
  for (const RunFacts& f : facts) {
    put(out, f.path);
    put(out, f.readable ? "1" : "0");
    put(out, f.run_id);
    for (long long v : {f.rank, f.pid}) put(out, std::to_string(v));
    for (uint64_t v : {f.start_ns, f.end_ns, f.bytes}) put(out, std::to_string(v));
  }
  return out;
}

bool decode_facts(const std::string& bytes, std::vector<RunFacts>* facts) {
  facts->clear();
  for (size_t pos = 0; pos < bytes.size();) {
    RunFacts f;
    std::string_view path, readable, run_id;
    if (!take(bytes, pos, &path) || !take(bytes, pos, &readable) || !take(bytes, pos, &run_id) ||
        (readable != "0" && readable != "1") || !take_number(bytes, pos, &f.rank) ||
        !take_number(bytes, pos, &f.pid) || !take_number(bytes, pos, &f.start_ns) ||
        !take_number(bytes, pos, &f.end_ns) || !take_number(bytes, pos, &f.bytes))
      return false;
    f.path = path;
    f.readable = readable == "1";
    f.run_id = run_id;
    facts->push_back(std::move(f));
  }
  return true;
}

// "E" + error, or "P" then "rank\0path\0" per file: paths cannot hold a NUL byte.
std::string encode_plan(const MergePlan& plan) {
  if (!plan.error.empty()) return "E" + plan.error;
  std::string out = "P";
  for (size_t r = 0; r < plan.shares.size(); ++r)
    for (const std::string& path : plan.shares[r]) {
      put(out, std::to_string(r));
      put(out, path);
    }
  return out;
}

bool decode_plan(const std::string& bytes, int ranks, MergePlan* plan) {
  *plan = MergePlan();
  if (bytes.starts_with("E")) {
    plan->error = bytes.substr(1);
    return !plan->error.empty();
  }
  if (!bytes.starts_with("P") || ranks < 1) return false;
  plan->shares.resize(static_cast<size_t>(ranks));
  for (size_t pos = 1; pos < bytes.size();) {
    size_t r = 0;
    std::string_view path;
    if (!take_number(bytes, pos, &r) || r >= plan->shares.size() || !take(bytes, pos, &path)) return false;
    plan->shares[r].emplace_back(path);
  }
  return true;
}

}  // namespace hpcl::analysis
