// The in-memory model of a hpcrun-lite profile: what one process measured (a "process profile")
// or what the analyzer merged from many (a "database"). docs/FORMAT.md specifies the bytes;
// io.h converts between the two. The runtime, the analyzer and the viewer all use
// this one model so that every writer is tested by the real reader.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hpcl/ids.h"

namespace hpcl {

// A code address as (module, offset): offset is the link-time virtual address (runtime address
// minus load bias), which is what libdw expects for the module file. Call-site frames are stored
// as return address - 1 so that they symbolize to the call instruction; the leaf of an access
// path is the exact address of the sampled instruction.
struct Frame {
  uint32_t module = kNoModule;
  uint64_t offset = 0;
  friend bool operator==(const Frame&, const Frame&) = default;
  friend auto operator<=>(const Frame&, const Frame&) = default;
};

struct Module {
  std::string path;      // as the loader saw it ("" for the main program is replaced by its path)
  std::string build_id;  // hex, may be empty
  uint64_t load_bias = 0;
};

// The script pseudo-module (format 1.8): a MODULES entry with this path (build_id empty,
// load_bias 0) holds no code. A Frame in it stands for frame `offset` of the interpreter, an
// entry of Profile::script_frames, so that a Python function sits in a call path where a native
// one would, and every consumer that walks frames meets it without a new node kind. The path
// alone makes the pseudo-module; a file has at most one.
inline constexpr char kScriptModulePath[] = "[python]";
bool is_script_module(const Module& module);

// A frame of interpreted code, as the interpreter names it (CPython: co_filename, co_qualname,
// the line the frame was at). Entries may repeat: a merge may keep two equal ones.
struct ScriptFrame {
  std::string file;
  std::string function;  // never empty
  uint32_t line = 0;     // 1-based; 0 when unknown
  friend bool operator==(const ScriptFrame&, const ScriptFrame&) = default;
  friend auto operator<=>(const ScriptFrame&, const ScriptFrame&) = default;
};

// A heap variable: every block allocated through one API from one calling context.
struct AllocSite {
  AllocApi api = AllocApi::Malloc;
  uint8_t flags = 0;
  std::vector<Frame> frames;  // innermost first; the allocator's own frames are already removed
  uint64_t allocations = 0;   // tracked blocks
  uint64_t bytes = 0;         // bytes in tracked blocks
  // Since 1.7 (SITE_NAMES): what the program calls the memory, part of the site's identity: a
  // mapped file's path, a shared-memory segment's name, the name given to hpcrun_lite_name.
  std::string name = {};
};

// A static variable: a symbol of some module (or a module's anonymous data).
struct StaticVar {
  uint32_t module = kNoModule;
  uint64_t offset = 0;  // link-time address (TLS: offset in the module's TLS block)
  uint64_t size = 0;
  uint8_t flags = 0;
  std::string name;  // raw (mangled) symbol name
};

struct Node {
  uint32_t parent = kNoParent;  // index of the parent; parents come before children
  NodeKind kind = NodeKind::Root;
  uint32_t a = 0;
  uint64_t b = 0;
  std::vector<Metric> metrics;  // exclusive values at this node, sorted by id, no zeros

