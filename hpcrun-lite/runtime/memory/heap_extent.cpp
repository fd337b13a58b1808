// See heap_extent.h.
#include "memory/heap_extent.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace hpcrun {

bool HeapExtent::add_arena_heap(uint64_t base) {
  lock_.lock();
  int n = count_.load(std::memory_order_relaxed);
  bool ok = true;
  bool known = false;
  for (int i = 0; i < n && !known; ++i) known = bases_[i].load(std::memory_order_relaxed) == base;
  if (!known) {
    if (n < kMaxArenaHeaps) {
      bases_[n].store(base, std::memory_order_relaxed);
      count_.store(n + 1, std::memory_order_release);  // publishes the entry
    } else {
      ok = false;
    }
  }
  lock_.unlock();
  return ok;
}

bool HeapExtent::contains(uint64_t addr, uint64_t brk_end) const {
  uint64_t lo = brk_lo_.load(std::memory_order_acquire);
  if (lo != 0 && addr >= lo && addr < brk_end) return true;
  int n = count_.load(std::memory_order_acquire);
  uint64_t base = addr & ~(kArenaHeap - 1);
  for (int i = 0; i < n; ++i)
    if (bases_[i].load(std::memory_order_relaxed) == base) return true;
  return false;
}

// Reads with open/read (no stdio: this runs in the runtime's constructor, before malloc may be
// ready) and scans line by line for the "[heap]" mapping.
uint64_t read_brk_heap_start() {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[4096];
  char line[512];
  size_t used = 0;
  uint64_t result = 0;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    for (ssize_t i = 0; i < n && result == 0; ++i) {
      if (buf[i] != '\n') {
        if (used < sizeof line - 1) line[used++] = buf[i];
        continue;
      }
      line[used] = 0;
      used = 0;
      size_t len = strlen(line);
      if (len >= 6 && strcmp(line + len - 6, "[heap]") == 0) {
        uint64_t v = 0;
        for (const char* p = line; *p && *p != '-'; ++p) {
          int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
          if (d < 0) break;
          v = v * 16 + uint64_t(d);
        }
        result = v;
      }
    }
    if (result) break;
  }
  close(fd);
  return result;
}

}  // namespace hpcrun
