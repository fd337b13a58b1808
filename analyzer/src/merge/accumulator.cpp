// Partial merges and their canonical form (see accumulator.h).
#include "accumulator.h"

#include "source_ranks.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include "merge_plan.h"

namespace hpcl::analysis {
namespace {

// META keys copied into the database; inputs that disagree give "mixed".
// The counters' names and periods are copied too: counter k of every process must be the same
// event for its metric to sum, and "mixed" says when it was not.
constexpr const char* kCopiedKeys[] = {
    "source", "rate", "min_bytes", "small_every", "track_budget", "exe", "page_faults_period",
    "numa", "numa_nodes", "hw_test_standin",
    "counter.0.event", "counter.0.period", "counter.1.event", "counter.1.period",
    "counter.2.event", "counter.2.period", "counter.3.event", "counter.3.period"};
// META counters summed into the database. The first two are always written; the others (since
// format 1.2) only when some input had them, so a database of older profiles does not claim zeros.
constexpr const char* kSummedKeys[] = {"samples_total",        "samples_dropped",
                                       "samples_dropped_full", "samples_in_runtime",
                                       "samples_no_data",      "samples_unresolved",
                                       "offsets_lost",         "samples_overflowed",
                                       "page_faults_total",    "page_faults_in_runtime",
                                       "page_faults_lost",     "page_faults_throttled",
                                       // Program-wide counters for the memory assessment
                                       // (memory_model.h), when the runtime counted them.
                                       "instructions",         "cycles",
                                       // NUMA placement and the hardware sources' record
                                       // accounting (format 1.5 runtimes).
                                       "numa_local",           "numa_remote",
                                       "numa_unresolved",      "hw_records",
                                       "hw_recorded",          "hw_no_address",
                                       "hw_lost",              "hw_throttled",
                                       "hw_malformed",         "hw_not_valid",
                                       "hw_kernel",            "hw_in_runtime",
                                       "hw_dropped",           "hw_fallback_threads",
                                       // PAPI counters (papi_source.h).
                                       "counter_overflows",    "counter_overflows_in_runtime",
                                       "counter_overflows_nested", "counter_overflows_dropped",
                                       "counter_threads_failed", "samples_dropped_nested",
                                       // The runtime's arenas (issue 11).
                                       "allocs_lost",          "samples_overruns",
                                       // Watchpoint analyses (watch.h, format 1.6).
                                       "wp_registers",         "wp_registers_taken",
                                       "wp_open_failed",       "wp_armed",
                                       "wp_traps",             "wp_expired",
                                       "wp_pending_end",       "wp_no_register",
                                       "wp_modify_failed",     "wp_stale",
                                       "wp_table_lost",
                                       // CPU time inside dlopen, not sampled (absent from older files).
                                       "dlopen_unsampled_ns"};

// META of a partial merge (to_partial): every key starts with "partial"; this one names the
// version of the layout, so ranks of different builds refuse each other's partials.
constexpr const char* kPartialMarker = "partial";
constexpr const char* kPartialVersion = "1";
constexpr std::string_view kPartialSum = "partial.sum.", kPartialCopied = "partial.copied.";

void add_histogram(OffsetHistogram& into, const OffsetHistogram& h) {
  uint64_t before = 0;
  for (uint64_t b : into.bins) before += b;
  into.min = before == 0 ? h.min : std::min(into.min, h.min);
  into.max = before == 0 ? h.max : std::max(into.max, h.max);
  for (size_t b = 0; b < into.bins.size() && b < h.bins.size(); ++b) into.bins[b] += h.bins[b];
}

bool parse_u64(const std::string* s, uint64_t* out) {
  if (s == nullptr) return false;
  auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), *out);
  return ec == std::errc() && p == s->data() + s->size();
}

bool parse_ll(const std::string* s, long long* out) {
  if (s == nullptr) return false;
  auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), *out);
  return ec == std::errc() && p == s->data() + s->size();
}

