// Reducible per-rank and per-thread summaries (see balance.h). Every operation is integer
// arithmetic with a total order for ties, so the result does not depend on the order in which
// processes arrive or on how they were split between partial merges.
#include "balance.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

namespace hpcl::analysis {
namespace {

// Sums saturate instead of wrapping. Sample counts never come near 2^64, but a damaged (or
// fuzzed) profile that the reader accepts can hold any value, and a wrapped sum would break the
// spread's invariants (min <= max <= sum) so that the merged database would not read back.
// Saturating keeps them: a saturated sum is still >= max, and both spreads of an entry saturate
// alike. Found by tests/fuzz/fuzz_profile.
uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

void add_u128(Spread& s, unsigned __int128 v) {
  unsigned __int128 old = static_cast<unsigned __int128>(s.sumsq_hi) << 64 | s.sumsq_lo;
  unsigned __int128 total = old + v;
  if (total < old) total = ~static_cast<unsigned __int128>(0);
  s.sumsq_lo = static_cast<uint64_t>(total);
  s.sumsq_hi = static_cast<uint64_t>(total >> 64);
}

// The summary of the union of two disjoint sets of groups. The largest value wins the argmax;
// on a tie, the smallest GroupId, so that the result is the same in any order.
void combine(Spread& into, const Spread& other) {
  if (other.groups == 0) return;
  if (into.groups == 0) {
    into = other;
    return;
  }
  into.groups += other.groups;
  into.sum = sat_add(into.sum, other.sum);
  add_u128(into, static_cast<unsigned __int128>(other.sumsq_hi) << 64 | other.sumsq_lo);
  into.min = std::min(into.min, other.min);
  if (other.max > into.max || (other.max == into.max && other.max_group < into.max_group)) {
    into.max = other.max;
    into.max_group = other.max_group;
  }
}

// The summary of one more group whose value is `v`: a group is a summary of one, so combine()
// is the only rule.
void fold(Spread& s, uint64_t v, const GroupId& g) {
  if (v == 0) return;
  Spread one;
  one.groups = 1;
  one.sum = one.min = one.max = v;
  add_u128(one, static_cast<unsigned __int128>(v) * v);
  one.max_group = g;
  combine(s, one);
}

bool parse_i64(const std::string* s, int64_t* out) {
  if (s == nullptr) return false;
  auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), *out);
  return ec == std::errc() && p == s->data() + s->size();
}

// Adds b into a; both sorted by key.
void merge_values(std::vector<std::pair<BalanceKey, uint64_t>>& a,
                  const std::vector<std::pair<BalanceKey, uint64_t>>& b) {
  std::vector<std::pair<BalanceKey, uint64_t>> out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) out.push_back(a[i++]);
    else if (i == a.size() || b[j].first < a[i].first) out.push_back(b[j++]);
    else {
      out.emplace_back(a[i].first, sat_add(a[i].second, b[j].second));
      ++i, ++j;
    }
  }
  a = std::move(out);
}

BalanceKey remap(BalanceKey k, const std::vector<uint32_t>& site_map,
                 const std::vector<uint32_t>& static_map) {
  if (k.first == BalanceOwner::Site) k.second = site_map[k.second];
  else if (k.first == BalanceOwner::Static) k.second = static_map[k.second];
  return k;  // an unknown class keeps its value
}

}  // namespace

