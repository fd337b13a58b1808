// Allocation sites: every distinct (allocation API, call path, name) gets a small integer id,
// the identity of a heap variable. The name is what the program calls the memory (a mapped
// file's path, a shared-memory segment's name, a name given to hpcrun_lite_name); most sites
// have none. The address map stores the id with each tracked block, and
// the signal handler puts it in the tree (HeapVar node); the writer turns the table into the
// profile's SITES section.
//
// Lookups are lock-free (the allocation fast path for an existing site takes no lock); a new
// site is inserted under a spinlock. Records and frames live in mmap'd chunks that are never
// freed, so ids and frame pointers stay valid for the life of the process. A site's frames are
// kept packed (each the signed difference from the one before, zigzag, LEB128): 3.7 bytes a
// frame instead of 8 on CP2K, whose 260,000 sites per rank have 6 million frames (48 MB raw,
// 22 MB packed). A site is found again by a 128-bit digest of its identity (two independent
// 64-bit hashes of API, frames and name) and its frame count, without unpacking: the lookup of
// an existing site is the tracked allocation's most frequent step, and two of 260,000 paths
// would share a digest with a probability below 1e-28.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "base/populate.h"
#include "base/spinlock.h"

namespace hpcrun {

// Deeper allocation paths are cut at the outer end: unw_backtrace costs ~8 ns a frame and the
// site hash and compare grow with depth; 32 frames keep a tracked allocation near 300 ns.
inline constexpr int kMaxAllocFrames = 32;
// Longer names are cut: a path or a pool's label, not a document.
inline constexpr uint32_t kMaxSiteName = 255;  // fits SiteRecord::name_len

struct SiteRecord {
  uint64_t hash;   // the identity's digest: hash and check (site_digest)
  uint64_t check;
  // Raw code addresses (call sites: return address - 1), innermost first, packed: read them
  // with unpack_frames.
  const uint8_t* frames;
  const char* name;  // name_len bytes, not NUL-terminated; null when the site has none
  uint32_t nframes;
  uint8_t api;   // hpcl::AllocApi
  uint8_t flags; // hpcl::AllocSiteFlags, OR-ed in by every intern (not part of the identity)
  uint16_t name_len;
  std::atomic<uint64_t> allocations;
  std::atomic<uint64_t> bytes;
};

// A thread's memory of the sites it interned lately, by digest: a tracked allocation from a site
// met lately finds its id without the index and the record, two cache misses in a table of tens
// of thousands of sites (OpenFOAM's simpleFoam: 14,400 sites a rank, and these two loads 68% of
// intern's time, perf annotate, 2 Dec). Sites with a name are not kept here.
struct SiteCache {
  static constexpr uint32_t kEntries = 256;
  struct Entry {
    uint64_t hash, check;
    uint32_t id_plus_1;  // 0: empty
    uint16_t nframes;
    uint8_t api, flags;
  };
  Entry entries[kEntries];
  // Lookups it answered (the writer's -v line). Counted here, by its one writer, not in the
  // table: a process-wide counter was one more shared cache line written by every allocating
  // thread at every hit.
  uint64_t hits;
};

struct SiteDigest {
  uint64_t hash, check;
};

class AllocSites {
 public:
  // CP2K's H2O-32 made 261,651 sites in a rank, against 262,144 (2^18) then: a larger code or
  // input would have lost its later sites. Records and the index are mapped as sites come.
  static constexpr uint32_t kMaxSites = 1u << 20;
  static constexpr uint32_t kNoSite = 0xffffffffu;  // the table is full or out of memory

  // The id of the site, created if new; kNoSite when it cannot be stored (the block is then
  // not tracked). `flags` are added to the site's flags: a site whose blocks were tracked with
  // weight 1 at start-up and one in k later is one variable, flagged sampled. Never called from
  // a signal handler.
  uint32_t intern(uint8_t api, uint8_t flags, const uint64_t* frames, uint32_t nframes,
                  const char* name = nullptr, uint32_t name_len = 0);
  // intern for an unnamed site, through the calling thread's cache (one writer per cache).
  uint32_t intern_cached(SiteCache& cache, uint8_t api, uint8_t flags, const uint64_t* frames,
                         uint32_t nframes);
  void count(uint32_t id, uint64_t bytes) {
    SiteRecord* r = get(id);
    if (!r) return;
    r->allocations.fetch_add(1, std::memory_order_relaxed);
    r->bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  uint32_t size() const { return count_.load(std::memory_order_acquire); }
  SiteRecord* get(uint32_t id) const;
  // Fork support: held across fork() so the child never inherits a half-inserted site.
  void lock() { lock_.lock(); }
  void unlock() { lock_.unlock(); }

 private:
  static constexpr int kChunkBits = 12;
  // The index: open addressing, load factor <= 1/2, from kFirstSlots slots growing 4x up to
  // kMaxSlots. A table sized for the most sites (2 MiB) made every new site a cache and TLB miss
  // on a random page: 80% of intern's time in a LAMMPS start-up of 20,000 sites (issue 23).
  static constexpr uint32_t kFirstSlots = 1u << 12;
  static constexpr uint32_t kMaxSlots = 1u << 21;
  static constexpr size_t kFrameChunk = 1u << 20;  // bytes per frame-storage chunk

 public:
  // Slots of the current index (tests).
  uint32_t index_slots() const;

 private:
  // A header followed in its mapping by mask + 1 slots: site id + 1, 0 = empty.
  struct Index {
    uint64_t mask;
    std::atomic<uint32_t>& slot(uint64_t h) {
      return reinterpret_cast<std::atomic<uint32_t>*>(this + 1)[h & mask];
    }
  };
  bool ensure_index(uint32_t sites);
  uint32_t intern_digest(const SiteDigest& d, uint8_t api, uint8_t flags, const uint64_t* frames,
                         uint32_t nframes, const char* name, uint32_t name_len);
  void* store(const void* bytes, size_t n);

  std::atomic<SiteRecord*> chunks_[kMaxSites >> kChunkBits] = {};
  // Published with release: the lock-free probe reads it unlocked. A grown index replaces it;
  // the older one stays mapped (a probe may still read it: a site missing there is looked up
  // again under the lock, in the current one).
  std::atomic<Index*> index_{nullptr};
  std::atomic<uint32_t> count_{0};
  SpinLock lock_;
  uint8_t* frame_chunk_ = nullptr;
  size_t frame_used_ = kFrameChunk;
  PopulatedFront records_front_, frames_front_;  // under lock_
};

SiteDigest site_digest(uint8_t api, const uint64_t* frames, uint32_t n, const char* name = nullptr,
                       uint32_t name_len = 0);

// The site's frames into out[0 .. r.nframes) (at most kMaxAllocFrames); returns r.nframes.
uint32_t unpack_frames(const SiteRecord& r, uint64_t* out);

}  // namespace hpcrun
