// See last_words_heap.h.
#include "memory/last_words_heap.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstring>

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

}  // namespace

// Each block is preceded by its size (in the 16 bytes before it), so realloc can copy it out.
void* last_words_alloc(size_t size, size_t align) {
  if (align < 16) align = 16;
  if (size > (size_t(1) << 46) || align > 4096) return nullptr;
  for (int attempt = 0; attempt < 2; ++attempt) {
    uintptr_t start = (g_cur + 16 + align - 1) & ~uintptr_t(align - 1);
    if (g_cur && start + size <= g_end) {
      memcpy(reinterpret_cast<void*>(start - 16), &size, sizeof size);
      g_cur = start + size;
      g_used += size;
      return reinterpret_cast<void*>(start);
    }
    if (!add_chunk(size + 16 + align)) return nullptr;
  }
  return nullptr;
}

bool last_words_owns(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  size_t n = g_nchunks.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i)
    if (a - g_chunks[i].lo < g_chunks[i].hi - g_chunks[i].lo) return true;
  return false;
}

size_t last_words_size(const void* p) {
  size_t n;
  memcpy(&n, static_cast<const unsigned char*>(p) - 16, sizeof n);
  return n;
}

size_t last_words_used() { return g_used; }

}  // namespace hpcrun