void BalanceParts::add_process(const Profile& p, const std::vector<uint32_t>& site_map,
                               const std::vector<uint32_t>& static_map) {
  int64_t rank = -1, pid = 0;
  if (!parse_i64(p.find_meta("rank"), &rank) || rank < 0) rank = -1;
  if (!parse_i64(p.find_meta("pid"), &pid) || pid < 0) pid = 0;
  std::map<BalanceKey, uint64_t> process;
  for (uint32_t t = 0; t < p.trees.size(); ++t) {
    // Parents precede children: one pass gives each node its variable, if it is below one.
    const std::vector<Node>& nodes = p.trees[t].nodes;
    std::vector<int64_t> var(nodes.size(), -1);
    std::vector<BalanceKey> keys;
    std::vector<uint64_t> sums, faults;
    // A variable is one group per thread even if its node appears in two places of the tree
    // (a damaged profile can have that; found by tests/fuzz/fuzz_profile), else the thread would
    // count twice and the spread would claim more groups than the run has.
    std::map<BalanceKey, int64_t> index;
    for (size_t i = 1; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      var[i] = var[n.parent];
      if (var[i] < 0) {
        BalanceKey k;
        if (n.kind == NodeKind::HeapVar) k = {BalanceOwner::Site, site_map[n.a]};
        else if (n.kind == NodeKind::StaticVarNode) k = {BalanceOwner::Static, static_map[n.a]};
        else if (n.kind == NodeKind::UnknownClass) k = {BalanceOwner::Unknown, n.a};
        else continue;
        auto [it, fresh] = index.try_emplace(k, static_cast<int64_t>(keys.size()));
        var[i] = it->second;
        if (fresh) {
          keys.push_back(k);
          sums.push_back(0);
          faults.push_back(0);
        }
      }
      // The estimated samples, as the shares count them (docs/REPORT.md).
      sums[var[i]] = sat_add(sums[var[i]], sat_add(n.metric(kMetricSamples), n.metric(kMetricSamplesEstimated)));
      faults[var[i]] = sat_add(faults[var[i]], n.metric(kMetricPageFaults));
    }
    const GroupId thread{rank, static_cast<uint64_t>(pid), t};
    for (size_t v = 0; v < keys.size(); ++v) {
      fold(spreads_[keys[v]].threads, sums[v], thread);
      if (faults[v]) fold(faults_[keys[v]], faults[v], thread);
      process[keys[v]] = sat_add(process[keys[v]], sums[v]);
    }
  }
  trees_ += p.trees.size();
  if (rank < 0) {
    ++rankless_;
    for (auto& [k, v] : process) fold(spreads_[k].ranks, v, GroupId{-1, static_cast<uint64_t>(pid), 0});
    return;
  }
  Values values;
  for (auto& [k, v] : process)
    if (v > 0) values.emplace_back(k, v);
  merge_values(open_ranks_[rank], values);
}

void BalanceParts::absorb(BalanceParts& other, const std::vector<uint32_t>& site_map,
                          const std::vector<uint32_t>& static_map) {
  for (auto& [k, both] : other.spreads_) {
    Both& into = spreads_[remap(k, site_map, static_map)];
    combine(into.ranks, both.ranks);
    combine(into.threads, both.threads);
  }
  for (auto& [k, s] : other.faults_) combine(faults_[remap(k, site_map, static_map)], s);
  for (auto& [rank, values] : other.open_ranks_) {
    for (auto& [k, v] : values) k = remap(k, site_map, static_map);
    std::sort(values.begin(), values.end());
    merge_values(open_ranks_[rank], values);
  }
  rankless_ += other.rankless_;
  trees_ += other.trees_;
  other = BalanceParts();
}

Balance BalanceParts::finish(const std::vector<uint32_t>& new_site,
                             const std::vector<uint32_t>& new_static) {
  for (auto& [rank, values] : open_ranks_)
    for (auto& [k, v] : values) fold(spreads_[k].ranks, v, GroupId{rank, 0, 0});
  Balance b;
  b.rank_groups = open_ranks_.size() + rankless_;
  b.thread_groups = trees_;
  for (auto& [k, both] : spreads_) {
    if (both.ranks.groups == 0) continue;  // a variable node without samples
    BalanceKey key = remap(k, new_site, new_static);
    b.variables.push_back(VariableBalance{key.first, key.second, both.ranks, both.threads});
  }
  auto by_variable = [](const auto& x, const auto& y) {
    return std::tie(x.owner, x.index) < std::tie(y.owner, y.index);
  };
  std::sort(b.variables.begin(), b.variables.end(), by_variable);
  for (auto& [k, s] : faults_) {
    BalanceKey key = remap(k, new_site, new_static);
    b.first_touch.push_back(VariableFirstTouch{key.first, key.second, s});
  }
  std::sort(b.first_touch.begin(), b.first_touch.end(), by_variable);
  *this = BalanceParts();
  return b;
}

