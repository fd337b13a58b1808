// See alloc_sites.h.
#include "memory/alloc_sites.h"

#include "base/raw_sys.h"

#include <cstring>

namespace hpcrun {

static void* map_zeroed(size_t bytes) {
  return raw_mmap(bytes);
}

// Two chains with unrelated constants (FNV's, and a golden-ratio multiply with a rotate), run
// side by side in one pass over the frames.
SiteDigest site_digest(uint8_t api, const uint64_t* frames, uint32_t n, const char* name,
                       uint32_t name_len) {
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t(api) << 8);
  uint64_t c = 0x243f6a8885a308d3ull + api;
  for (uint32_t i = 0; i < n; ++i) {
    h ^= frames[i];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
    c = (c ^ frames[i]) * 0x9e3779b97f4a7c15ull;
    c = (c << 27) | (c >> 37);
  }
  for (uint32_t i = 0; i < name_len; ++i) {
    h = (h ^ uint8_t(name[i])) * 0x100000001b3ull;
    c = (c ^ uint8_t(name[i])) * 0x9e3779b97f4a7c15ull;
  }
  c ^= c >> 31;
  c *= 0xbf58476d1ce4e5b9ull;
  c ^= c >> 29;
  return SiteDigest{h ^ n, c ^ n};
}

namespace {

// Frame i is stored as frame[i] - frame[i-1] (frame[-1] = 0), zigzag-mapped so that a small
// step back is a small number, in LEB128: a call path mostly stays in one module.
uint64_t zigzag(uint64_t cur, uint64_t prev) {
  uint64_t d = cur - prev;
  return (d << 1) ^ (0 - (d >> 63));
}

size_t packed_size(const uint64_t* frames, uint32_t n) {
  size_t bytes = 0;
  uint64_t prev = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t z = zigzag(frames[i], prev);
    prev = frames[i];
    do {
      ++bytes;
      z >>= 7;
    } while (z);
  }
  return bytes;
}

void pack(const uint64_t* frames, uint32_t n, uint8_t* out) {
  uint64_t prev = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t z = zigzag(frames[i], prev);
    prev = frames[i];
    while (z >= 0x80) {
      *out++ = uint8_t(z | 0x80);
      z >>= 7;
    }
    *out++ = uint8_t(z);
  }
}

