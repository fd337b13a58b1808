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

bool parse_i64(const std::string* s, int64_t* out) {
  if (s == nullptr) return false;
  auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), *out);
  return ec == std::errc() && p == s->data() + s->size();
}

BalanceKey remap(BalanceKey k, const std::vector<uint32_t>& site_map,
                 const std::vector<uint32_t>& static_map) {
  if (k.first == BalanceOwner::Site) k.second = site_map[k.second];
  else if (k.first == BalanceOwner::Static) k.second = static_map[k.second];
  return k;  // an unknown class keeps its value
}

}  // namespace

template <typename T>
T& BalanceParts::PerVariable<T>::operator[](BalanceKey k) {
  if (k.first == BalanceOwner::Unknown) return unknown[k.second];
  std::vector<T>& v = k.first == BalanceOwner::Site ? sites : statics;
  if (k.second >= v.size()) v.resize(size_t{k.second} + 1);
  return v[k.second];
}

template <typename T>
template <typename F>
void BalanceParts::PerVariable<T>::for_each(F f) {
  for (uint32_t i = 0; i < sites.size(); ++i) f(BalanceKey{BalanceOwner::Site, i}, sites[i]);
  for (uint32_t i = 0; i < statics.size(); ++i) f(BalanceKey{BalanceOwner::Static, i}, statics[i]);
  for (auto& [value, t] : unknown) f(BalanceKey{BalanceOwner::Unknown, value}, t);
}

void BalanceParts::add_process(const Profile& p, std::span<const std::vector<ThreadValue>> threads) {
  int64_t rank = -1, pid = 0;
  if (!parse_i64(p.find_meta("rank"), &rank) || rank < 0) rank = -1;
  if (!parse_i64(p.find_meta("pid"), &pid) || pid < 0) pid = 0;
  Scratch& sc = scratch_;
  sc.keys.clear();
  sc.process_sum.clear();
  sc.thread_sum.clear();
  sc.thread_faults.clear();
  sc.thread_stamp.clear();
  sc.unknown_local.clear();
  const uint64_t serial = ++sc.serial << 32;
  // The local index of variable k in this process, made on first sight.
  auto local = [&](BalanceKey k) -> uint32_t {
    const auto fresh = static_cast<uint32_t>(sc.keys.size());
    uint32_t found = fresh;
    if (k.first == BalanceOwner::Unknown) {
      found = sc.unknown_local.try_emplace(k.second, fresh).first->second;
    } else {
      std::vector<uint64_t>& stamps = k.first == BalanceOwner::Site ? sc.site_stamp : sc.static_stamp;
      if (k.second >= stamps.size()) stamps.resize(size_t{k.second} + 1, 0);
      if ((stamps[k.second] >> 32) != (serial >> 32)) stamps[k.second] = serial | fresh;
      found = static_cast<uint32_t>(stamps[k.second]);
    }
    if (found == fresh) {
      sc.keys.push_back(k);
      sc.process_sum.push_back(0);
      sc.thread_sum.push_back(0);
      sc.thread_faults.push_back(0);
      sc.thread_stamp.push_back(0);
    }
    return found;
  };
  for (uint32_t t = 0; t < threads.size(); ++t) {
    // This thread's variables, each once: a variable whose node appears twice in a tree (a
    // damaged profile can have that; found by tests/fuzz/fuzz_profile) is still one group, else
    // the thread would count twice and the spread would claim more groups than the run has.
    std::vector<uint32_t>& touched = sc.touched;
    touched.clear();
    for (const ThreadValue& v : threads[t]) {
      const uint32_t l = local(v.key);
      if (sc.thread_stamp[l] != t + 1) {
        sc.thread_stamp[l] = t + 1;
        sc.thread_sum[l] = sc.thread_faults[l] = 0;
        touched.push_back(l);
      }
      sc.thread_sum[l] = sat_add(sc.thread_sum[l], v.samples);
      sc.thread_faults[l] = sat_add(sc.thread_faults[l], v.faults);
    }
    const GroupId thread{rank, static_cast<uint64_t>(pid), t};
    for (uint32_t l : touched) {
      add_group(spreads_[sc.keys[l]].threads, sc.thread_sum[l], thread);
      if (sc.thread_faults[l]) add_group(faults_[sc.keys[l]], sc.thread_faults[l], thread);
      sc.process_sum[l] = sat_add(sc.process_sum[l], sc.thread_sum[l]);
    }
  }
  trees_ += threads.size();
  if (rank < 0) {
    ++rankless_;
    for (size_t l = 0; l < sc.keys.size(); ++l)
      add_group(spreads_[sc.keys[l]].ranks, sc.process_sum[l], GroupId{-1, static_cast<uint64_t>(pid), 0});
    return;
  }
  ranks_.push_back(rank);
  for (size_t l = 0; l < sc.keys.size(); ++l)
    if (sc.process_sum[l] > 0) open_.push_back(RankValue{rank, sc.keys[l], sc.process_sum[l]});
}

void BalanceParts::combine_open() {
  std::sort(open_.begin(), open_.end(), [](const RankValue& x, const RankValue& y) {
    return std::tie(x.rank, x.key) < std::tie(y.rank, y.key);
  });
  size_t out = 0;
  for (size_t i = 0; i < open_.size(); ++i) {
    if (out > 0 && open_[out - 1].rank == open_[i].rank && open_[out - 1].key == open_[i].key)
      open_[out - 1].value = sat_add(open_[out - 1].value, open_[i].value);
    else
      open_[out++] = open_[i];
  }
  open_.resize(out);
  std::sort(ranks_.begin(), ranks_.end());
  ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
}

