// dlopen: marks the module list as changed (new modules are scanned at the program's next
// allocation, thread start or exit once the loader is done: samples that hit a new module's
// data before then count as unknown data), and pauses the calling thread's sampling timer for
// the call when the runtime may make the call itself (dlopen_route.h).
//
// dlopen must see its real caller: glibc searches the calling object's RUNPATH, so a wrapper that
// always called the real dlopen would change which library some programs load. The exported
// symbol is a stub that asks hpcrun_dlopen_target where to go and jumps there with the caller's
// arguments and return address in place: to the real dlopen, or to hpcrun_dlopen_unsampled,
// which calls it and returns to the caller itself.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdlib.h>

#include <atomic>
#include <cerrno>

#include "base/real_fns.h"
#include "interpose/dlopen_route.h"
#include "interpose/export.h"
#include "process/runtime.h"
#include "process/source_table.h"
#include "process/thread_state.h"

namespace hpcrun {
namespace {

struct SearchTags {
  bool rpath = false, runpath = false, nodeflib = false;
};

SearchTags search_tags(const ElfW(Dyn)* d) {
  SearchTags t;
  for (; d && d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_RPATH) t.rpath = true;
    else if (d->d_tag == DT_RUNPATH) t.runpath = true;
    else if (d->d_tag == DT_FLAGS_1 && (d->d_un.d_val & DF_1_NODEFLIB)) t.nodeflib = true;
  }
  return t;
}

const ElfW(Dyn)* dynamic_of(const void* addr) {
  Dl_info info;
  link_map* map = nullptr;
  if (!dladdr1(addr, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) || !map) return nullptr;
  return map->l_ld;
}

// Whether an object other than the executable (the list's first) has DT_RPATH: it could lie on
// the caller's chain of loaders, which the public link_map does not show.
bool rpath_elsewhere() {
  struct Walk {
    bool first = true, found = false;
  } walk;
  real.dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* w = static_cast<Walk*>(data);
        if (w->first) {
          w->first = false;
          return 0;
        }
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
          const auto* dyn =
              reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
          w->found = search_tags(dyn).rpath;
          break;
        }
        return w->found ? 1 : 0;
      },
      &walk);
  return walk.found;
}

// Facts that do not change during the run, read at the first dlopen that needs them.
std::atomic<int> g_audit{-1}, g_self_search{-1};

bool audit() {
  int v = g_audit.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* a = getenv("LD_AUDIT");
    v = a && *a ? 1 : 0;
    g_audit.store(v, std::memory_order_relaxed);
  }
  return v;
}

bool self_search() {
  int v = g_self_search.load(std::memory_order_relaxed);
  if (v < 0) {
    const ElfW(Dyn)* self = dynamic_of(reinterpret_cast<const void*>(&rpath_elsewhere));
    SearchTags t = search_tags(self);
    v = !self || t.rpath || t.runpath || t.nodeflib ? 1 : 0;
    g_self_search.store(v, std::memory_order_relaxed);
  }
  return v;
}

bool may_call_for(const char* file, const void* caller) {
  DlopenFacts f;
  f.audit = audit();
  if (f.audit || !dlopen_name_allows_call(file)) return false;
  if (dlopen_search_needs_facts(file)) {
    const ElfW(Dyn)* dyn = dynamic_of(caller);
    f.caller_found = dyn != nullptr;
    SearchTags t = search_tags(dyn);
    f.caller_runpath = t.runpath;
    f.caller_nodeflib = t.nodeflib;
    f.self_search = self_search();
    f.rpath_elsewhere = rpath_elsewhere();
  }
  return dlopen_may_call_for_caller(file, f);
}

}  // namespace
}  // namespace hpcrun

using namespace hpcrun;

extern "C" {

// The call made for the caller, not sampled (source_table.h, can_pause): the soft timer's first
// sample inside pauses it.
__attribute__((visibility("hidden"))) void* hpcrun_dlopen_unsampled(const char* file, int mode) {
  ThreadState* ts = t_state;
  sources_unsampled_begin(ts);
  void* handle = real.dlopen(file, mode);
  const int saved_errno = errno;
  sources_unsampled_end(ts);
  errno = saved_errno;
  return handle;
}

__attribute__((visibility("hidden"))) void* hpcrun_dlopen_target(const char* file, int,
                                                                  const void* caller) {
  ensure_real_fns();
  g_modules_dirty.store(true, std::memory_order_release);
  const int saved_errno = errno;
  const bool pause = sources_can_pause(t_state) && may_call_for(file, caller);
  errno = saved_errno;
  return pause ? reinterpret_cast<void*>(&hpcrun_dlopen_unsampled)
               : reinterpret_cast<void*>(real.dlopen);
}

// The caller's return address goes to hpcrun_dlopen_target as its third argument; the caller's
// two arguments are restored before the jump.
HPCL_EXPORT __attribute__((naked)) void* dlopen(const char*, int) {
  __asm__(
      "push %rdi\n\t"
      "push %rsi\n\t"
      "sub $8, %rsp\n\t"  // 16-byte alignment for the call
      "mov 24(%rsp), %rdx\n\t"
      "call hpcrun_dlopen_target\n\t"
      "add $8, %rsp\n\t"
      "pop %rsi\n\t"
      "pop %rdi\n\t"
      "jmp *%rax\n\t");
}

}  // extern "C"
