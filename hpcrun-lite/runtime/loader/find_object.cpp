// See find_object.h.
#include "loader/find_object.h"

#include <dlfcn.h>
#include <link.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "loader/phdr_snapshot.h"

// glibc declares struct dl_find_object, and this macro with it, from 2.35 on.
#if defined(DLFO_STRUCT_HAS_EH_DBASE) && !defined(HPCL_TEST_NO_DL_FIND_OBJECT)
#define HPCL_HAVE_DL_FIND_OBJECT 1
#else
#define HPCL_HAVE_DL_FIND_OBJECT 0
#endif

namespace hpcrun {

namespace {

constinit bool g_use_snapshot = !HPCL_HAVE_DL_FIND_OBJECT;

struct Search {
  uint64_t addr;
  CodeObject found;
  bool hit;
};

// One module: does a PT_LOAD segment of it map the address?
int match_module(dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  uint64_t lo = UINT64_MAX, hi = 0;
  bool inside = false;
  const void* eh = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uint64_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD) {
      if (start < lo) lo = start;
      if (start + ph.p_memsz > hi) hi = start + ph.p_memsz;
      if (s->addr - start < ph.p_memsz) inside = true;
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      eh = reinterpret_cast<const void*>(start);
    }
  }
  if (!inside) return 0;
  s->found = {lo, hi, eh};
  s->hit = true;
  return 1;
}

// One module: is the address in it, and read-only there?
struct ConstantSearch {
  uint64_t addr;
  bool read_only;
};

int match_constant(dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<ConstantSearch*>(data);
  bool inside = false, read_only = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (s->addr - (info->dlpi_addr + ph.p_vaddr) >= ph.p_memsz) continue;
    if (ph.p_type == PT_LOAD) {
      inside = true;
      if ((ph.p_flags & PF_W) == 0) read_only = true;
    } else if (ph.p_type == PT_GNU_RELRO) {
      read_only = true;
    }
  }
  if (!inside) return 0;
  s->read_only = read_only;
  return 1;
}

}  // namespace

bool constant_data(uint64_t addr) {
  const int saved_errno = errno;
  ConstantSearch s{addr, false};
  bool answered = false;
  phdr_snapshot_iterate(match_constant, &s, &answered);
  errno = saved_errno;
  return answered && s.read_only;
}

bool find_object_loader(const void* addr, CodeObject* out) {
#if HPCL_HAVE_DL_FIND_OBJECT
  dl_find_object obj;
  if (_dl_find_object(const_cast<void*>(addr), &obj) != 0) return false;
  *out = {reinterpret_cast<uint64_t>(obj.dlfo_map_start), reinterpret_cast<uint64_t>(obj.dlfo_map_end),
          obj.dlfo_eh_frame};
  return true;
#else
  (void)addr;
  (void)out;
  return false;
#endif
}

bool find_object_snapshot(const void* addr, CodeObject* out) {
  const int saved_errno = errno;
  Search s{reinterpret_cast<uint64_t>(addr), {}, false};
  bool answered = false;
  phdr_snapshot_iterate(match_module, &s, &answered);
  errno = saved_errno;
  if (!answered || !s.hit) return false;
  *out = s.found;
  return true;
}

bool find_object(const void* addr, CodeObject* out) {
  return g_use_snapshot ? find_object_snapshot(addr, out) : find_object_loader(addr, out);
}

bool find_object_uses_snapshot() { return g_use_snapshot; }

void find_object_configure() {
  const char* v = getenv("HPCRUN_LITE_TEST_NO_DL_FIND_OBJECT");
  if (v && strcmp(v, "1") == 0) g_use_snapshot = true;
}

}  // namespace hpcrun