// Text fields of the transport: a spread is 9 numbers, a rank's value "owner:index:value".
namespace {

std::string spread_text(const Spread& s) {
  std::string t;
  for (uint64_t v : {s.groups, s.sum, s.sumsq_lo, s.sumsq_hi, s.min, s.max})
    t += std::to_string(v) + ' ';
  return t + std::to_string(s.max_group.rank) + ' ' + std::to_string(s.max_group.pid) + ' ' +
         std::to_string(s.max_group.thread);
}

bool next_u64(std::istringstream& in, uint64_t* v) { return static_cast<bool>(in >> *v); }

bool read_spread(std::istringstream& in, Spread* s) {
  uint64_t thread = 0;
  bool ok = next_u64(in, &s->groups) && next_u64(in, &s->sum) && next_u64(in, &s->sumsq_lo) &&
            next_u64(in, &s->sumsq_hi) && next_u64(in, &s->min) && next_u64(in, &s->max) &&
            static_cast<bool>(in >> s->max_group.rank) && next_u64(in, &s->max_group.pid) &&
            next_u64(in, &thread) && thread <= UINT32_MAX;
  s->max_group.thread = uint32_t(thread);
  return ok;
}

bool read_key(std::istringstream& in, BalanceKey* k) {
  unsigned owner = 0;
  uint64_t index = 0;
  if (!(in >> owner >> index) || owner < 1 || owner > 3 || index > UINT32_MAX) return false;
  *k = BalanceKey{BalanceOwner(owner), uint32_t(index)};
  return true;
}

}  // namespace

void BalanceParts::put_meta(const std::function<void(std::string, std::string)>& put) {
  const std::string prefix(kMetaPrefix);
  put(prefix + "rankless", std::to_string(rankless_));
  put(prefix + "trees", std::to_string(trees_));
  for (const auto& [k, both] : spreads_)
    put(prefix + "spread", std::to_string(unsigned(k.first)) + ' ' + std::to_string(k.second) +
                               ' ' + spread_text(both.ranks) + ' ' + spread_text(both.threads));
  for (const auto& [k, s] : faults_)
    put(prefix + "faults",
        std::to_string(unsigned(k.first)) + ' ' + std::to_string(k.second) + ' ' + spread_text(s));
  for (const auto& [rank, values] : open_ranks_) {
    std::string t = std::to_string(rank);
    for (const auto& [k, v] : values)
      t += ' ' + std::to_string(unsigned(k.first)) + ' ' + std::to_string(k.second) + ' ' +
           std::to_string(v);
    put(prefix + "rank", std::move(t));
  }
  *this = BalanceParts();
}

bool BalanceParts::read_meta(const std::string& key, const std::string& value) {
  if (!key.starts_with(kMetaPrefix)) return false;
  const std::string_view name = std::string_view(key).substr(kMetaPrefix.size());
  std::istringstream in(value);
  if (name == "rankless" || name == "trees") {
    uint64_t n = 0;
    if (!next_u64(in, &n)) return false;
    (name == "rankless" ? rankless_ : trees_) += n;
  } else if (name == "spread") {
    BalanceKey k;
    Both both;
    if (!read_key(in, &k) || !read_spread(in, &both.ranks) || !read_spread(in, &both.threads))
      return false;
    Both& into = spreads_[k];
    combine(into.ranks, both.ranks);
    combine(into.threads, both.threads);
  } else if (name == "faults") {
    BalanceKey k;
    Spread s;
    if (!read_key(in, &k) || !read_spread(in, &s)) return false;
    combine(faults_[k], s);
  } else if (name == "rank") {
    int64_t rank = 0;
    if (!(in >> rank)) return false;
    Values values;
    BalanceKey k;
    uint64_t v = 0;
    while (read_key(in, &k)) {
      if (!next_u64(in, &v)) return false;
      values.emplace_back(k, v);
    }
    if (!in.eof()) return false;
    std::sort(values.begin(), values.end());
    merge_values(open_ranks_[rank], values);
  } else {
    return false;
  }
  std::string rest;
  return !(in >> rest);
}

BalanceStats describe(const Spread& s, uint64_t groups) {
  BalanceStats r;
  r.count = std::max(groups, s.groups);
  r.with = s.groups;
  if (r.count == 0 || s.groups == 0) return r;
  const double n = static_cast<double>(r.count);
  r.min = s.groups < r.count ? 0 : static_cast<double>(s.min);
  r.max = static_cast<double>(s.max);
  r.mean = static_cast<double>(s.sum) / n;
  const double sumsq = std::ldexp(static_cast<double>(s.sumsq_hi), 64) + static_cast<double>(s.sumsq_lo);
  r.stddev = std::sqrt(std::max(0.0, sumsq / n - r.mean * r.mean));
  r.imbalance = r.max / r.mean;
  r.max_group = s.max_group;
  return r;
}

std::string group_label(const GroupId& g, bool thread) {
  std::string label = g.rank >= 0 ? std::to_string(g.rank) : "pid " + std::to_string(g.pid);
  return thread ? label + "." + std::to_string(g.thread) : label;
}

}  // namespace hpcl::analysis