void BalanceParts::close_ranks(const std::set<int64_t>& keep_open) {
  combine_open();
  size_t kept = 0;
  for (const RankValue& v : open_) {
    if (keep_open.contains(v.rank)) open_[kept++] = v;
    else add_group(spreads_[v.key].ranks, v.value, GroupId{v.rank, 0, 0});
  }
  open_.resize(kept);
  std::erase_if(ranks_, [&](int64_t rank) {
    if (keep_open.contains(rank)) return false;
    ++closed_;
    return true;
  });
}

void BalanceParts::absorb(BalanceParts& other, const std::vector<uint32_t>& site_map,
                          const std::vector<uint32_t>& static_map) {
  other.spreads_.for_each([&](BalanceKey k, const Both& both) {
    if (both.ranks.groups == 0 && both.threads.groups == 0) return;
    Both& into = spreads_[remap(k, site_map, static_map)];
    combine(into.ranks, both.ranks);
    combine(into.threads, both.threads);
  });
  other.faults_.for_each([&](BalanceKey k, const Spread& s) {
    if (s.groups > 0) combine(faults_[remap(k, site_map, static_map)], s);
  });
  for (RankValue& v : other.open_) {
    v.key = remap(v.key, site_map, static_map);
    open_.push_back(v);
  }
  ranks_.insert(ranks_.end(), other.ranks_.begin(), other.ranks_.end());
  rankless_ += other.rankless_;
  closed_ += other.closed_;
  trees_ += other.trees_;
  other = BalanceParts();
}

Balance BalanceParts::finish(const std::vector<uint32_t>& new_site,
                             const std::vector<uint32_t>& new_static) {
  combine_open();
  for (const RankValue& v : open_) add_group(spreads_[v.key].ranks, v.value, GroupId{v.rank, 0, 0});
  Balance b;
  b.rank_groups = ranks_.size() + closed_ + rankless_;
  b.thread_groups = trees_;
  spreads_.for_each([&](BalanceKey k, const Both& both) {
    if (both.ranks.groups == 0) return;  // a variable node without samples
    BalanceKey key = remap(k, new_site, new_static);
    b.variables.push_back(VariableBalance{key.first, key.second, both.ranks, both.threads});
  });
  auto by_variable = [](const auto& x, const auto& y) {
    return std::tie(x.owner, x.index) < std::tie(y.owner, y.index);
  };
  std::sort(b.variables.begin(), b.variables.end(), by_variable);
  faults_.for_each([&](BalanceKey k, const Spread& s) {
    if (s.groups == 0) return;
    BalanceKey key = remap(k, new_site, new_static);
    b.first_touch.push_back(VariableFirstTouch{key.first, key.second, s});
  });
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
  put(prefix + "closed", std::to_string(closed_));
  put(prefix + "trees", std::to_string(trees_));
  spreads_.for_each([&](BalanceKey k, const Both& both) {
    if (both.ranks.groups == 0 && both.threads.groups == 0) return;
    put(prefix + "spread", std::to_string(unsigned(k.first)) + ' ' + std::to_string(k.second) +
                               ' ' + spread_text(both.ranks) + ' ' + spread_text(both.threads));
  });
  faults_.for_each([&](BalanceKey k, const Spread& s) {
    if (s.groups == 0) return;
    put(prefix + "faults",
        std::to_string(unsigned(k.first)) + ' ' + std::to_string(k.second) + ' ' + spread_text(s));
  });
  combine_open();
  size_t v = 0;
  for (int64_t rank : ranks_) {
    std::string t = std::to_string(rank);
    for (; v < open_.size() && open_[v].rank == rank; ++v)
      t += ' ' + std::to_string(unsigned(open_[v].key.first)) + ' ' +
           std::to_string(open_[v].key.second) + ' ' + std::to_string(open_[v].value);
    put(prefix + "rank", std::move(t));
  }
  *this = BalanceParts();
}

bool BalanceParts::read_meta(const std::string& key, const std::string& value) {
  if (!key.starts_with(kMetaPrefix)) return false;
  const std::string_view name = std::string_view(key).substr(kMetaPrefix.size());
  std::istringstream in(value);
  if (name == "rankless" || name == "closed" || name == "trees") {
    uint64_t n = 0;
    if (!next_u64(in, &n)) return false;
    (name == "rankless" ? rankless_ : name == "closed" ? closed_ : trees_) += n;
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
    ranks_.push_back(rank);
    BalanceKey k;
    uint64_t v = 0;
    while (read_key(in, &k)) {
      if (!next_u64(in, &v)) return false;
      open_.push_back(RankValue{rank, k, v});
    }
    if (!in.eof()) return false;
  } else {
    return false;
  }
  std::string rest;
  return !(in >> rest);
}

// A group is a summary of one, so combine() is the only rule.
void add_group(Spread& s, uint64_t v, const GroupId& g) {
  if (v == 0) return;
  Spread one;
  one.groups = 1;
  one.sum = one.min = one.max = v;
  add_u128(one, static_cast<unsigned __int128>(v) * v);
  one.max_group = g;
  combine(s, one);
}

GroupId rank_group(const GroupId& thread) {
  return thread.rank >= 0 ? GroupId{thread.rank, 0, 0} : GroupId{-1, thread.pid, 0};
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
