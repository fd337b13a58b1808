// The fixed numbers of docs/FORMAT.md in one place: magic, header field offsets, flags, section
// tags and the smallest encoded size of each record. The sizes are static_asserted against the
// field lists in the spec so that a field added to the spec without updating the reader's
// allocation limits fails to compile.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hpcl::layout {

inline constexpr uint8_t kMagic[8] = {0x48, 0x50, 0x43, 0x4c, 0x49, 0x54, 0x45, 0x1a};

// Header: magic, u16 major, u16 minor, u32 kind, u64 payload_size, u32 flags, u32 reserved.
inline constexpr size_t kOffMajor = 8;
inline constexpr size_t kOffMinor = 10;
inline constexpr size_t kOffKind = 12;
inline constexpr size_t kOffPayloadSize = 16;
inline constexpr size_t kOffFlags = 24;
inline constexpr size_t kOffReserved = 28;
inline constexpr size_t kHeaderSize = 32;
static_assert(kOffMajor == sizeof(kMagic));
static_assert(kOffMinor == kOffMajor + 2 && kOffKind == kOffMinor + 2);
static_assert(kOffPayloadSize == kOffKind + 4 && kOffFlags == kOffPayloadSize + 8);
static_assert(kOffReserved == kOffFlags + 4 && kHeaderSize == kOffReserved + 4);

inline constexpr uint32_t kFlagZstd = 1;
inline constexpr uint32_t kKnownFlags = kFlagZstd;

// Section header: u32 tag, u32 reserved, u64 length.
inline constexpr size_t kSectionHeaderSize = 4 + 4 + 8;
static_assert(kSectionHeaderSize == 16);

enum Tag : uint32_t {
  kTagMeta = 1,
  kTagModules = 2,
  kTagSites = 3,
  kTagStatics = 4,
  kTagTree = 5,
  kTagSymbols = 6,
  kTagCallees = 7,  // since 1.1
  kTagOffsets = 8,  // since 1.2
  kTagBalance = 9,  // since 1.3
  kTagFirstTouch = 10,  // since 1.5
  kTagSiteNames = 11,  // since 1.7
  kTagScriptFrames = 12,  // since 1.8
  kTagRankValues = 13,  // since 1.9
  kTagStackNames = 14,  // since 1.10
  kTagStackThreads = 15,  // since 1.11
};
inline constexpr uint32_t kLastKnownTag = kTagStackThreads;

// Smallest encoded record sizes (all strings empty, no nested entries). The reader refuses a count
// that cannot fit in what is left of a section before reserving memory for it.
inline constexpr size_t kStrMin = 4;
inline constexpr size_t kMetaPairMin = kStrMin + kStrMin;
inline constexpr size_t kModuleMin = kStrMin + kStrMin + 8;
inline constexpr size_t kFrameSize = 4 + 8;
inline constexpr size_t kSiteMin = 1 + 1 + 8 + 8 + 4;
inline constexpr size_t kStaticMin = 4 + 8 + 8 + 1 + kStrMin;
inline constexpr size_t kNodeMin = 4 + 1 + 4 + 8 + 1;
inline constexpr size_t kMetricSize = 2 + 8;
inline constexpr size_t kSymbolMin = 4 + 8 + 4;
inline constexpr size_t kSourceLocMin = kStrMin + kStrMin + 4;
inline constexpr size_t kCalleeMin = 4 + 8 + kSourceLocMin;
static_assert(kModuleMin == 16 && kFrameSize == 12 && kSiteMin == 22 && kStaticMin == 25);
inline constexpr size_t kOffsetsMin = 1 + 4 + 8 + 8 + 4;  // without bins
static_assert(kOffsetsMin == 25);
// BALANCE: u64 rank_groups, u64 thread_groups, u32 n, then n entries of u8 owner, u32 index and
// two spreads (u64 groups, sum, sumsq_lo, sumsq_hi, min, max; i64 max_rank; u64 max_pid;
// u32 max_thread).
inline constexpr size_t kSpreadSize = 6 * 8 + 8 + 8 + 4;
inline constexpr size_t kBalanceEntrySize = 1 + 4 + 2 * kSpreadSize;
static_assert(kSpreadSize == 68 && kBalanceEntrySize == 141);
// FIRST_TOUCH: u32 n, then n entries of u8 owner, u32 index and one spread (threads).
inline constexpr size_t kFirstTouchEntrySize = 1 + 4 + kSpreadSize;
static_assert(kFirstTouchEntrySize == 73);
// SITE_NAMES: u32 n, then n entries of u32 site and str name.
inline constexpr size_t kSiteNameMin = 4 + kStrMin;
static_assert(kSiteNameMin == 8);
// SCRIPT_FRAMES: u32 n, then n entries of str file, str function and u32 line.
inline constexpr size_t kScriptFrameMin = kStrMin + kStrMin + 4;
static_assert(kScriptFrameMin == 12);
// RANK_VALUES: u32 n, then n entries of u32 node, i64 rank, u16 metric and u64 value.
inline constexpr size_t kRankValueSize = 4 + 8 + 2 + 8;
static_assert(kRankValueSize == 22);
static_assert(kNodeMin == 18 && kMetricSize == 10 && kSymbolMin == 16 && kSourceLocMin == 12);

// STACK_NAMES: u32 nvars, then nvars entries of u8 kind, str name, str function, str file,
// u32 line, i64 lo, u64 size, str type; then u32 nslots, then nslots entries of u32 module,
// u64 offset, i64 lo, u32 width, u32 var.
inline constexpr size_t kStackVarMin = 1 + 3 * kStrMin + 4 + 8 + 8 + kStrMin;
inline constexpr size_t kStackSlotNameSize = 4 + 8 + 8 + 4 + 4;
static_assert(kStackVarMin == 37 && kStackSlotNameSize == 28);
// STACK_THREADS: u32 n, then n entries of u32 node, i64 rank, u64 pid, u32 thread, u64 samples.
inline constexpr size_t kStackThreadSize = 4 + 8 + 8 + 4 + 8;
static_assert(kStackThreadSize == 32);

// Largest node kind this version knows (NodeKind::StackSlot).
inline constexpr uint8_t kMaxNodeKind = 10;

}  // namespace hpcl::layout
