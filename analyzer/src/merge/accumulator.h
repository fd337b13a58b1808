// A partial merge: the modules, sites, statics and tree of any number of process profiles (or of
// other partial merges), deduplicated by the rules of docs/FORMAT.md, plus the META facts the
// database reports, and the per-rank and per-thread summaries of every variable (balance.h).
// Each merge worker fills one; the partials are then absorbed into one and put in canonical order
// so the database is the same whatever the split.
//
// A partial travels (between threads, and between the ranks of hpcprof-lite-mpi) as a Profile:
// to_partial() writes every field of the state into one, add_partial() reads every field back.
// A field added to the Accumulator is transported by adding it to those two functions only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "balance.h"
#include "hpcl/profile.h"
#include "hpcl/tree.h"

namespace hpcl::analysis {

class Accumulator {
 public:
  Accumulator();

  // Adds a validated process profile.
  void add_process(const Profile& process);
  // Adds everything another partial merge holds (it is left empty): add_partial(to_partial()).
  void absorb(Accumulator& other);

  // The whole state as a Profile of kind Database (one tree, in no canonical order) whose META
  // holds only the reserved "partial.*" keys (docs/FORMAT.md). The accumulator is empty
  // afterwards. The profile encodes and decodes with the format library like any database.
  Profile to_partial();
  // Adds a profile made by to_partial() (possibly after an encode/decode round trip). Returns ""
  // or why `partial` is not one (a database or process profile given by mistake).
  std::string add_partial(const Profile& partial);
  // Records an input that could not be merged.
  void skip(std::string path, std::string reason);

  uint64_t processes() const { return processes_; }
  // (path, reason) of every input given to skip(), sorted by path.
  std::vector<std::pair<std::string, std::string>> skipped() const;

  // The database: canonical order of modules, sites, statics and tree nodes, and its META.
  // The accumulator is empty afterwards.
  Profile finish();

 private:
  using SiteKey = std::tuple<AllocApi, uint8_t, std::vector<Frame>, std::string>;
  using StaticKey = std::tuple<uint32_t, std::string, uint64_t, uint8_t>;

  // Where the sites and statics of `p` went in this accumulator.
  struct IndexMaps {
    std::vector<uint32_t> sites, statics;
  };
  IndexMaps add_content(const Profile& p);

  std::vector<Module> modules_;
  std::vector<AllocSite> sites_;
  std::vector<StaticVar> statics_;
  std::unique_ptr<Tree> tree_;  // owned apart so that builder_'s reference stays valid
  std::unique_ptr<TreeBuilder> builder_;
  std::map<std::pair<std::string, std::string>, uint32_t> module_index_;
  std::map<SiteKey, uint32_t> site_index_;
  std::map<StaticKey, uint32_t> static_index_;
  // Offset histograms by (owner, index in sites_ / statics_).
  std::map<std::pair<OffsetOwner, uint32_t>, OffsetHistogram> offsets_;
  BalanceParts balance_;  // per-rank and per-thread summaries (BALANCE)

  uint64_t processes_ = 0, threads_ = 0;
  std::map<std::string, uint64_t> summed_;  // META counters summed over the inputs
  std::set<long long> ranks_;
  std::map<std::string, std::set<std::string>> copied_;  // META values copied from the inputs
  std::vector<std::pair<std::string, std::string>> skipped_;
};

}  // namespace hpcl::analysis
