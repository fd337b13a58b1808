// The in-memory model of a hpcrun-lite profile: what one process measured (a "process profile")
// or what the analyzer merged from many (a "database"). docs/FORMAT.md specifies the bytes;
// io.h converts between the two. The runtime, the analyzer and the viewer all use
// this one model so that every writer is tested by the real reader.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hpcl {

// File kinds share one container (header + zstd payload of sections).
enum class FileKind : uint32_t { Process = 1, Database = 2 };

// Version of the container and sections. A reader accepts every minor of its major and says
// in plain words when it meets a newer major.
inline constexpr uint16_t kMajorVersion = 1;
// 1.5 added memory metrics (TLB, lock, HITM, DC miss, NUMA; latency and data source were named
// in 1.0), counters, first touch by node and the FIRST_TOUCH section, 1.4 page_faults, 1.3 BALANCE, 1.2 OFFSETS, 1.1 CALLEES. A writer stamps the lowest minor that describes its file, so a
// file without the newer parts stays a file of the earlier minor byte for byte.
// 1.6 added the watchpoint metrics (ids 96-151). 1.7 added the allocation APIs 15-22 (mappings
// of files and shared memory, named ranges, the allocators' own entry points) and SITE_NAMES.
// 1.8 added SCRIPT_FRAMES, frames of interpreted code (see ScriptFrame). 1.9 added RANK_VALUES, a
// database's metrics per tree node and rank (see RankValue). 1.10 added the stack nodes (kinds 9
// and 10: which frame's storage a stack address lies in) and STACK_NAMES (see StackVar). 1.11
// added STACK_THREADS, a database's stack samples per node and thread (see StackThreadValue).
inline constexpr uint16_t kMinorVersion = 11;
inline constexpr uint16_t kMinorCallees = 1;
inline constexpr uint16_t kMinorOffsets = 2;
inline constexpr uint16_t kMinorBalance = 3;
inline constexpr uint16_t kMinorPageFaults = 4;
inline constexpr uint16_t kMinorMemoryMetrics = 5;
inline constexpr uint16_t kMinorWatch = 6;
inline constexpr uint16_t kMinorSiteNames = 7;
inline constexpr uint16_t kMinorScriptFrames = 8;
inline constexpr uint16_t kMinorRankValues = 9;
inline constexpr uint16_t kMinorStack = 10;
inline constexpr uint16_t kMinorStackThreads = 11;

inline constexpr uint32_t kNoModule = 0xffffffffu;
inline constexpr uint32_t kNoParent = 0xffffffffu;

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

// Which API allocated a heap variable. Since 1.7: a mapping of a file (named by its path) or of
// shared memory (/dev/shm, named by its path; System V, named by its key), a range the program
// named with hpcrun_lite_name, and the allocators' own entry points, each family one value
// (jemalloc's *allocx, mimalloc's mi_*, TBB's scalable_*, tcmalloc's tc_*).
enum class AllocApi : uint8_t {
  Malloc = 1, Calloc, Realloc, ReallocArray, Memalign, PosixMemalign, AlignedAlloc, Valloc, Pvalloc,
  New, NewArray, NewAligned, NewArrayAligned, Mmap,
  MmapFile, MmapShm, Shmat, Named, Jemalloc, Mimalloc, Tbbmalloc, Tcmalloc,
};
inline constexpr AllocApi kLastAllocApi10 = AllocApi::Mmap;  // the last value of 1.0-1.6
const char* alloc_api_name(AllocApi api);  // "malloc", "operator new[]", "mmap", ...

