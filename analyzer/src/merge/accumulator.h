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
#include <set>
#include <span>
#include <string_view>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "balance.h"
#include "hpcl/profile.h"
#include "hpcl/scan.h"
#include "merged_tree.h"
#include "node_values.h"

namespace hpcl::analysis {

class Accumulator {
 public:
  Accumulator() = default;

  // merge --per-rank: also keep every node's metrics per rank (RANK_VALUES, node_values.h). Set
  // before the first input; partials made by to_partial() carry them whatever their receiver's
  // setting, and the setting survives to_partial() and finish().
  void keep_rank_values(bool keep) { keep_rank_values_ = keep; }
  bool keeps_rank_values() const { return keep_rank_values_; }

  // Adds a process profile as ProfileScanner read it from `path` ("" when it comes from no
  // file). Returns "" or why it is damaged (two children of one parent with the same key, which
  // the scanner leaves to the merge); then nothing of it was added.
  std::string add_process(const ScannedProfile& process, std::string_view path = {});
  // The same for a validated Profile (read_profile_file's, or one built by a test).
  std::string add_process(const Profile& process, std::string_view path = {});

  // The ranks of profiles whose file name did not say their rank (rank_in_file_name), sorted.
  // A merge that gave all files named after one rank to one partial (merge_plan.h) knows that
  // every other rank has all its profiles in one partial, once the partials' lists are joined.
  std::vector<int64_t> ranks_not_named() const;
  // Closes the balance of every rank of this partial but those in `keep_open` (BalanceParts):
  // call only when no other partial holds a profile of them. The partial then travels without
  // a value per rank and variable.
  void close_ranks(const std::set<int64_t>& keep_open);
  // Adds everything another partial merge holds (it is left empty): add_partial(to_partial()).
  void absorb(Accumulator& other);

  // The whole state as a Profile of kind Database (one tree, in no canonical order) whose META
  // holds only the reserved "partial.*" keys (docs/FORMAT.md). The accumulator is empty
  // afterwards. The profile encodes and decodes with the format library like any database.
  Profile to_partial();
  // Adds a profile made by to_partial() (possibly after an encode/decode round trip). Returns ""
  // or why `partial` is not one (a database or process profile given by mistake); then nothing
  // of it was added.
  std::string add_partial(const Profile& partial);
  std::string add_partial(const ScannedProfile& partial);
  // Records an input that could not be merged.
  void skip(std::string path, std::string reason);

  uint64_t processes() const { return processes_; }
  // (path, reason) of every input given to skip(), sorted by path.
  std::vector<std::pair<std::string, std::string>> skipped() const;

  // The database: canonical order of modules, sites, statics and tree nodes, and its META.
  // The accumulator is empty afterwards.
  Profile finish();

 private:
  using StaticKey = std::tuple<uint32_t, std::string, uint64_t, uint8_t>;

  // Where the modules, sites and statics of one input go in this accumulator: indices it has,
  // or the ones they will get when add_content() appends them (an input can still be refused
  // after this is known).
  struct ContentMaps {
    std::vector<uint32_t> modules, sites, statics;
    std::vector<uint64_t> site_hashes;  // site_hash of each input site, its modules mapped
    // The input's script pseudo-module (kNoModule: none) and where each of its SCRIPT_FRAMES
    // entries goes: a Python frame's offset is an index into its own file's list.
    uint32_t script_module = kNoModule;
    std::vector<uint32_t> script_frames;
  };
  // An input's frame as the accumulator knows it: its module mapped, and a Python frame's offset.
  static Frame mapped_frame(const Frame& f, const ContentMaps& maps);
  // A site's identity (API, frames mapped by `maps`, name; not its flags) hashed, and compared
  // with a site already in the accumulator.
  static uint64_t site_hash(const AllocSite& s, const ContentMaps& maps);
  static bool same_site(const AllocSite& merged, const AllocSite& s, const ContentMaps& maps);
  void map_content(const Profile& p, ContentMaps& maps) const;
  void add_content(const Profile& p, const ContentMaps& maps);
  // map_content, the trees mapped (which may refuse the input), add_content and the trees'
  // metrics: "" or why the input is refused, and then nothing of it was added. With `threads`,
  // also what each tree adds to the balance of its variables.
  // `rank`: the process's (-1 without one), for its rank values; a partial's come in its own.
  std::string add_input(const Profile& p, std::span<const FlatTree> trees,
                        std::vector<std::vector<ThreadValue>>* threads, int64_t rank = -1);
  // Empties the accumulator but for its settings.
  void reset();

  std::vector<Module> modules_;
  std::vector<AllocSite> sites_;
  std::vector<StaticVar> statics_;
  // Python frames (SCRIPT_FRAMES), each once, and their index: the same frame in two processes
  // is one frame of the database.
  std::vector<ScriptFrame> script_frames_;
  std::map<ScriptFrame, uint32_t> script_index_;
  MergedTree tree_;
  std::map<std::pair<std::string, std::string>, uint32_t> module_index_;
  // Sites by site_hash, compared on a match against sites_ itself: a key holding a copy of
  // every site's frames doubled them (CP2K: 95 MB of the merge of 2 ranks' 335,000 sites).
  std::unordered_multimap<uint64_t, uint32_t> site_index_;
  std::map<StaticKey, uint32_t> static_index_;
  // Offset histograms by (owner, index in sites_ / statics_).
  std::map<std::pair<OffsetOwner, uint32_t>, OffsetHistogram> offsets_;
  BalanceParts balance_;  // per-rank and per-thread summaries (BALANCE)
  RankValueParts rank_values_;  // merge --per-rank (RANK_VALUES)
  StackThreadParts stack_threads_;  // the stack nodes' samples per thread (STACK_THREADS)
  bool keep_rank_values_ = false;

  uint64_t processes_ = 0, threads_ = 0;
  std::map<std::string, uint64_t> summed_;  // META counters summed over the inputs
  std::set<long long> ranks_;
  std::set<int64_t> not_named_;  // ranks_not_named()
  std::map<std::string, std::set<std::string>> copied_;  // META values copied from the inputs
  std::set<std::string> source_facts_;  // which source each process used (source_ranks.h)
  std::vector<std::pair<std::string, std::string>> skipped_;

  // Scratch kept from input to input: the maps of the current one, where its nodes went.
  ContentMaps maps_;
  std::vector<std::vector<uint32_t>> dest_;
  std::vector<std::vector<ThreadValue>> thread_values_;
  FlatTree flat_;  // a Profile's tree as columns
};

}  // namespace hpcl::analysis
