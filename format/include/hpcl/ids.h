// The format's numbers: file kinds and versions, allocation APIs, node kinds, metric ids, memory
// levels and the small enums of the sections (docs/FORMAT.md). Plain integers and enums, no
// library types: the runtime's signal handler names them (a node's kind, a sample's metric) and
// includes nothing that allocates (tests/house/check_signal_safe.py). profile.h holds the model.
#pragma once

#include <cstdint>

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

enum StaticVarFlags : uint8_t {
  kStaticTls = 1,      // STT_TLS: one instance per thread, addresses relative to the TLS block
  kStaticSection = 2,  // no symbol covered the address: the whole writable data of the module
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

// Where in a variable its samples fell (format 1.2; OffsetHistogram, profile.h): kOffsetBins equal
// bins of its extent, owned by a site or a static.
inline constexpr uint32_t kOffsetBins = 32;
enum class OffsetOwner : uint8_t { Site = 1, Static = 2 };

// Whose samples a VariableBalance spreads (format 1.3; profile.h).
enum class BalanceOwner : uint8_t { Site = 1, Static = 2, Unknown = 3 };

// What a stack slot holds (format 1.10, STACK_NAMES; StackVar, profile.h).
enum class StackVarKind : uint8_t {
  Local = 1,      // a named variable of the function (or of a function inlined into it)
  Parameter = 2,  // a formal parameter kept in the frame
  Automatic = 3,  // a variable of dynamic size in the frame's dynamic area (VLA, automatic array)
  Temporary = 4,  // the dynamic area with no named variable to own it (a compiler temporary)
  Frame = 5,      // fixed-frame bytes no variable covers: spills, saved registers, arguments
};
inline constexpr StackVarKind kLastStackVarKind = StackVarKind::Frame;

}  // namespace hpcl