// New position of each old index when `items` is sorted by `less`.
template <typename T, typename Less>
std::vector<uint32_t> sorted_order(std::vector<T>& items, Less less) {
  std::vector<uint32_t> order(items.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](uint32_t x, uint32_t y) { return less(items[x], items[y]); });
  std::vector<T> sorted;
  sorted.reserve(items.size());
  std::vector<uint32_t> new_index(items.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    sorted.push_back(std::move(items[order[i]]));
  }
  items = std::move(sorted);
  return new_index;
}

}  // namespace

void Accumulator::map_content(const Profile& p, ContentMaps& maps) const {
  // Indices past the end are the ones add_content() will give, in the same order; `fresh_*`
  // makes one input's repeated entries one.
  maps.modules.resize(p.modules.size());
  std::map<std::pair<std::string, std::string>, uint32_t> fresh_modules;
  for (size_t i = 0; i < p.modules.size(); ++i) {
    std::pair<std::string, std::string> key{p.modules[i].path, p.modules[i].build_id};
    auto it = module_index_.find(key);
    maps.modules[i] = it != module_index_.end()
                          ? it->second
                          : fresh_modules.try_emplace(std::move(key), modules_.size() + fresh_modules.size())
                                .first->second;
  }
  auto map_module = [&](uint32_t m) { return m == kNoModule ? kNoModule : maps.modules[m]; };

  maps.script_module = p.script_module();
  maps.script_frames.resize(p.script_frames.size());
  std::map<ScriptFrame, uint32_t> fresh_script;
  for (size_t i = 0; i < p.script_frames.size(); ++i) {
    auto it = script_index_.find(p.script_frames[i]);
    maps.script_frames[i] =
        it != script_index_.end()
            ? it->second
            : fresh_script.try_emplace(p.script_frames[i], script_frames_.size() + fresh_script.size())
                  .first->second;
  }

  maps.sites.resize(p.sites.size());
  maps.site_hashes.resize(p.sites.size());
  // The input's sites not in the accumulator yet, by hash: the input index of the first of each.
  std::unordered_multimap<uint64_t, uint32_t> fresh_sites;
  uint32_t fresh = 0;
  for (size_t i = 0; i < p.sites.size(); ++i) {
    const AllocSite& s = p.sites[i];
    // Flags are not part of a site's identity: one process may have tracked some of a site's
    // blocks with probability < 1 (sampled) and another all of them; it is one variable.
    const uint64_t h = site_hash(s, maps);
    maps.site_hashes[i] = h;
    uint32_t to = UINT32_MAX;
    for (auto [it, end] = site_index_.equal_range(h); it != end && to == UINT32_MAX; ++it)
      if (same_site(sites_[it->second], s, maps)) to = it->second;
    for (auto [it, end] = fresh_sites.equal_range(h); it != end && to == UINT32_MAX; ++it) {
      const AllocSite& first = p.sites[it->second];
      AllocSite mapped{first.api, 0, first.frames, 0, 0, first.name};
      for (Frame& f : mapped.frames) f = mapped_frame(f, maps);
      if (same_site(mapped, s, maps)) to = maps.sites[it->second];
    }
    if (to == UINT32_MAX) {
      to = static_cast<uint32_t>(sites_.size()) + fresh++;
      fresh_sites.emplace(h, static_cast<uint32_t>(i));
    }
    maps.sites[i] = to;
  }

  maps.statics.resize(p.statics.size());
  std::map<StaticKey, uint32_t> fresh_statics;
  for (size_t i = 0; i < p.statics.size(); ++i) {
    const StaticVar& v = p.statics[i];
    StaticKey key{map_module(v.module), v.name, v.offset, v.flags};
    auto it = static_index_.find(key);
    maps.statics[i] = it != static_index_.end()
                          ? it->second
                          : fresh_statics.try_emplace(std::move(key), statics_.size() + fresh_statics.size())
                                .first->second;
  }
}

namespace {
uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}
uint32_t mapped_module(uint32_t m, const std::vector<uint32_t>& modules) {
  return m == kNoModule || m >= modules.size() ? kNoModule : modules[m];
}
}  // namespace

Frame Accumulator::mapped_frame(const Frame& f, const ContentMaps& maps) {
  Frame out{mapped_module(f.module, maps.modules), f.offset};
  if (f.module == maps.script_module && f.module != kNoModule) out.offset = maps.script_frames[f.offset];
  return out;
}