// Unpacks one frame at *p after `prev`.
inline uint64_t unpack_one(const uint8_t*& p, uint64_t prev) {
  uint64_t z = 0;
  int shift = 0;
  uint8_t b;
  do {
    b = *p++;
    z |= uint64_t(b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  return prev + ((z >> 1) ^ (0 - (z & 1)));
}

}  // namespace

uint32_t unpack_frames(const SiteRecord& r, uint64_t* out) {
  const uint8_t* p = r.frames;
  uint64_t prev = 0;
  for (uint32_t i = 0; i < r.nframes; ++i) out[i] = prev = unpack_one(p, prev);
  return r.nframes;
}

SiteRecord* AllocSites::get(uint32_t id) const {
  if (id >= count_.load(std::memory_order_acquire)) return nullptr;
  SiteRecord* c = chunks_[id >> kChunkBits].load(std::memory_order_acquire);
  return c ? &c[id & ((1u << kChunkBits) - 1)] : nullptr;
}

uint32_t AllocSites::index_slots() const {
  Index* ix = index_.load(std::memory_order_acquire);
  return ix ? uint32_t(ix->mask + 1) : 0;
}

// Under lock_: an index with room for `sites` at load factor 1/2, the ids already interned
// entered in it; false when none can be mapped.
bool AllocSites::ensure_index(uint32_t sites) {
  Index* ix = index_.load(std::memory_order_relaxed);
  uint64_t want = ix ? ix->mask + 1 : kFirstSlots;
  while (want < kMaxSlots && uint64_t(sites) * 2 > want) want = want * 4 < kMaxSlots ? want * 4 : kMaxSlots;
  if (ix && want == ix->mask + 1) return true;
  auto* fresh = static_cast<Index*>(map_zeroed(sizeof(Index) + sizeof(std::atomic<uint32_t>) * want));
  if (!fresh) return ix != nullptr && uint64_t(sites) * 2 <= ix->mask + 1;
  // Entering the ids scatters over every page of the new index (it grows 4x, so they are an
  // eighth of its slots): all of them present in one call.
  populate_write(fresh, sizeof(Index) + sizeof(std::atomic<uint32_t>) * want);
  fresh->mask = want - 1;
  uint32_t n = count_.load(std::memory_order_relaxed);
  for (uint32_t id = 0; id < n; ++id) {
    uint64_t h = get(id)->hash;
    for (uint32_t i = 0;; ++i) {
      auto& slot = fresh->slot(h + i);
      if (slot.load(std::memory_order_relaxed) == 0) {
        slot.store(id + 1, std::memory_order_relaxed);
        break;
      }
    }
  }
  index_.store(fresh, std::memory_order_release);
  return true;
}

// Frames and names share the chunks; each piece starts 8-byte aligned. Without `bytes` the
// room is only reserved.
void* AllocSites::store(const void* bytes, size_t n) {
  size_t rounded = (n + 7) & ~size_t(7);
  if (frame_used_ + rounded > kFrameChunk) {
    frame_chunk_ = static_cast<uint8_t*>(map_zeroed(kFrameChunk));
    if (!frame_chunk_) return nullptr;
    frame_used_ = 0;
  }
  void* dst = frame_chunk_ + frame_used_;
  frames_front_.reach(frame_chunk_, frame_chunk_ + frame_used_ + rounded, kFrameChunk);
  if (n && bytes) memcpy(dst, bytes, n);
  frame_used_ += rounded;
  return dst;
}

uint32_t AllocSites::intern(uint8_t api, uint8_t flags, const uint64_t* frames, uint32_t nframes,
                            const char* name, uint32_t name_len) {
  if (name_len > kMaxSiteName) name_len = kMaxSiteName;
  if (!name) name_len = 0;
  return intern_digest(site_digest(api, frames, nframes, name, name_len), api, flags, frames, nframes,
                       name, name_len);
}

uint32_t AllocSites::intern_cached(SiteCache& cache, uint8_t api, uint8_t flags, const uint64_t* frames,
                                   uint32_t nframes) {
  const SiteDigest d = site_digest(api, frames, nframes);
  SiteCache::Entry& e = cache.entries[d.hash % SiteCache::kEntries];
  if (e.id_plus_1 != 0 && e.hash == d.hash && e.check == d.check && e.api == api &&
      e.nframes == nframes && (e.flags & flags) == flags) {
    ++cache.hits;
    return e.id_plus_1 - 1;
  }
  const uint32_t id = intern_digest(d, api, flags, frames, nframes, nullptr, 0);
  const SiteRecord* r = get(id);
  if (r) e = SiteCache::Entry{d.hash, d.check, id + 1, uint16_t(nframes), api,
                              __atomic_load_n(&r->flags, __ATOMIC_RELAXED)};
  return id;
}

uint32_t AllocSites::intern_digest(const SiteDigest& d, uint8_t api, uint8_t flags, const uint64_t* frames,
                                   uint32_t nframes, const char* name, uint32_t name_len) {
  const uint64_t h = d.hash;
  auto matches = [&](uint32_t id) {
    SiteRecord* r = get(id);
    if (!(r && r->hash == h && r->check == d.check && r->api == api && r->nframes == nframes &&
          r->name_len == name_len && (name_len == 0 || memcmp(r->name, name, name_len) == 0)))
      return false;
    if ((__atomic_load_n(&r->flags, __ATOMIC_RELAXED) & flags) != flags)
      __atomic_fetch_or(&r->flags, flags, __ATOMIC_RELAXED);
    return true;
  };
  // Lock-free probe first: the common case is an existing site.
  if (Index* ix = index_.load(std::memory_order_acquire)) {
    for (uint32_t i = 0; i < 64; ++i) {
      uint32_t v = ix->slot(h + i).load(std::memory_order_acquire);
      if (v == 0) break;
      if (matches(v - 1)) return v - 1;
    }
  }
  lock_.lock();
  uint32_t result = kNoSite;
  if (ensure_index(count_.load(std::memory_order_relaxed) + 1)) {
    Index* ix = index_.load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < 64; ++i) {
      auto& slot = ix->slot(h + i);
      uint32_t v = slot.load(std::memory_order_relaxed);
      if (v != 0) {
        if (matches(v - 1)) { result = v - 1; break; }
        continue;
      }
      uint32_t id = count_.load(std::memory_order_relaxed);
      if (id >= kMaxSites) break;
      uint32_t c = id >> kChunkBits;
      if (!chunks_[c].load(std::memory_order_relaxed)) {
        auto* mem = static_cast<SiteRecord*>(map_zeroed(sizeof(SiteRecord) << kChunkBits));
        if (!mem) break;
        chunks_[c].store(mem, std::memory_order_release);
      }
      auto* stored = static_cast<uint8_t*>(store(nullptr, packed_size(frames, nframes)));
      if (stored) pack(frames, nframes, stored);
      const char* stored_name = name_len ? static_cast<const char*>(store(name, name_len)) : nullptr;
      if (!stored || (name_len && !stored_name)) break;
      SiteRecord* chunk = chunks_[c].load(std::memory_order_relaxed);
      SiteRecord* r = &chunk[id & ((1u << kChunkBits) - 1)];
      records_front_.reach(chunk, r + 1, sizeof(SiteRecord) << kChunkBits);
      r->hash = h;
      r->check = d.check;
      r->frames = stored;
      r->nframes = nframes;
      r->api = api;
      r->flags = flags;
      r->name = stored_name;
      r->name_len = uint16_t(name_len);
      count_.store(id + 1, std::memory_order_release);
      slot.store(id + 1, std::memory_order_release);
      result = id;
      break;
    }
  }
  lock_.unlock();
  return result;
}

}  // namespace hpcrun
