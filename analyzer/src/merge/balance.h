// Per-rank and per-thread balance of every variable (docs/FORMAT.md BALANCE, docs/REPORT.md
// "ranks" and "threads"), and how each variable's first touches spread over the threads
// (FIRST_TOUCH). BalanceParts is the Accumulator's share of a partial merge: it folds
// each process's per-variable samples into reducible summaries (hpcl::Spread) and combines two
// partials exactly, whatever files each one read. describe() turns a stored summary into what a
// report shows (mean over all groups of the run, zeros included; imbalance = max / mean).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hpcl/profile.h"

namespace hpcl::analysis {

// A variable of a partial merge: (owner, index into its sites / statics, or the unknown class).
using BalanceKey = std::pair<BalanceOwner, uint32_t>;

// What one node of a thread's tree adds to its variable: the samples as the shares count them
// (metric 0 plus the estimate, metric 2) and the page faults (metric 4). A thread has one per
// node with metrics below a variable; a key may repeat.
struct ThreadValue {
  BalanceKey key;  // numbered as the Accumulator numbers its sites and statics
  uint64_t samples;
  uint64_t faults;
};

class BalanceParts {
 public:
  // Adds one validated process profile: `process` holds its META, threads[t] the values of its
  // tree t.
  void add_process(const Profile& process, std::span<const std::vector<ThreadValue>> threads);
  // Folds the values of every open rank but those in `keep_open` into the summaries: the caller
  // knows no other partial holds a profile of them (Accumulator::close_ranks). The state then
  // holds a count for them instead of a value per variable.
  void close_ranks(const std::set<int64_t>& keep_open);
  // Adds what `other` holds, its indices renumbered by the maps (other is left empty).
  void absorb(BalanceParts& other, const std::vector<uint32_t>& site_map,
              const std::vector<uint32_t>& static_map);
  // The database's section, indices renumbered by the maps of the canonical order.
  Balance finish(const std::vector<uint32_t>& new_site, const std::vector<uint32_t>& new_static);

  // The transport of a partial merge (Accumulator::to_partial and add_partial): the whole state
  // as META entries whose keys start with kMetaPrefix, indices as the Accumulator numbers its
  // sites and statics. put_meta leaves this empty.
  static constexpr std::string_view kMetaPrefix = "partial.balance.";
  void put_meta(const std::function<void(std::string, std::string)>& put);
  // Reads one entry written by put_meta into this part; false when it is malformed.
  bool read_meta(const std::string& key, const std::string& value);

 private:
  struct Both {
    Spread ranks, threads;
  };
  // A T per variable, flat: sites and statics by index (dense in an accumulator), unknown classes
  // (a few values) in a map. Visits in BalanceKey order.
  template <typename T>
  struct PerVariable {
    std::vector<T> sites, statics;
    std::map<uint32_t, T> unknown;
    T& operator[](BalanceKey k);
    template <typename F>
    void for_each(F f);
  };
  // One rank's samples of one variable from one process; a rank is summed over its processes
  // at the end.
  struct RankValue {
    int64_t rank;
    BalanceKey key;
    uint64_t value;
  };
  // Sorts open_ by (rank, variable) and adds up the entries of one pair.
  void combine_open();

  PerVariable<Both> spreads_;  // closed groups: threads, processes without a rank
  // First touches (page faults, FIRST_TOUCH) over the threads: a thread is closed once read.
  PerVariable<Spread> faults_;
  // Ranks stay open until finish(): one rank can write several profiles (a forked child keeps
  // its parent's rank) that different partials read, and a summary cannot take a group's value
  // back to add to it. Sparse: only the variables each rank touched; unsorted until needed.
  std::vector<RankValue> open_;
  std::vector<int64_t> ranks_;  // every open rank seen (some may have no values); unsorted
  uint64_t closed_ = 0;    // ranks folded by close_ranks
  uint64_t rankless_ = 0;  // processes without a rank, each a group of its own
  uint64_t trees_ = 0;     // threads: every TREE of every process

  // Scratch of add_process, kept between calls: the variables of the process in the order
  // first met, their local index by site and static (valid when its stamp is the process's),
  // and per thread the sums of each.
  struct Scratch {
    std::vector<BalanceKey> keys;
    std::vector<uint64_t> process_sum, thread_sum, thread_faults;
    std::vector<uint32_t> thread_stamp, touched;
    std::vector<uint64_t> site_stamp, static_stamp;  // (process serial << 32) | local index
    std::map<uint32_t, uint32_t> unknown_local;
    uint64_t serial = 0;
  } scratch_;
};

// Adds one more group whose value is `v` to a summary (nothing when `v` is 0).
void add_group(Spread& s, uint64_t v, const GroupId& g);
// The rank group of a thread: its rank, or its process when it has none (as BALANCE groups them).
GroupId rank_group(const GroupId& thread);

// What a report says about one Spread of a run with `groups` ranks (or threads).
struct BalanceStats {
  uint64_t count = 0;    // groups of the run
  uint64_t with = 0;     // groups where the variable has samples
  double min = 0;        // over every group: 0 when some group has no samples
  double mean = 0;       // sum / count
  double max = 0;
  double stddev = 0;     // population standard deviation over every group
  double imbalance = 0;  // max / mean; 0 when the variable has no samples
  GroupId max_group;     // meaningful when with > 0
};
BalanceStats describe(const Spread& s, uint64_t groups);

// How a report names a group: a rank "3", a process without a rank "pid 4242"; a thread adds
// the index of its tree in the process profile: "3.1", "pid 4242.1".
std::string group_label(const GroupId& g, bool thread);

}  // namespace hpcl::analysis