uint64_t Accumulator::site_hash(const AllocSite& s, const ContentMaps& maps) {
  uint64_t h = mix(static_cast<uint64_t>(s.api), s.frames.size());
  for (const Frame& f : s.frames) {
    const Frame m = mapped_frame(f, maps);
    h = mix(mix(h, m.module), m.offset);
  }
  return mix(h, std::hash<std::string>{}(s.name));
}

bool Accumulator::same_site(const AllocSite& merged, const AllocSite& s, const ContentMaps& maps) {
  if (merged.api != s.api || merged.frames.size() != s.frames.size() || merged.name != s.name) return false;
  for (size_t k = 0; k < s.frames.size(); ++k)
    if (merged.frames[k] != mapped_frame(s.frames[k], maps)) return false;
  return true;
}

void Accumulator::add_content(const Profile& p, const ContentMaps& maps) {
  for (size_t i = 0; i < p.modules.size(); ++i) {
    if (maps.modules[i] < modules_.size()) continue;
    const Module& m = p.modules[i];
    module_index_.emplace(std::make_pair(m.path, m.build_id), maps.modules[i]);
    // Offsets are link-time addresses, so one process's load bias means nothing in a database.
    modules_.push_back(Module{m.path, m.build_id, 0});
  }
  auto map_module = [&](uint32_t m) { return m == kNoModule ? kNoModule : maps.modules[m]; };
  for (size_t i = 0; i < p.script_frames.size(); ++i) {
    if (maps.script_frames[i] < script_frames_.size()) continue;
    script_index_.emplace(p.script_frames[i], maps.script_frames[i]);
    script_frames_.push_back(p.script_frames[i]);
  }

  for (size_t i = 0; i < p.sites.size(); ++i) {
    const AllocSite& s = p.sites[i];
    const uint32_t to = maps.sites[i];
    if (to == sites_.size()) {
      AllocSite mapped{s.api, 0, s.frames, 0, 0, s.name};
      for (Frame& f : mapped.frames) f = mapped_frame(f, maps);
      site_index_.emplace(maps.site_hashes[i], to);
      sites_.push_back(std::move(mapped));
    }
    sites_[to].flags |= s.flags;
    sites_[to].allocations += s.allocations;
    sites_[to].bytes += s.bytes;
  }

  for (size_t i = 0; i < p.statics.size(); ++i) {
    const StaticVar& v = p.statics[i];
    const uint32_t to = maps.statics[i];
    if (to == statics_.size()) {
      const uint32_t module = map_module(v.module);
      static_index_.emplace(StaticKey{module, v.name, v.offset, v.flags}, to);
      statics_.push_back(StaticVar{module, v.offset, 0, v.flags, v.name});
    }
    // Sizes agree unless the inputs are odd; the maximum keeps the result order-independent.
    statics_[to].size = std::max(statics_[to].size, v.size);
  }

  for (const OffsetHistogram& h : p.offsets) {
    uint32_t index = h.owner == OffsetOwner::Site ? maps.sites[h.index] : maps.statics[h.index];
    OffsetHistogram& into = offsets_[{h.owner, index}];
    into.owner = h.owner;
    into.index = index;
    add_histogram(into, h);
  }
}

