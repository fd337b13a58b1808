// A C++ allocator that is not malloc, as tcmalloc or a pool library provide: operator new and
// delete from mmap. A program linked with it and measured by the tool gets the tool's operator
// new first, which forwards here; nothing here calls malloc.
#include <sys/mman.h>

#include <cstddef>
#include <cstring>
#include <new>

namespace {

void* map_block(std::size_t n) {
  std::size_t total = n + 16;
  void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  std::memcpy(p, &total, sizeof total);
  return static_cast<char*>(p) + 16;
}

void unmap_block(void* p) {
  if (!p) return;
  char* base = static_cast<char*>(p) - 16;
  std::size_t total;
  std::memcpy(&total, base, sizeof total);
  munmap(base, total);
}

}  // namespace

void* operator new(std::size_t n) { return map_block(n); }
void* operator new[](std::size_t n) { return map_block(n); }
void operator delete(void* p) noexcept { unmap_block(p); }
void operator delete[](void* p) noexcept { unmap_block(p); }
void operator delete(void* p, std::size_t) noexcept { unmap_block(p); }
void operator delete[](void* p, std::size_t) noexcept { unmap_block(p); }