  uint64_t metric(uint16_t id) const;
  void add_metric(uint16_t id, uint64_t value);
};

// One calling-context tree: node 0 is the Root.
struct Tree {
  uint32_t tid = 0;  // OS thread id (0 in a database)
  std::vector<Node> nodes;
};

// Symbolization of one frame in a database: inlined frames expanded, innermost first.
struct SourceLoc {
  std::string function;  // demangled; "" when unknown
  std::string file;      // "" when unknown
  uint32_t line = 0;
};
struct Symbolized {
  Frame frame;
  std::vector<SourceLoc> locs;  // at least one entry
  // For a call-site frame whose call instruction names its target (a direct call, or DWARF call
  // site information): the called function and the source location of its entry; function ""
  // when unknown. A report compares it with the next frame inward to recover tail calls.
  SourceLoc callee{};
};

// Where in a variable its samples fell (format 1.2): the extent of the variable (a heap block,
// a static symbol) cut into kOffsetBins equal bins, a sample counted in the bin of its offset
// from the start divided by the extent's size, plus the lowest and highest byte offset seen.
struct OffsetHistogram {
  OffsetOwner owner = OffsetOwner::Site;
  uint32_t index = 0;  // into SITES or STATICS
  uint64_t min = 0;    // lowest byte offset sampled
  uint64_t max = 0;    // highest byte offset sampled
  std::vector<uint64_t> bins = std::vector<uint64_t>(kOffsetBins, 0);
  friend bool operator==(const OffsetHistogram&, const OffsetHistogram&) = default;
};

// How one variable's samples spread over the ranks and over the threads of a run (format 1.3,
// database only). Each Spread is the reducible summary of the per-group values (a group is a rank
// or a thread; its value the samples plus estimated samples, metrics 0 + 2, of the variable's
// subtree) over the groups where the value is not zero: combining two summaries of disjoint
// groups gives the summary of their union exactly (analysis::Accumulator does it). Groups where
// the variable has no samples are counted only in Balance::rank_groups / thread_groups.
struct GroupId {
  int64_t rank = -1;    // META rank; -1: a process without a rank
  uint64_t pid = 0;     // META pid: names a group without a rank, and a thread's process
  uint32_t thread = 0;  // threads: the index of the thread's TREE in its process profile
  friend bool operator==(const GroupId&, const GroupId&) = default;
  friend auto operator<=>(const GroupId&, const GroupId&) = default;
};
struct Spread {
  uint64_t groups = 0;                    // groups with a non-zero value
  uint64_t sum = 0;                       // of the values
  uint64_t sumsq_lo = 0, sumsq_hi = 0;    // sum of the squared values, 128 bits (low, high)
  uint64_t min = 0, max = 0;              // over the groups with a non-zero value
  GroupId max_group;                      // the group of `max`; the smallest GroupId on ties
  friend bool operator==(const Spread&, const Spread&) = default;
};
struct VariableBalance {
  BalanceOwner owner = BalanceOwner::Site;
  uint32_t index = 0;  // into SITES or STATICS; Unknown: the UnknownClass value
  Spread ranks;
  Spread threads;
  friend bool operator==(const VariableBalance&, const VariableBalance&) = default;
};
// How one variable's first touches spread over the threads of the run (format 1.5, FIRST_TOUCH
// section, database only): a thread's value is the page_faults (metric 4) of the variable's
// subtree in that thread's TREE. One thread with every fault of a large variable is a serial
// initialization: its pages all sit on that thread's node.
struct VariableFirstTouch {
  BalanceOwner owner = BalanceOwner::Site;
  uint32_t index = 0;  // as in VariableBalance
  Spread threads;
  friend bool operator==(const VariableFirstTouch&, const VariableFirstTouch&) = default;
};
struct Balance {
  uint64_t rank_groups = 0;    // ranks of the run (processes by META rank; no rank: its own group)
  uint64_t thread_groups = 0;  // threads of the run: the TREEs of every process
  std::vector<VariableBalance> variables;  // sorted by (owner, index); only variables with samples
  // Sorted by (owner, index); only variables with page faults; needs present() (thread_groups).
  std::vector<VariableFirstTouch> first_touch;
  bool present() const { return rank_groups > 0; }
  friend bool operator==(const Balance&, const Balance&) = default;
};

// One metric of one node of a database's tree, summed over the trees of one rank's processes
// (format 1.9, RANK_VALUES section, database only). `merge --per-rank` keeps them so that an
// export can say how each access path's samples split over the ranks (Hatchet's dataframe is
// indexed by node and rank); the tree's own metrics are their sums over the ranks. rank -1: the
// processes without a rank.
struct RankValue {
  uint32_t node = 0;  // index into the database's TREE
  int64_t rank = -1;
  uint16_t metric = 0;
  uint64_t value = 0;
  friend bool operator==(const RankValue&, const RankValue&) = default;
  friend auto operator<=>(const RankValue&, const RankValue&) = default;
};

// What a stack slot holds (format 1.10, STACK_NAMES, database only): the merge names each
// (StackOwner, StackSlot) pair of its tree from the owning module's DWARF. A variable is one
// storage of one function's frame; its slots may come from several pcs of that function.
struct StackVar {
  StackVarKind kind = StackVarKind::Local;
  std::string name;      // "" for Temporary and Frame
  std::string function;  // the function whose scope declares it (demangled)
  std::string file;      // its declaration; "" unknown
  uint32_t line = 0;     // 0 unknown
  int64_t lo = 0;        // its extent from the CFA; size 0 when dynamic or unknown
  uint64_t size = 0;
  std::string type;      // "double[16384]"; "" unknown
  friend bool operator==(const StackVar&, const StackVar&) = default;
};
struct StackSlotName {
  Frame owner;         // the StackOwner node's frame
  int64_t lo = 0;      // the StackSlot node's
  uint32_t width = 0;
  uint32_t var = 0;    // into Profile::stack_vars
  friend bool operator==(const StackSlotName&, const StackSlotName&) = default;
};

// How a stack node's samples split over the threads of the run (format 1.11, STACK_THREADS,
// database only). BALANCE keys its summaries by variable, and which local a stack slot holds is
// known only once the merge has named the slots, and which row it is only to a report (a frame
// without DWARF is one row per owning function, over all its pcs): so the merge keeps the stack
// nodes' samples per thread, and a report sums them by its rows.
struct StackThreadValue {
  uint32_t node = 0;     // a StackOwner or StackSlot node of the database's TREE
  GroupId thread;        // rank, pid and the index of the thread's TREE in its process profile
  uint64_t samples = 0;  // metric 0 plus metric 2 of the node in that thread, as shares count them
  friend bool operator==(const StackThreadValue&, const StackThreadValue&) = default;
  friend auto operator<=>(const StackThreadValue&, const StackThreadValue&) = default;
};

struct Profile {
  FileKind kind = FileKind::Process;
  std::vector<std::pair<std::string, std::string>> meta;  // ordered key/value pairs
  std::vector<Module> modules;
  std::vector<AllocSite> sites;
  std::vector<StaticVar> statics;
  std::vector<Tree> trees;            // a process: one per thread; a database: exactly one
  std::vector<Symbolized> symbols;    // database only, sorted by frame
  std::vector<OffsetHistogram> offsets;  // at most one per (owner, index); database: sorted
  Balance balance;                       // database only; present() when the merge computed it
  // Since 1.8: what the frames of the script pseudo-module stand for, by their offset.
  std::vector<ScriptFrame> script_frames;
  // Since 1.9, database only: sorted by (node, rank, metric), each triple once, no zero value.
  std::vector<RankValue> rank_values;
  // Since 1.10, database only: slots sorted by (owner, lo), each once; slots of no variable
  // (no DWARF) are left out.
  std::vector<StackVar> stack_vars;
  std::vector<StackSlotName> stack_slots;
  // Since 1.11, database only: sorted by (node, thread), each pair once, no zero value.
  std::vector<StackThreadValue> stack_threads;

  const std::string* find_meta(const std::string& key) const;
  void set_meta(const std::string& key, std::string value);
  // The index of the script pseudo-module in `modules`, kNoModule when there is none.
  uint32_t script_module() const;
};

}  // namespace hpcl