std::string Accumulator::add_input(const Profile& p, std::span<const FlatTree> trees,
                                   std::vector<std::vector<ThreadValue>>* threads, int64_t rank) {
  map_content(p, maps_);
  const KeyMaps keys{maps_.modules, maps_.sites, maps_.statics, maps_.script_module, maps_.script_frames};
  const size_t before = tree_.size();
  if (dest_.size() < trees.size()) dest_.resize(trees.size());
  for (size_t t = 0; t < trees.size(); ++t) {
    if (std::string error = tree_.map(trees[t], t, keys, dest_[t]); !error.empty()) {
      tree_.truncate(before);
      return error;
    }
  }
  // A partial's rank and stack thread values name its tree's nodes: checked before anything is
  // added.
  if (!p.rank_values.empty() || !p.stack_threads.empty()) {
    if (trees.size() != 1) {
      tree_.truncate(before);
      return "per-node values beside " + std::to_string(trees.size()) + " trees";
    }
    std::string error = RankValueParts::out_of_range(p.rank_values, trees[0].size(), "rank value");
    if (error.empty()) error = StackThreadParts::out_of_range(p.stack_threads, trees[0].size(), "stack thread value");
    if (!error.empty()) {
      tree_.truncate(before);
      return error;
    }
    rank_values_.absorb(p.rank_values, {dest_[0].data(), trees[0].size()});
    stack_threads_.absorb(p.stack_threads, {dest_[0].data(), trees[0].size()});
  }
  add_content(p, maps_);
  if (threads) threads->resize(trees.size());
  const bool per_rank = keep_rank_values_ && p.kind == FileKind::Process;
  long long pid = 0;
  if (threads && (!parse_ll(p.find_meta("pid"), &pid) || pid < 0)) pid = 0;
  for (size_t t = 0; t < trees.size(); ++t) {
    std::span<const MergedTree::Reached> reached = tree_.add_metrics(trees[t], dest_[t]);
    if (per_rank)
      for (const MergedTree::Reached& r : reached)
        rank_values_.add_metrics(dest_[t][r.node], rank, trees[t].metrics_of(r.node));
    if (!threads) continue;
    std::vector<ThreadValue>& values = (*threads)[t];
    values.clear();
    const GroupId thread{rank, static_cast<uint64_t>(pid), static_cast<uint32_t>(t)};
    for (const MergedTree::Reached& r : reached) {
      if (r.variable == MergedTree::kNoVariable) continue;
      const NodeKind kind = tree_.kind(r.variable);
      const BalanceOwner owner = kind == NodeKind::HeapVar         ? BalanceOwner::Site
                                 : kind == NodeKind::StaticVarNode ? BalanceOwner::Static
                                                                   : BalanceOwner::Unknown;
      uint64_t samples = 0, estimated = 0, faults = 0;
      for (const Metric& m : trees[t].metrics_of(r.node)) {
        if (m.id == kMetricSamples) samples = m.value;
        else if (m.id == kMetricSamplesEstimated) estimated = m.value;
        else if (m.id == kMetricPageFaults) faults = m.value;
      }
      // The estimated samples, as the shares count them (docs/REPORT.md).
      uint64_t sum;
      if (__builtin_add_overflow(samples, estimated, &sum)) sum = UINT64_MAX;
      values.push_back(ThreadValue{BalanceKey{owner, tree_.a(r.variable)}, sum, faults});
      // Samples placed in a frame are kept by thread as well, on their slot: which row they are
      // (and so the row's balance) is known only once the slots are named (node_values.h).
      if (r.stack != MergedTree::kNoVariable) stack_threads_.add(StackThreadValue{r.stack, thread, sum});
    }
  }
  return {};
}

std::string Accumulator::add_process(const ScannedProfile& scanned, std::string_view path) {
  const Profile& p = scanned.profile;
  long long rank = -1;
  if (!parse_ll(p.find_meta("rank"), &rank) || rank < 0) rank = -1;
  if (std::string error = add_input(p, scanned.trees(), &thread_values_, rank); !error.empty()) return error;
  balance_.add_process(p, thread_values_);
  processes_ += 1;
  // A process's META threads counts every thread it measured; its trees can be fewer (the
  // runtime hands an exited thread's tree to the next thread). Older profiles have no META.
  uint64_t n = 0;
  threads_ += parse_u64(p.find_meta("threads"), &n) && n > 0 ? n : scanned.trees().size();
  for (const char* key : kSummedKeys)
    if (parse_u64(p.find_meta(key), &n)) summed_[key] += n;
  if (rank >= 0) {
    ranks_.insert(rank);
    if (rank_in_file_name(path) != rank) not_named_.insert(rank);
  }
  for (const char* key : kCopiedKeys)
    if (const std::string* v = p.find_meta(key)) copied_[key].insert(*v);
  source_facts_.insert(source_fact(p));
  return {};
}

std::vector<int64_t> Accumulator::ranks_not_named() const {
  return std::vector<int64_t>(not_named_.begin(), not_named_.end());
}

void Accumulator::close_ranks(const std::set<int64_t>& keep_open) { balance_.close_ranks(keep_open); }