enum AllocSiteFlags : uint8_t {
  kSiteSampled = 1,  // some blocks (below --min-bytes) were tracked with probability < 1
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

enum StaticVarFlags : uint8_t {
  kStaticTls = 1,      // STT_TLS: one instance per thread, addresses relative to the TLS block
  kStaticSection = 2,  // no symbol covered the address: the whole writable data of the module
};

// A static variable: a symbol of some module (or a module's anonymous data).
struct StaticVar {
  uint32_t module = kNoModule;
  uint64_t offset = 0;  // link-time address (TLS: offset in the module's TLS block)
  uint64_t size = 0;
  uint8_t flags = 0;
  std::string name;  // raw (mangled) symbol name
};

// Node kinds of the calling-context tree. Payload (a, b) meaning per kind is in docs/FORMAT.md.
enum class NodeKind : uint8_t {
  Root = 0,         // the thread (or merged) root; its children are the four kind roots
  HeapRoot = 1,     // -> HeapVar -> access path
  StaticRoot = 2,   // -> StaticVar -> access path
  UnknownRoot = 3,  // -> UnknownClass -> access path
  NoDataRoot = 4,   // -> access path of samples whose instruction has no memory operand
  Frame = 5,        // a = module, b = offset
  HeapVar = 6,      // a = allocation site index
  StaticVarNode = 7,  // a = static variable index
  UnknownClass = 8,   // a = UnknownClass value
  // Since 1.10, below UnknownClass Stack: the frame whose storage holds the sampled address,
  // then where in that storage (stack_slot.h), then the access path.
  StackOwner = 9,  // a = module, b = offset of the owning frame's pc (as a Frame's)
  StackSlot = 10,  // a = width, b = lo as two's complement: bytes [lo, lo + a) from the frame's CFA
};

// Stack: a thread's stack (1.10: its nodes StackOwner say whose frame when the runtime found it).
// Other: no heap, static, stack or TLS variable covers the address.
// UntrackedHeap: in the malloc heap (brk heap or a glibc arena heap), but in no tracked block.
enum class UnknownClass : uint32_t { Stack = 0, Other = 1, UntrackedHeap = 2 };

// Metric identifiers. Ids are stable across versions; a reader keeps ids it does not know.
// docs/FORMAT.md has the table; metric_name() the names the reports print.
enum MetricId : uint16_t {
  kMetricSamples = 0,      // samples attributed exactly at this node
  // Memory metrics (1.0: latency and data source; 1.5: the rest), counted only on samples that carry them. A hardware source's
  // latency, data source and TLB come from the PMU record; NUMA placement from the page of the
  // sampled address (any source, move_pages) against the sampling CPU's node.
  kMetricLatency = 1,      // sum of access latency in cycles (hardware sources)
  // Samples in heap blocks tracked with probability p < 1 stand for 1/p samples of their site
  // (Horvitz-Thompson). Both are in units of samples (1/p is an integer), present only where
  // such samples landed, and sum like the others when merging:
  kMetricSamplesEstimated = 2,     // sum of (1/p - 1): estimated samples beyond the raw count
  kMetricSamplesEstimatedVar = 3,  // variance contribution, sum of (1/p^2 - 1/p)(2c + 1)
  // First touches (format 1.4): page faults whose data address fell in the node's variable, at
  // the faulting instruction. A separate count: it never enters the samples' shares.
  kMetricPageFaults = 4,
  kMetricLatencySamples = 5,  // samples whose record carried a latency: mean = latency / this
  kMetricNumaLocal = 6,       // samples whose page was on the sampling CPU's NUMA node
  kMetricNumaRemote = 7,      // ... on another node
  // 16 + MemLevel: samples per data source, in the order of MemLevel below.
  kMetricDataSrcBase = 16,
  kMetricTlbHit = 32,   // samples whose translation hit the (first- or second-level) TLB
  kMetricTlbMiss = 33,  // ... missed it (a page walk)
  kMetricLocked = 34,   // samples of locked (atomic) instructions
  kMetricHitm = 35,     // samples whose line was found modified in another core's cache
  kMetricDcMiss = 36,   // IBS: samples that missed the L1 data cache
  // Counter metrics (format 1.5): events of the PAPI event k counted at this node's code, in
  // units of the event (each overflow adds the event's period). META counter.<k>.event names the
  // event and counter.<k>.period its period; always under the no-data root, since a counter
  // says which code, not which variable.
  kMetricCounterBase = 64,
  kMetricCounterEnd = 80,  // one past the last: 16 counters
  // First touch by node (format 1.5): of the node's page_faults (id 4), those taken by a CPU of
  // NUMA node k, as 80 + k. With the kernel's default policy a page is placed on the node of
  // the CPU that first touched it, so this says where the variable's pages went. Nodes >= 16
  // are not counted here (page_faults still counts them).
  kMetricFirstTouchNodeBase = 80,
  kMetricFirstTouchNodeEnd = 96,  // one past the last: nodes 0..15
  // Watchpoint analyses (format 1.6, -e wp-sharing / wp-reuse): counts of debug-register traps,
  // always on a variable's own node (kinds 6, 7, 8), never on its access paths. All sum over
  // threads and processes when merging.
  kMetricWpFalse = 96,          // sharing traps on another word of the sampled access's line
  kMetricWpTrue = 97,           // sharing traps on the very bytes the sampled access touched
  kMetricWpThreads = 98,        // threads (of each process, summed) that took a sharing trap
  kMetricWpLines = 99,          // cache lines (of each process, summed) with a sharing trap
  kMetricWpSharingArmed = 100,  // sampled accesses that armed sharing watches in other threads
  kMetricWpReuseArmed = 101,    // sampled accesses that armed a reuse watch
  kMetricWpNoReuse = 102,       // reuse watches that expired: no reuse within the window
  kMetricWpWordBase = 104,      // + w: sharing traps at byte offset 8w of the 64-byte line
  kMetricWpWordEnd = 112,
  kMetricWpReuseBase = 112,     // + k: reuse times in [2^k, 2^(k+1)) ns (k = 0 also 0..1 ns)
  kMetricWpReuseEnd = 152,      // one past the last: 40 bins, the last holds everything longer
};

// Where the data of a sampled access came from, as metric kMetricDataSrcBase + level. The
// runtime's decoders (PEBS data_src, IBS registers) map into these; NotAvailable counts the
// samples whose record named no level.
enum class MemLevel : uint8_t {
  NotAvailable = 0,
  L1,
  FillBuffer,   // line fill buffer / miss address buffer: the line was already on its way
  L2,
  L3,           // the last-level cache of this core's node (L4/eDRAM is counted here too)
  LocalDram,
  RemoteDram,
  RemoteCache,  // another core's cache beyond this one's L3: another CCX, node or socket
  Pmem,
  Cxl,
  Io,
  Uncached,
  Count
};

// Stable short names: "samples", "latency", "l1", "local_dram", "tlb_miss", ... ("" if unknown).
const char* metric_name(uint16_t id);
// True for the watchpoint metrics (96-151, format 1.6).
inline bool is_watch_metric(uint16_t id) { return id >= kMetricWpFalse && id < kMetricWpReuseEnd; }
// True for the memory metrics: latency, data source, TLB, lock, HITM, DC miss, NUMA (1, 5-7,
// 16-36). Latency and the data sources were named in 1.0; the others came with 1.5.
bool is_memory_metric(uint16_t id);

struct Metric {
  uint16_t id = 0;
  uint64_t value = 0;
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
inline constexpr uint32_t kOffsetBins = 32;
enum class OffsetOwner : uint8_t { Site = 1, Static = 2 };
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
enum class BalanceOwner : uint8_t { Site = 1, Static = 2, Unknown = 3 };
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
enum class StackVarKind : uint8_t {
  Local = 1,      // a named variable of the function (or of a function inlined into it)
  Parameter = 2,  // a formal parameter kept in the frame
  Automatic = 3,  // a variable of dynamic size in the frame's dynamic area (VLA, automatic array)
  Temporary = 4,  // the dynamic area with no named variable to own it (a compiler temporary)
  Frame = 5,      // fixed-frame bytes no variable covers: spills, saved registers, arguments
};
inline constexpr StackVarKind kLastStackVarKind = StackVarKind::Frame;
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
