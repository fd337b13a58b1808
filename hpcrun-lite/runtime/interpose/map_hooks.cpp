// The interposed mapping calls: mmap, munmap, mremap, and System V's shmat and shmdt.
//
// A mapping the program makes is a variable of its own (regions.h), named by its mapping call
// path and, when it maps a file, by the file's path: a file under /dev/shm (shm_open, an MPI
// library's shared segments) or a memfd is shared memory, `mmap shm`; any other file is
// `mmap file`. A System V segment is named by its key. Anonymous mappings are tracked from
// --min-bytes on, as heap blocks are.
//
// A mapping an allocator makes for itself is its arena, never a variable: one made inside an
// allocation call (the allocation scope, alloc_track.h), or called from an allocator library's
// code (jemalloc's, mimalloc's, tcmalloc's or TBB's background work, outside any call). Samples
// there that no tracked block covers are [untracked heap], like glibc's heap.
// glibc's malloc maps through an internal alias and never reaches these wrappers.
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "interpose/alloc_track.h"
#include "hpcl/allocator_libs.h"
#include "interpose/export.h"
#include "loader/modules.h"
#include "memory/regions.h"
#include "process/thread_state.h"
#include "process/source_table.h"

using hpcl::AllocApi;

namespace hpcrun {
namespace {

// The code at `pc` belongs to an allocator library (allocator_libs.h).
bool called_from_allocator(uint64_t pc) {
  uint32_t i = modules_find_code(pc);
  const ModuleEntry* m = i == kNoModuleIndex ? nullptr : module_get(i);
  if (!m) return false;
  const char* slash = strrchr(m->path, '/');
  return hpcl::is_allocator_library(slash ? slash + 1 : m->path);
}

void note_arena(uint64_t lo, uint64_t len) {
  RuntimeGuard guard;
  if (guard.entered()) insert_carved(g_arenas, lo, lo + len, 0);
}

// Whatever [lo, hi) held before is gone: unmapped, or replaced by a MAP_FIXED mapping.
void forget_range(uint64_t lo, uint64_t hi) {
  RuntimeGuard guard;
  if (!guard.entered()) return;
  if (ThreadState* ts = t_state) sources_before_forget(ts);  // as untrack_slow
  if (g_heap.ever_used()) g_heap.remove_range(lo, hi);
  for (HeapMap* map : {&g_maps, &g_named, &g_arenas})
    if (map->ever_used()) carve(*map, lo, hi);
}

uint64_t page_round(uint64_t len) { return (len + 4095) & ~uint64_t(4095); }

void track_mapping(void* p, size_t len, int prot, int flags, int fd) {
  if (len < g_config.min_bytes || !(prot & (PROT_READ | PROT_WRITE))) return;
  auto lo = reinterpret_cast<uint64_t>(p);
  if (flags & MAP_ANONYMOUS) {
    if (!(flags & MAP_STACK)) track_region(g_maps, lo, page_round(len), AllocApi::Mmap, nullptr, 0);
    return;
  }
  if (fd < 0 || (prot & PROT_EXEC)) return;  // code is not data
  char link[32], path[kMaxSiteName + 1];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return;
  std::string_view name(path, size_t(n));
  bool shm = name.starts_with("/dev/shm/") || name.starts_with("/memfd:");
  track_region(g_maps, lo, page_round(len), shm ? AllocApi::MmapShm : AllocApi::MmapFile, path,
               uint32_t(n));
}

void* mmap_from(uint64_t caller, void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  ensure_real_fns();
  void* p = real.mmap(addr, len, prot, flags, fd, off);
  if (p == MAP_FAILED || t_in_runtime || !g_tracking.load(std::memory_order_relaxed)) return p;
  auto lo = reinterpret_cast<uint64_t>(p);
  if (flags & MAP_FIXED) forget_range(lo, lo + page_round(len));
  if (nested_alloc() || called_from_allocator(caller)) {
    note_arena(lo, page_round(len));
    return p;
  }
  track_mapping(p, len, prot, flags, fd);
  return p;
}

}  // namespace
}  // namespace hpcrun

using namespace hpcrun;

extern "C" {

HPCL_EXPORT void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mmap_from(reinterpret_cast<uint64_t>(__builtin_return_address(0)), addr, len, prot, flags,
                   fd, off);
}

HPCL_EXPORT void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mmap_from(reinterpret_cast<uint64_t>(__builtin_return_address(0)), addr, len, prot, flags,
                   fd, off);
}

HPCL_EXPORT int munmap(void* addr, size_t len) {
  ensure_real_fns();
  if (!t_in_runtime) {
    auto lo = reinterpret_cast<uint64_t>(addr);
    forget_range(lo, lo + page_round(len));
  }
  return real.munmap(addr, len);
}

HPCL_EXPORT void* mremap(void* old, size_t old_len, size_t new_len, int flags, ...) {
  ensure_real_fns();
  void* new_addr = nullptr;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    new_addr = va_arg(ap, void*);
    va_end(ap);
  }
  auto call = [&] {
    return (flags & MREMAP_FIXED) ? real.mremap(old, old_len, new_len, flags, new_addr)
                                  : real.mremap(old, old_len, new_len, flags);
  };
  if (t_in_runtime) return call();
  // The same variable (or arena), maybe moved and resized.
  auto a = reinterpret_cast<uint64_t>(old);
  BlockInfo was{};
  HeapMap* map = nullptr;
  {
    RuntimeGuard guard;
    for (HeapMap* m : {&g_maps, &g_arenas})
      if (!map && m->size() > 0 && m->lookup(a, &was) && was.start == a) map = m;
    if (map) carve(*map, was.start, was.start + was.size);
  }
  void* p = call();
  if (!map) return p;
  RuntimeGuard guard;
  if (p == MAP_FAILED) {
    insert_carved(*map, was.start, was.start + was.size, was.site);
  } else {
    if (p != old && g_named.ever_used()) carve(g_named, a, a + page_round(old_len));
    auto lo = reinterpret_cast<uint64_t>(p);
    insert_carved(*map, lo, lo + page_round(new_len), was.site);
  }
  return p;
}

HPCL_EXPORT void* shmat(int shmid, const void* addr, int flags) {
  ensure_real_fns();
  void* p = real.shmat(shmid, addr, flags);
  if (p == reinterpret_cast<void*>(-1) || t_in_runtime || nested_alloc() ||
      !g_tracking.load(std::memory_order_relaxed))
    return p;
  shmid_ds ds;
  if (shmctl(shmid, IPC_STAT, &ds) != 0) return p;
  char name[64];
  int n = ds.shm_perm.__key == IPC_PRIVATE
              ? snprintf(name, sizeof name, "SysV shm id %d", shmid)
              : snprintf(name, sizeof name, "SysV shm key 0x%x", unsigned(ds.shm_perm.__key));
  auto lo = reinterpret_cast<uint64_t>(p);
  forget_range(lo, lo + page_round(ds.shm_segsz));
  track_region(g_maps, lo, page_round(ds.shm_segsz), AllocApi::Shmat, name, uint32_t(n));
  return p;
}

HPCL_EXPORT int shmdt(const void* addr) {
  ensure_real_fns();
  if (!t_in_runtime && g_maps.ever_used()) {
    auto a = reinterpret_cast<uint64_t>(addr);
    BlockInfo was;
    if (g_maps.lookup(a, &was) && was.start == a) forget_range(was.start, was.start + was.size);
  }
  return real.shmdt(addr);
}

}  // extern "C"