std::string Accumulator::add_process(const Profile& p, std::string_view path) {
  ScannedProfile scanned;
  scanned.profile = p;
  scanned.profile.trees.clear();
  for (const Tree& t : p.trees) flatten(t, scanned.add_tree());
  return add_process(scanned, path);
}

void Accumulator::absorb(Accumulator& other) {
  // Through the transport form, so that threads and ranks share one path and one test.
  std::string error = add_partial(other.to_partial());
  if (!error.empty()) throw std::logic_error("Accumulator::absorb: " + error);
}

Profile Accumulator::to_partial() {
  Profile p;
  p.kind = FileKind::Database;
  p.modules = std::move(modules_);
  p.sites = std::move(sites_);
  p.statics = std::move(statics_);
  p.script_frames = std::move(script_frames_);
  p.trees.push_back(tree_.to_tree());
  for (auto& [owner_index, h] : offsets_) p.offsets.push_back(std::move(h));  // sorted: map order
  // META: duplicate keys are allowed by the format; sets and lists are one entry per element.
  auto put = [&](std::string key, std::string value) {
    p.meta.emplace_back(std::move(key), std::move(value));
  };
  put(kPartialMarker, kPartialVersion);
  put("partial.processes", std::to_string(processes_));
  put("partial.threads", std::to_string(threads_));
  for (auto& [key, n] : summed_) put(std::string(kPartialSum) + key, std::to_string(n));
  for (long long r : ranks_) put("partial.rank", std::to_string(r));
  for (const std::string& f : source_facts_) put("partial.source", f);
  for (int64_t r : not_named_) put("partial.rank_not_named", std::to_string(r));
  for (auto& [key, values] : copied_)
    for (const std::string& v : values) put(std::string(kPartialCopied) + key, v);
  // A path cannot hold a NUL byte; the format's strings can.
  for (auto& [path, reason] : skipped_) put("partial.skipped", path + '\0' + reason);
  balance_.put_meta(put);
  p.rank_values = rank_values_.take();
  p.stack_threads = stack_threads_.take();
  reset();
  return p;
}

void Accumulator::reset() {
  const bool keep = keep_rank_values_;
  *this = Accumulator();
  keep_rank_values_ = keep;
}

std::string Accumulator::add_partial(const Profile& partial) {
  ScannedProfile scanned;
  scanned.profile.kind = partial.kind;
  scanned.profile.meta = partial.meta;
  scanned.profile.modules = partial.modules;
  scanned.profile.sites = partial.sites;
  scanned.profile.statics = partial.statics;
  scanned.profile.offsets = partial.offsets;
  scanned.profile.script_frames = partial.script_frames;
  scanned.profile.rank_values = partial.rank_values;
  scanned.profile.stack_threads = partial.stack_threads;
  for (const Tree& t : partial.trees) flatten(t, scanned.add_tree());
  return add_partial(scanned);
}

