// See last_words_heap.h.
#include "memory/last_words_heap.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "base/populate.h"
#include "base/raw_sys.h"

namespace hpcrun {

__thread int t_last_words __attribute__((tls_model("initial-exec"))) = 0;

namespace {

// Chunks are reserved, not committed (MAP_NORESERVE): a small profile touches a few pages.
constexpr size_t kChunk = size_t(64) << 20;
constexpr size_t kMaxChunks = 256;  // 16 GiB of ordinary chunks; bigger blocks get their own

struct Chunk {
  uintptr_t lo, hi;
};
Chunk g_chunks[kMaxChunks];
constinit std::atomic<size_t> g_nchunks{0};
uintptr_t g_cur = 0, g_end = 0;
size_t g_used = 0;

bool add_chunk(size_t min_size) {
  size_t n = g_nchunks.load(std::memory_order_relaxed);
  if (n == kMaxChunks) return false;
  size_t size = min_size > kChunk ? (min_size + 4095) & ~size_t(4095) : kChunk;
  void* p = raw_mmap(size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
  if (!p) return false;
  g_cur = reinterpret_cast<uintptr_t>(p);
  g_end = g_cur + size;
  g_chunks[n] = Chunk{g_cur, g_end};
  g_nchunks.store(n + 1, std::memory_order_release);
  return true;
}

// Every block is preceded by a header: its requested size and its size class. Blocks of up to
// 32 MiB with the default alignment are carved in powers of two and kept on a free list per
// class when freed: the writer builds the profile with containers that grow by doubling, and a
// heap that never reuses a block holds every outgrown copy. (On CP2K's ranks, 849 MB at exit
// under the tool against 413 MB natively, the peak did not move with this: what the writer holds
// at once, the profile model and its 80 MB payload, is most of it.) Aligned and larger blocks are
// carved to measure and never reused. The pages of a class block that are never written stay
// unbacked (MAP_NORESERVE), so rounding up costs address space, not memory.
struct Header {
  size_t size;
  size_t cls;
};
static_assert(sizeof(Header) == 16);
constexpr size_t kNoClass = ~size_t(0);
constexpr size_t kMinClass = 5;   // 32 bytes
constexpr size_t kMaxClass = 25;  // 32 MiB
void* g_free[kMaxClass + 1];

Header* header_of(const void* p) {
  return reinterpret_cast<Header*>(reinterpret_cast<uintptr_t>(p) - sizeof(Header));
}

size_t class_of(size_t size) {
  size_t cls = kMinClass;
  while (cls <= kMaxClass && (size_t(1) << cls) < size) ++cls;
  return cls;
}

// The first MiB the heap carves is made present ahead of the fill (populate.h): a small
// profile's whole write (the tree, the encoder's buffer, zstd's tables) took ~175 page faults
// there, in a LAMMPS start-up. Beyond it, faults are few next to the profile's size, and class
// blocks' unwritten tails stay unbacked.
constexpr size_t kPopulatedBytes = size_t(1) << 20;
PopulatedFront g_front;

void* carve(size_t size, size_t align) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    uintptr_t start = (g_cur + sizeof(Header) + align - 1) & ~uintptr_t(align - 1);
    if (g_cur && start + size <= g_end) {
      g_cur = start + size;
      const uintptr_t first = g_chunks[0].lo;
      if (g_cur <= first + kPopulatedBytes) g_front.reach(first, g_cur, first + kPopulatedBytes);
      return reinterpret_cast<void*>(start);
    }
    if (!add_chunk(size + sizeof(Header) + align)) return nullptr;
  }
  return nullptr;
}

}  // namespace

void* last_words_alloc(size_t size, size_t align) {
  if (align < 16) align = 16;
  if (size > (size_t(1) << 46) || align > 4096) return nullptr;
  const size_t cls = align == 16 ? class_of(size) : kNoClass;
  void* p = nullptr;
  if (cls <= kMaxClass && g_free[cls]) {
    p = g_free[cls];
    memcpy(&g_free[cls], p, sizeof(void*));
  } else {
    p = carve(cls <= kMaxClass ? size_t(1) << cls : size, align);
    if (!p) return nullptr;
  }
  *header_of(p) = Header{size, cls <= kMaxClass ? cls : kNoClass};
  g_used += size;
  return p;
}

void last_words_free(void* p) {
  // Only the writing thread, while it writes, touches the free lists: another thread that frees
  // a block the writer left behind (a library's cache made during the write) leaves it there,
  // as this heap always did, instead of racing the writer for a list.
  if (!t_last_words) return;
  const Header h = *header_of(p);
  if (h.cls == kNoClass) return;
  memcpy(p, &g_free[h.cls], sizeof(void*));
  g_free[h.cls] = p;
  g_used -= h.size;
}

void* last_words_realloc(void* old, size_t size) {
  if (old && last_words_owns(old)) {
    Header* h = header_of(old);
    const size_t capacity = h->cls == kNoClass ? h->size : size_t(1) << h->cls;
    if (size <= capacity && size > 0) {
      g_used += size - h->size;
      h->size = size;
      return old;
    }
  }
  void* p = last_words_alloc(size);
  if (p && old && last_words_owns(old)) {
    const size_t n = last_words_size(old);
    memcpy(p, old, n < size ? n : size);
    last_words_free(old);
  }
  // A block of the real allocator is left where it is (see last_words_heap.h): its bytes
  // cannot be copied without its size, and no runtime code reallocates one at exit.
  return p;
}

bool last_words_owns(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  size_t n = g_nchunks.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i)
    if (a - g_chunks[i].lo < g_chunks[i].hi - g_chunks[i].lo) return true;
  return false;
}

size_t last_words_size(const void* p) { return header_of(p)->size; }

size_t last_words_used() { return g_used; }

size_t last_words_reserved() {
  size_t total = 0;
  for (size_t i = 0, n = g_nchunks.load(std::memory_order_acquire); i < n; ++i)
    total += g_chunks[i].hi - g_chunks[i].lo;
  return total;
}

}  // namespace hpcrun