std::string Accumulator::add_partial(const ScannedProfile& scanned) {
  const Profile& p = scanned.profile;
  const std::string* marker = p.find_meta(kPartialMarker);
  if (p.kind != FileKind::Database || scanned.trees().size() != 1 || marker == nullptr)
    return "not a partial merge (no META " + std::string(kPartialMarker) + ")";
  if (*marker != kPartialVersion)
    return "partial merge of version " + *marker + ", this analyzer reads " + kPartialVersion;
  // Checked in full before anything is added, so a refused partial leaves this one unchanged.
  uint64_t processes = 0, threads = 0, n = 0;
  std::vector<std::pair<std::string, uint64_t>> sums;
  std::vector<long long> ranks, not_named;
  std::vector<std::pair<std::string, std::string>> copied, skipped;
  std::vector<std::string> sources;
  BalanceParts balance;
  for (const auto& [key, value] : p.meta) {
    if (key == kPartialMarker) continue;
    long long rank = 0;
    bool ok = true;
    if (key == "partial.processes") {
      ok = parse_u64(&value, &processes);
    } else if (key == "partial.threads") {
      ok = parse_u64(&value, &threads);
    } else if (key.starts_with(kPartialSum)) {
      ok = parse_u64(&value, &n);
      sums.emplace_back(key.substr(kPartialSum.size()), n);
    } else if (key == "partial.rank") {
      ok = parse_ll(&value, &rank);
      ranks.push_back(rank);
    } else if (key == "partial.rank_not_named") {
      ok = parse_ll(&value, &rank);
      not_named.push_back(rank);
    } else if (key.starts_with(kPartialCopied)) {
      copied.emplace_back(key.substr(kPartialCopied.size()), value);
    } else if (key == "partial.source") {
      sources.push_back(value);
    } else if (key.starts_with(BalanceParts::kMetaPrefix)) {
      ok = balance.read_meta(key, value);
    } else if (key == "partial.skipped") {
      size_t nul = value.find('\0');
      ok = nul != std::string::npos;
      if (ok) skipped.emplace_back(value.substr(0, nul), value.substr(nul + 1));
    } else {
      ok = false;
    }
    if (!ok) return "partial merge: bad META " + key + "=" + value;
  }
  if (std::string error = add_input(p, scanned.trees(), nullptr); !error.empty())
    return "partial merge: " + error;
  balance_.absorb(balance, maps_.sites, maps_.statics);
  processes_ += processes;
  threads_ += threads;
  for (auto& [key, sum] : sums) summed_[key] += sum;
  ranks_.insert(ranks.begin(), ranks.end());
  not_named_.insert(not_named.begin(), not_named.end());
  for (auto& [key, value] : copied) copied_[key].insert(std::move(value));
  source_facts_.insert(sources.begin(), sources.end());
  for (auto& s : skipped) skipped_.push_back(std::move(s));
  return "";
}

void Accumulator::skip(std::string path, std::string reason) {
  skipped_.emplace_back(std::move(path), std::move(reason));
}

std::vector<std::pair<std::string, std::string>> Accumulator::skipped() const {
  auto out = skipped_;
  std::sort(out.begin(), out.end());
  return out;
}

Profile Accumulator::finish() {
  Profile db;
  db.kind = FileKind::Database;

  // Python frames in the order of what they say, their offsets renumbered to match; `script` is
  // the pseudo-module's index before the modules are sorted, as the frames still have it.
  uint32_t script = kNoModule;
  for (size_t i = 0; i < modules_.size(); ++i)
    if (is_script_module(modules_[i])) script = static_cast<uint32_t>(i);
  std::vector<uint32_t> new_module = sorted_order(modules_, [](const Module& x, const Module& y) {
    return std::tie(x.path, x.build_id) < std::tie(y.path, y.build_id);
  });
  auto map_module = [&](uint32_t m) { return m == kNoModule ? kNoModule : new_module[m]; };
  std::vector<uint32_t> new_script = sorted_order(script_frames_, std::less<ScriptFrame>());
  auto map_frame = [&](Frame f) {
    if (f.module == script && script != kNoModule) f.offset = new_script[f.offset];
    f.module = map_module(f.module);
    return f;
  };
  for (AllocSite& s : sites_)
    for (Frame& f : s.frames) f = map_frame(f);
  for (StaticVar& v : statics_) v.module = map_module(v.module);
  std::vector<uint32_t> new_site = sorted_order(sites_, [](const AllocSite& x, const AllocSite& y) {
    return std::tie(x.api, x.flags, x.frames, x.name) < std::tie(y.api, y.flags, y.frames, y.name);
  });
  std::vector<uint32_t> new_static =
      sorted_order(statics_, [](const StaticVar& x, const StaticVar& y) {
        return std::tie(x.module, x.offset, x.name, x.flags) <
               std::tie(y.module, y.offset, y.name, y.flags);
      });

  // Rebuild the tree in preorder with each node's children sorted by their remapped key.
  const MergedTree& old = tree_;
  const auto count = static_cast<uint32_t>(old.size());
  std::vector<uint32_t> a(count);
  std::vector<uint64_t> b(count);
  for (uint32_t i = 0; i < count; ++i) {
    const NodeKind kind = old.kind(i);
    b[i] = kind == NodeKind::Frame && old.a(i) == script && script != kNoModule ? new_script[old.b(i)]
                                                                                : old.b(i);
    a[i] = kind == NodeKind::Frame || kind == NodeKind::StackOwner ? map_module(old.a(i))
           : kind == NodeKind::HeapVar       ? new_site[old.a(i)]
           : kind == NodeKind::StaticVarNode ? new_static[old.a(i)]
                                             : old.a(i);
  }
  // Children as one array grouped by parent (creation order puts parents first).
  std::vector<uint32_t> first(size_t{count} + 1, 0), kids(count > 0 ? count - 1 : 0);
  for (uint32_t i = 1; i < count; ++i) ++first[old.parent(i) + 1];
  for (uint32_t i = 0; i < count; ++i) first[i + 1] += first[i];
  {
    std::vector<uint32_t> at(first.begin(), first.end() - 1);
    for (uint32_t i = 1; i < count; ++i) kids[at[old.parent(i)]++] = i;
  }
  auto key = [&](uint32_t i) { return std::make_tuple(old.kind(i), a[i], b[i]); };
  Tree out;
  out.tid = 0;
  out.nodes.reserve(count);
  std::vector<std::pair<uint32_t, uint32_t>> stack = {{0u, kNoParent}};  // (old index, new parent)
  std::vector<uint32_t> new_index(rank_values_.empty() && stack_threads_.empty() ? 0 : count);
  while (!stack.empty()) {
    auto [i, parent] = stack.back();
    stack.pop_back();
    const auto self = static_cast<uint32_t>(out.nodes.size());
    if (!new_index.empty()) new_index[i] = self;
    Node& n = out.nodes.emplace_back();
    n.parent = parent;
    n.kind = old.kind(i);
    n.a = a[i];
    n.b = b[i];
    n.metrics = old.metrics(i);
    auto begin = kids.begin() + first[i], end = kids.begin() + first[i + 1];
    std::sort(begin, end, [&](uint32_t x, uint32_t y) { return key(x) > key(y); });
    for (auto k = begin; k != end; ++k) stack.emplace_back(*k, self);  // reversed: smallest key pops first
  }
  db.trees.push_back(std::move(out));
  db.modules = std::move(modules_);
  db.sites = std::move(sites_);
  db.statics = std::move(statics_);
  db.script_frames = std::move(script_frames_);
  for (auto& [owner_index, h] : offsets_) {
    h.index = h.owner == OffsetOwner::Site ? new_site[h.index] : new_static[h.index];
    db.offsets.push_back(std::move(h));
  }
  db.balance = balance_.finish(new_site, new_static);
  if (!rank_values_.empty()) db.rank_values = rank_values_.finish(new_index);
  if (!stack_threads_.empty()) db.stack_threads = stack_threads_.finish(new_index);
  std::sort(db.offsets.begin(), db.offsets.end(),
            [](const OffsetHistogram& x, const OffsetHistogram& y) {
              return std::tie(x.owner, x.index) < std::tie(y.owner, y.index);
            });

  std::string skipped_meta;
  for (auto& [path, reason] : this->skipped()) {
    if (!skipped_meta.empty()) skipped_meta += ";";
    std::string entry = path + ": " + reason;
    std::replace(entry.begin(), entry.end(), ';', ',');  // ';' separates entries
    skipped_meta += entry;
  }
  db.set_meta("tool", "hpcprof-lite");
  db.set_meta("tool_version", HPCL_VERSION);
  db.set_meta("processes", std::to_string(processes_));
  db.set_meta("threads", std::to_string(threads_));
  db.set_meta("ranks", std::to_string(ranks_.size()));
  db.set_meta("skipped", skipped_meta);
  for (const char* k : kCopiedKeys) {
    auto it = copied_.find(k);
    if (it != copied_.end()) db.set_meta(k, it->second.size() == 1 ? *it->second.begin() : "mixed");
  }
  set_source_meta(source_facts_, &db);
  db.set_meta("samples_total", std::to_string(summed_["samples_total"]));
  db.set_meta("samples_dropped", std::to_string(summed_["samples_dropped"]));
  for (const char* k : kSummedKeys)
    if (auto it = summed_.find(k); it != summed_.end() && !db.find_meta(k))
      db.set_meta(k, std::to_string(it->second));
  reset();
  return db;
}

}  // namespace hpcl::analysis
